import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP } from '../../log/log';
import { ListOffsetsPartitionResponse, ListOffsetsRequest, ListOffsetsResponse } from '../../protocol/apis/list-offsets';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/**
 * ListOffsets from the leader: -2 earliest (log start), -1 latest (the high watermark for consumers, the log end
 * offset for replicas), else the first offset whose timestamp is at or after the one asked. v0 answers a list of
 * segment offsets, as Kafka 0.8's OffsetRequest did.
 */
export function createListOffsetsHandler(ctx: HandlerContext): ApiHandler<ListOffsetsRequest, ListOffsetsResponse> {
  return (request, context) => {
    const version = context.header.apiVersion;
    const fromConsumer = request.replicaId < 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p): ListOffsetsPartitionResponse => {
          const response: ListOffsetsPartitionResponse = { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE.code, oldStyleOffsets: [], timestamp: -1, offset: -1 };
          try {
            const partition = ctx.replicaManager.leaderPartition({ topic: t.name, partition: p.partitionIndex });
            const log = partition.log as NonNullable<typeof partition.log>;
            if (version === 0) {
              const offsets = [log.logEndOffset, ...[...log.logSegments()].reverse().map((s) => s.baseOffset)];
              const upTo = p.timestamp === LATEST_TIMESTAMP ? offsets : p.timestamp === EARLIEST_TIMESTAMP ? [log.logStartOffset] : offsets;
              response.oldStyleOffsets = [...new Set(upTo)].slice(0, Math.max(1, p.maxNumOffsets));
            } else if (p.timestamp === LATEST_TIMESTAMP) {
              response.offset = fromConsumer ? partition.highWatermark : log.logEndOffset;
            } else {
              const found = log.fetchOffsetByTimestamp(p.timestamp);
              if (found !== undefined) {
                response.timestamp = found.timestamp;
                response.offset = fromConsumer ? Math.min(found.offset, Math.max(partition.highWatermark, log.logStartOffset)) : found.offset;
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
