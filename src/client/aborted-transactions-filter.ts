import type { AbortedTransaction } from '../protocol/apis/fetch';
import type { RecordBatch } from '../records';

/** ControlRecordType.ABORT: a marker's key is (version int16, type int16). */
const CONTROL_TYPE_ABORT = 0;

/**
 * A read_committed consumer's view of one partition's fetched batches (Kafka's Fetcher with its
 * abortedProducerIds): a producer becomes aborted when the fetch's `abortedTransactions` list one of its
 * transactions starting at or before the batch, its transactional batches are skipped until its ABORT marker,
 * and control batches are never returned. Batch headers only, except the one key of an ABORT candidate marker.
 */
export class AbortedTransactionsFilter {
  private readonly pending: AbortedTransaction[];
  private readonly aborted = new Set<number>();

  constructor(abortedTransactions: readonly AbortedTransaction[] | null) {
    this.pending = [...(abortedTransactions ?? [])].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /** Whether `batch` (in offset order) holds records the application may see. */
  accepts(batch: RecordBatch): boolean {
    while (this.pending.length > 0 && (this.pending[0] as AbortedTransaction).firstOffset <= batch.lastOffset) {
      this.aborted.add((this.pending.shift() as AbortedTransaction).producerId);
    }
    if (batch.isControlBatch) {
      if (this.aborted.has(batch.producerId) && isAbortMarker(batch)) this.aborted.delete(batch.producerId);
      return false;
    }
    return !(batch.isTransactional && this.aborted.has(batch.producerId));
  }
}

function isAbortMarker(batch: RecordBatch): boolean {
  const key = batch.records()[0]?.key;
  return key !== undefined && key !== null && key.length >= 4 && key.readInt16BE(2) === CONTROL_TYPE_ABORT;
}
