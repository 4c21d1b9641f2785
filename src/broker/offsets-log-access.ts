import { Clock } from '../common/time';
import { GROUP_METADATA_TOPIC_NAME } from '../common/topic';
import { ErrorName } from '../common/error-codes';
import { batchesIn, CompressionType, RecordBatchBuilder } from '../records';
import { OffsetsLog, OffsetsLogBatch } from '../rebalance/offsets-log';
import { coordinatorAppend } from './coordinator-append';
import { ReplicaManager } from './replica-manager';

/** ControlRecordType: a marker's key is (version int16, type int16), ABORT 0, COMMIT 1. */
function markerOf(key: Buffer | null | undefined): 'COMMIT' | 'ABORT' | 'OTHER' {
  if (key == null || key.length < 4) return 'OTHER';
  const type = key.readInt16BE(2);
  return type === 1 ? 'COMMIT' : type === 0 ? 'ABORT' : 'OTHER';
}

/**
 * The group coordinator's view of its `__consumer_offsets` partitions through the local replica manager: one
 * uncompressed batch per append (offsets.topic.compression.codec 0), transactional with the producer's id and
 * epoch for TxnOffsetCommit (no sequence, as Kafka's coordinator writes it), appended as leader waiting for the
 * whole ISR (offsets.commit.required.acks -1, the only value 2.8 still allows); reads for loading.
 */
export function offsetsLogAccess(replicaManager: ReplicaManager, clock: Clock): OffsetsLog {
  const tp = (partition: number): { topic: string; partition: number } => ({ topic: GROUP_METADATA_TOPIC_NAME, partition });
  return {
    append: (partition, records, producer, timeoutMs): Promise<ErrorName | undefined> => {
      const builder = new RecordBatchBuilder({ compression: CompressionType.NONE, ...(producer !== undefined ? { ...producer, isTransactional: true } : {}) });
      for (const r of records) builder.append(r);
      return coordinatorAppend(replicaManager, clock, tp(partition), builder.build(), timeoutMs);
    },
    bounds: (partition) => {
      const log = replicaManager.getPartition(tp(partition))?.log;
      return log === undefined ? undefined : { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
    },
    read: (partition, fromOffset, maxBytes): OffsetsLogBatch[] => {
      const log = replicaManager.getPartition(tp(partition))?.log;
      if (log === undefined) return [];
      return [...batchesIn(log.read(fromOffset, maxBytes).records)].map((b) => {
        const records = b.records();
        return {
          nextOffset: b.nextOffset,
          producerId: b.producerId,
          isTransactional: b.isTransactional,
          marker: b.isControlBatch ? markerOf(records[0]?.key) : null,
          records: b.isControlBatch ? [] : records.map((r) => ({ offset: r.offset, key: r.key, value: r.value })),
        };
      });
    },
  };
}
