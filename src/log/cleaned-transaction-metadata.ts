import { RecordBatch } from '../records/record-batch';
import { AbortedTxn, TransactionIndex } from './transaction-index';

/** ControlRecordType in a marker's key (version int16, type int16). */
const CONTROL_TYPE_ABORT = 0;
const CONTROL_TYPE_COMMIT = 1;

interface AbortedTxnProgress {
  readonly txn: AbortedTxn;
  /** Set once a batch of the transaction was met in this round: its marker must stay until that data is gone. */
  lastObservedBatchOffset: number | undefined;
}

/**
 * Kafka's CleanedTransactionMetadata: what one cleaning round knows of the transactions in the range it walks, in
 * offset order. The aborted ones come from the segments' `.txnindex` (`addAbortedTransactions`, one segment's
 * worth at a time); a transactional batch of an aborted transaction is aborted data, which the cleaner drops; a
 * marker may go only once the round met no data of its transaction (so it is not needed to tell readers what to
 * skip or keep), and an ABORT marker that stays because its data was met gets its entry in the cleaned segment's
 * index. Decided from batch headers and the marker's key; one round, one instance.
 */
export class CleanedTransactionMetadata {
  /** Pending aborted transactions by first offset (the indexes give them in marker order). */
  private abortedTransactions: AbortedTxn[] = [];
  private readonly ongoingAbortedTxns = new Map<number, AbortedTxnProgress>();
  private readonly ongoingCommittedTxns = new Set<number>();
  /** Where retained ABORT markers' entries go: the index of the segment being written. */
  cleanedIndex: TransactionIndex | undefined;

  addAbortedTransactions(txns: readonly AbortedTxn[]): void {
    if (txns.length === 0) return;
    this.abortedTransactions = [...this.abortedTransactions, ...txns].sort((a, b) => a.firstOffset - b.firstOffset);
  }

  /**
   * A data batch: true if it belongs to an aborted transaction (its records can go). A transactional batch of any
   * other transaction marks that transaction as met, so its COMMIT marker stays this round.
   */
  onBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    if (!batch.isTransactional) return false;
    const aborted = this.ongoingAbortedTxns.get(batch.producerId);
    if (aborted !== undefined) {
      aborted.lastObservedBatchOffset = batch.lastOffset;
      return true;
    }
    this.ongoingCommittedTxns.add(batch.producerId);
    return false;
  }

  /** A control batch: true if the marker may be discarded (no data of its transaction was met in this round). */
  onControlBatchRead(batch: RecordBatch): boolean {
    this.consumeAbortedTxnsUpTo(batch.lastOffset);
    const record = batch.records()[0];
    // An empty control batch is what a previous round left of a marker: nothing refers to it.
    if (record === undefined) return true;
    if (record.key === null || record.key.length < 4) return false;
    const type = record.key.readInt16BE(2);
    const producerId = batch.producerId;
    if (type === CONTROL_TYPE_ABORT) {
      const aborted = this.ongoingAbortedTxns.get(producerId);
      this.ongoingAbortedTxns.delete(producerId);
      if (aborted?.lastObservedBatchOffset !== undefined) {
        this.cleanedIndex?.appendIfAbsent(aborted.txn);
        return false;
      }
      return true;
    }
    if (type === CONTROL_TYPE_COMMIT) return !this.ongoingCommittedTxns.delete(producerId);
    return false;
  }

  private consumeAbortedTxnsUpTo(offset: number): void {
    let i = 0;
    for (; i < this.abortedTransactions.length; i++) {
      const txn = this.abortedTransactions[i] as AbortedTxn;
      if (txn.firstOffset > offset) break;
      if (!this.ongoingAbortedTxns.has(txn.producerId)) this.ongoingAbortedTxns.set(txn.producerId, { txn, lastObservedBatchOffset: undefined });
    }
    if (i > 0) this.abortedTransactions = this.abortedTransactions.slice(i);
  }
}
