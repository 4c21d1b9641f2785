import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { EpochEndOffset, OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse } from '../../protocol/apis/offset-for-leader-epoch';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * OffsetsForLeaderEpoch (KIP-101/320), answered by the leader: for each partition, the largest leader epoch it
 * has at or below the one asked and the offset where that epoch ends (its log end offset for the current
 * epoch). A follower truncates to it before fetching, so logs that diverged after a failover agree again.
 * A follower whose idea of the current leader epoch is older or newer than ours gets FENCED_LEADER_EPOCH or
 * UNKNOWN_LEADER_EPOCH and waits for the controller.
 */
export function createOffsetsForLeaderEpochHandler(ctx: HandlerContext): ApiHandler<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse> {
  return (request, context) => {
    // Kafka 2.8: ClusterAction on the cluster (brokers), else Describe on each topic (consumers since KIP-320).
    const authorized =
      ctx.authorizer === undefined || authorizeCluster(ctx, context, 'CLUSTER_ACTION', { logIfDenied: false })
        ? undefined
        : filterByAuthorized(ctx, context, 'DESCRIBE', 'TOPIC', request.topics.map((t) => t.topic));
    return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((p): EpochEndOffset => {
        const result: EpochEndOffset = { errorCode: ErrorCode.NONE.code, partition: p.partition, leaderEpoch: -1, endOffset: -1 };
        if (authorized !== undefined && !authorized.has(t.topic)) return { ...result, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code };
        try {
          const partition = ctx.replicaManager.leaderPartition({ topic: t.topic, partition: p.partition });
          if (p.currentLeaderEpoch >= 0 && p.currentLeaderEpoch < partition.leaderEpoch) throw new KafkaError('FENCED_LEADER_EPOCH');
          if (p.currentLeaderEpoch > partition.leaderEpoch) throw new KafkaError('UNKNOWN_LEADER_EPOCH');
          const log = partition.log as NonNullable<typeof partition.log>;
          const end = log.endOffsetForEpoch(p.leaderEpoch);
          result.leaderEpoch = end.leaderEpoch;
          result.endOffset = end.endOffset;
        } catch (err) {
          result.errorCode = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
        }
        return result;
      }),
    })),
    };
  };
}
