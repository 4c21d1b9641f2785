import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { DescribeProducersPartitionResponse, DescribeProducersRequest, DescribeProducersResponse } from '../../protocol/apis/describe-producers';
import { ApiHandler } from '../network/api-handler';
import { filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * DescribeProducers (Kafka's KafkaApis.handleDescribeProducersRequest with ReplicaManager.activeProducerState):
 * each partition's leader answers the producers of its log's producer state, read from the batch headers it
 * appended or replicated; a follower answers NOT_LEADER_OR_FOLLOWER, a partition this broker does not know
 * UNKNOWN_TOPIC_OR_PARTITION, an offline log KAFKA_STORAGE_ERROR.
 */
export function createDescribeProducersHandler(ctx: HandlerContext): ApiHandler<DescribeProducersRequest, DescribeProducersResponse> {
  return (request, context) => {
    // Kafka's filterByAuthorized(READ, TOPIC): a topic not readable answers TOPIC_AUTHORIZATION_FAILED per partition.
    const readable = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex): DescribeProducersPartitionResponse => {
        if (readable !== undefined && !readable.has(t.name)) return { partitionIndex, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, errorMessage: null, activeProducers: [] };
        try {
          const log = ctx.replicaManager.leaderPartition({ topic: t.name, partition: partitionIndex }).log;
          if (log === undefined) throw new KafkaError('NOT_LEADER_OR_FOLLOWER');
          const activeProducers = [...log.producerStateManager.activeProducers].map(([producerId, e]) => ({
            producerId,
            producerEpoch: e.producerEpoch,
            lastSequence: e.lastSeq,
            lastTimestamp: e.lastTimestamp,
            coordinatorEpoch: e.coordinatorEpoch,
            currentTxnStartOffset: e.currentTxnFirstOffset,
          }));
          return { partitionIndex, errorCode: ErrorCode.NONE.code, errorMessage: null, activeProducers };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          // Kafka's ReplicaManager.activeProducerState answers the code alone.
          return { partitionIndex, errorCode: err.code, errorMessage: null, activeProducers: [] };
        }
      }),
    })),
    };
  };
}
