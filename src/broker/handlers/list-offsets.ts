import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { tpString } from '../../common/topic-partition';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../log/log';
import { ListOffsetsPartitionResponse, ListOffsetsRequest, ListOffsetsResponse } from '../../protocol/apis/list-offsets';
import { ApiHandler } from '../network/api-handler';
import { filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * ListOffsets from the leader (Kafka's Partition.fetchOffsetForTimestamp): -2 earliest (log start), -1 latest
 * (the last fetchable offset: the last stable offset for read_committed consumers, the high watermark for other
 * consumers, the log end offset for replicas), else the first
 * offset whose timestamp is at or after the one asked and below the last fetchable offset. v0 answers a list of
 * segment offsets, as Kafka 0.8's OffsetRequest did. v4+: a CurrentLeaderEpoch other than ours is fenced (older)
 * or unknown (newer), and the answer carries the offset's leader epoch. A consumer asking a new leader whose high
 * watermark is still behind the start of its epoch gets OFFSET_NOT_AVAILABLE (v5+; LEADER_NOT_AVAILABLE before)
 * for the latest offset or a timestamp not found below the high watermark.
 */
export function createListOffsetsHandler(ctx: HandlerContext): ApiHandler<ListOffsetsRequest, ListOffsetsResponse> {
  return (request, context) => {
    const version = context.header.apiVersion;
    const fromConsumer = request.replicaId < 0;
    // IsolationLevel.READ_COMMITTED (v2+): the latest offset such a consumer may read is the LSO.
    const readCommitted = fromConsumer && version >= 2 && request.isolationLevel === 1;
    const authorized = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'DESCRIBE', 'TOPIC', request.topics.map((t) => t.name));
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p): ListOffsetsPartitionResponse => {
          const response: ListOffsetsPartitionResponse = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE.code, oldStyleOffsets: [], timestamp: -1, offset: -1, leaderEpoch: -1 };
          if (authorized !== undefined && !authorized.has(t.name)) return { ...response, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code };
          try {
            const tp = { topic: t.name, partition: p.partitionIndex };
            const partition = ctx.replicaManager.leaderPartition(tp);
            const log = partition.log as NonNullable<typeof partition.log>;
            if (version === 0) {
              const offsets = [log.logEndOffset, ...[...log.logSegments()].reverse().map((s) => s.baseOffset)];
              const upTo = p.timestamp === LATEST_TIMESTAMP ? offsets : p.timestamp === EARLIEST_TIMESTAMP ? [log.logStartOffset] : offsets;
              response.oldStyleOffsets = [...new Set(upTo)].slice(0, Math.max(1, p.maxNumOffsets));
              return response;
            }
            const currentLeaderEpoch = p.currentLeaderEpoch ?? -1;
            if (currentLeaderEpoch >= 0 && currentLeaderEpoch < partition.leaderEpoch) throw new KafkaError('FENCED_LEADER_EPOCH');
            if (currentLeaderEpoch > partition.leaderEpoch) throw new KafkaError('UNKNOWN_LEADER_EPOCH');
            const lastFetchableOffset = readCommitted ? log.lastStableOffset : fromConsumer ? partition.highWatermark : log.logEndOffset;
            const offsetsError = (): KafkaError | undefined => {
              const epochStart = partition.leaderEpochStartOffset;
              if (!fromConsumer || epochStart <= partition.highWatermark) return undefined;
              const epochText = currentLeaderEpoch >= 0 ? `epoch ${currentLeaderEpoch}` : 'unknown epoch';
              const message =
                `Failed to fetch offsets for partition ${tpString(tp)} with leader ${epochText} as this partition's high watermark ` +
                `(${partition.highWatermark}) is lagging behind the start offset from the beginning of this epoch (${epochStart}).`;
              return version >= 5 ? new KafkaError('OFFSET_NOT_AVAILABLE', message) : new KafkaError('LEADER_NOT_AVAILABLE', message);
            };
            if (p.timestamp === LATEST_TIMESTAMP) {
              const error = offsetsError();
              if (error !== undefined) throw error;
              response.offset = lastFetchableOffset;
              response.leaderEpoch = partition.leaderEpoch;
            } else {
              const found = log.fetchOffsetByTimestamp(p.timestamp);
              if (found !== undefined && (p.timestamp === EARLIEST_TIMESTAMP || found.offset < lastFetchableOffset)) {
                response.timestamp = found.timestamp;
                response.offset = found.offset;
                response.leaderEpoch = found.leaderEpoch;
              } else {
                const error = offsetsError();
                if (error !== undefined) throw error;
              }
            }
          } catch (err) {
            response.errorCode = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
          }
          return response;
        }),
      })),
    };
  };
}
