import { ErrorCode } from '../../common/error-codes';
import { GROUP_METADATA_TOPIC_NAME } from '../../common/topic';
import { RecordBatchBuilder } from '../../records';
import { WritableTxnMarker, WritableTxnMarkerResult, WriteTxnMarkersRequest, WriteTxnMarkersResponse } from '../../protocol/apis/write-txn-markers';
import { coordinatorAppend } from '../coordinator-append';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

/** ControlRecordType's codes: the key's type field of an end-transaction marker. */
const ABORT = 0;
const COMMIT = 1;

/**
 * An end-transaction marker as Kafka's MemoryRecords.withEndTransactionMarker builds it: one control batch
 * (transactional and control bits set, the producer's id and epoch, no sequence) holding one record whose key is
 * [version int16 0, type int16] and whose value is [version int16 0, coordinator_epoch int32].
 */
export function endTransactionMarkerBatch(producerId: number, producerEpoch: number, commit: boolean, coordinatorEpoch: number, timestamp: number): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(commit ? COMMIT : ABORT, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return new RecordBatchBuilder({ producerId, producerEpoch, isTransactional: true, isControlBatch: true }).append({ key, value, timestamp }).build();
}

/**
 * WriteTxnMarkers (from a transaction coordinator): each marker's control batch is appended, as leader with
 * acks=-1, to each of its partitions (Kafka's handleWriteTxnMarkersRequest). Markers that reach
 * `__consumer_offsets` partitions also settle the producer's pending transactional offsets there (commit to
 * ZooKeeper, or drop). The log's producer state sees the control batch on the append itself.
 */
export function createWriteTxnMarkersHandler(ctx: HandlerContext): ApiHandler<WriteTxnMarkersRequest, WriteTxnMarkersResponse> {
  return async (request, context) => {
    // Kafka's authorizeClusterOperation(CLUSTER_ACTION): only brokers write markers; anyone else gets
    // CLUSTER_AUTHORIZATION_FAILED on every partition (WriteTxnMarkersRequest.getErrorResponse).
    if (!authorizeCluster(ctx, context, 'CLUSTER_ACTION')) {
      const errorCode = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code;
      return {
        markers: request.markers.map((m) => ({ producerId: m.producerId, topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode })) })) })),
      };
    }
    const markers = await Promise.all(request.markers.map((m) => writeMarker(ctx, m)));
    return { markers };
  };
}

async function writeMarker(ctx: HandlerContext, marker: WritableTxnMarker): Promise<WritableTxnMarkerResult> {
  const batch = endTransactionMarkerBatch(marker.producerId, marker.producerEpoch, marker.transactionResult, marker.coordinatorEpoch, ctx.clock.nowMs());
  const timeoutMs = ctx.config.get('request.timeout.ms');
  const topics = await Promise.all(
    marker.topics.map(async (t) => ({
      name: t.name,
      partitions: await Promise.all(
        t.partitionIndexes.map(async (p) => {
          const error = await coordinatorAppend(ctx.replicaManager, ctx.clock, { topic: t.name, partition: p }, batch, timeoutMs);
          return { partitionIndex: p, errorCode: error === undefined ? ErrorCode.NONE.code : ErrorCode[error].code };
        }),
      ),
    })),
  );
  const offsetsPartitions = topics
    .filter((t) => t.name === GROUP_METADATA_TOPIC_NAME)
    .flatMap((t) => t.partitions.filter((p) => p.errorCode === ErrorCode.NONE.code).map((p) => p.partitionIndex));
  if (offsetsPartitions.length > 0) await ctx.groupCoordinator.handleTxnCompletion(marker.producerId, offsetsPartitions, marker.transactionResult);
  return { producerId: marker.producerId, topics };
}
