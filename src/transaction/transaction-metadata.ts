import { ErrorName } from '../common/error-codes';
import { TopicPartition, tpString } from '../common/topic-partition';
import { isValidPreviousState, TransactionState } from './transaction-state';

/** RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH. */
export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
/** Short.MaxValue: a producer epoch cannot go past it. */
const MAX_EPOCH = 32767;

/** Kafka's TransactionMetadata.isEpochExhausted: one bump is kept in reserve for fencing. */
export function isEpochExhausted(epoch: number): boolean {
  return epoch >= MAX_EPOCH - 1;
}

/**
 * What a transition will make of a transactional id (Kafka's TxnTransitMetadata): written to
 * `__transaction_state` first, applied to the cached metadata only once the write is replicated.
 */
export interface TxnTransitMetadata {
  readonly producerId: number;
  readonly lastProducerId: number;
  readonly producerEpoch: number;
  readonly lastProducerEpoch: number;
  readonly txnTimeoutMs: number;
  readonly txnState: TransactionState;
  readonly topicPartitions: readonly TopicPartition[];
  readonly txnStartTimestamp: number;
  readonly txnLastUpdateTimestamp: number;
}

/** A transition refused as Kafka's IllegalStateException would be: a coordinator bug, never a client's error. */
export class IllegalTransactionStateError extends Error {}

export interface TransactionMetadataInit {
  transactionalId: string;
  producerId: number;
  lastProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionState;
  topicPartitions?: readonly TopicPartition[];
  txnStartTimestamp?: number;
  txnLastUpdateTimestamp: number;
}

/**
 * One transactional id as its coordinator holds it (Kafka 2.8's TransactionMetadata): producer id and epoch,
 * the previous ones (so a retried InitProducerId is recognised), the timeout, the state, the partitions of the
 * open transaction, and at most one pending transition. Every `prepare*` sets the pending state and returns the
 * target; `completeTransitionTo` applies it once `__transaction_state` has it. Pure: no I/O, no clock.
 */
export class TransactionMetadata {
  readonly transactionalId: string;
  producerId: number;
  lastProducerId: number;
  producerEpoch: number;
  lastProducerEpoch: number;
  txnTimeoutMs: number;
  state: TransactionState;
  readonly topicPartitions = new Map<string, TopicPartition>();
  txnStartTimestamp: number;
  txnLastUpdateTimestamp: number;
  pendingState: TransactionState | undefined;
  /** An epoch fence whose PrepareAbort write failed: the next fence reuses the bumped epoch (KAFKA-9144). */
  hasFailedEpochFence = false;

  constructor(init: TransactionMetadataInit) {
    this.transactionalId = init.transactionalId;
    this.producerId = init.producerId;
    this.lastProducerId = init.lastProducerId;
    this.producerEpoch = init.producerEpoch;
    this.lastProducerEpoch = init.lastProducerEpoch;
    this.txnTimeoutMs = init.txnTimeoutMs;
    this.state = init.state;
    for (const tp of init.topicPartitions ?? []) this.topicPartitions.set(tpString(tp), tp);
    this.txnStartTimestamp = init.txnStartTimestamp ?? -1;
    this.txnLastUpdateTimestamp = init.txnLastUpdateTimestamp;
  }

  get pendingTransitionInProgress(): boolean {
    return this.pendingState !== undefined;
  }

  get isProducerEpochExhausted(): boolean {
    return isEpochExhausted(this.producerEpoch);
  }

  partitions(): TopicPartition[] {
    return [...this.topicPartitions.values()];
  }

  removePartition(tp: TopicPartition): void {
    if (this.state !== 'PrepareCommit' && this.state !== 'PrepareAbort') {
      throw new IllegalTransactionStateError(`Transaction metadata's current state is ${this.state}, and its pending state is ${this.pendingState ?? 'None'} while trying to remove partitions whose txn marker has been sent, this is not expected`);
    }
    this.topicPartitions.delete(tpString(tp));
  }

  /** The current state unchanged (a write of what is cached, e.g. the timeout-abort's rewrite). */
  prepareNoTransit(): TxnTransitMetadata {
    return { ...this.snapshot(), topicPartitions: this.partitions() };
  }

  /** Bumps the epoch so an Ongoing transaction's producer is fenced before the coordinator aborts it. */
  prepareFenceProducerEpoch(): TxnTransitMetadata {
    if (this.producerEpoch === MAX_EPOCH) throw new IllegalTransactionStateError(`Cannot fence producer with epoch equal to Short.MaxValue since this would overflow`);
    // A failed fence already bumped the epoch once; bumping again could exhaust it (KAFKA-9144).
    const bumped = this.hasFailedEpochFence ? this.producerEpoch : this.producerEpoch + 1;
    return this.prepareTransitionTo('PrepareEpochFence', this.producerId, bumped, NO_PRODUCER_EPOCH, this.txnTimeoutMs, this.partitions(), this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  /**
   * InitProducerId's epoch bump. `expectedProducerEpoch` is the epoch a KIP-360 client says it has (undefined for
   * a new producer): the current one bumps, the previous one is a retry answered with the current epoch, any other
   * is fenced.
   */
  prepareIncrementProducerEpoch(newTxnTimeoutMs: number, expectedProducerEpoch: number | undefined, updateTimestamp: number): TxnTransitMetadata | ErrorName {
    if (this.isProducerEpochExhausted) throw new IllegalTransactionStateError(`Cannot allocate any more producer epochs for producerId ${this.producerId}`);
    const bumped = this.producerEpoch + 1;
    let next: number;
    let last: number;
    if (expectedProducerEpoch === undefined) {
      next = bumped;
      last = NO_PRODUCER_EPOCH;
    } else if (this.producerEpoch === NO_PRODUCER_EPOCH || expectedProducerEpoch === this.producerEpoch) {
      next = bumped;
      last = this.producerEpoch;
    } else if (expectedProducerEpoch === this.lastProducerEpoch) {
      next = this.producerEpoch;
      last = this.lastProducerEpoch;
    } else {
      return 'PRODUCER_FENCED';
    }
    return this.prepareTransitionTo('Empty', this.producerId, next, last, newTxnTimeoutMs, [], -1, updateTimestamp);
  }

  /** A new producer id once the epoch is exhausted (epoch 0 again). */
  prepareProducerIdRotation(newProducerId: number, newTxnTimeoutMs: number, updateTimestamp: number, recordLastEpoch: boolean): TxnTransitMetadata {
    if (this.topicPartitions.size > 0) throw new IllegalTransactionStateError(`Cannot rotate producer ids while a transaction is still pending`);
    return this.prepareTransitionTo('Empty', newProducerId, 0, recordLastEpoch ? this.producerEpoch : NO_PRODUCER_EPOCH, newTxnTimeoutMs, [], -1, updateTimestamp);
  }

  /** AddPartitionsToTxn / AddOffsetsToTxn: Ongoing with the union; a new transaction starts its clock now. */
  prepareAddPartitions(added: readonly TopicPartition[], updateTimestamp: number): TxnTransitMetadata {
    const start = this.state === 'Empty' || this.state === 'CompleteAbort' || this.state === 'CompleteCommit' ? updateTimestamp : this.txnStartTimestamp;
    const union = new Map(this.topicPartitions);
    for (const tp of added) union.set(tpString(tp), tp);
    return this.prepareTransitionTo('Ongoing', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, [...union.values()], start, updateTimestamp);
  }

  prepareAbortOrCommit(newState: 'PrepareCommit' | 'PrepareAbort', updateTimestamp: number): TxnTransitMetadata {
    return this.prepareTransitionTo(newState, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, this.partitions(), this.txnStartTimestamp, updateTimestamp);
  }

  /** After every marker is written: CompleteCommit or CompleteAbort, no partitions. */
  prepareComplete(updateTimestamp: number): TxnTransitMetadata {
    const newState = this.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort';
    // The prepare record is in the log, so a failed fence is behind us.
    this.hasFailedEpochFence = false;
    return this.prepareTransitionTo(newState, this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, [], this.txnStartTimestamp, updateTimestamp);
  }

  /** Expiry of the transactional id (a tombstone in the log). */
  prepareDead(): TxnTransitMetadata {
    return this.prepareTransitionTo('Dead', this.producerId, this.producerEpoch, this.lastProducerEpoch, this.txnTimeoutMs, [], this.txnStartTimestamp, this.txnLastUpdateTimestamp);
  }

  private prepareTransitionTo(
    newState: TransactionState,
    producerId: number,
    producerEpoch: number,
    lastProducerEpoch: number,
    txnTimeoutMs: number,
    topicPartitions: readonly TopicPartition[],
    txnStartTimestamp: number,
    txnLastUpdateTimestamp: number,
  ): TxnTransitMetadata {
    if (this.pendingState !== undefined) {
      throw new IllegalTransactionStateError(`Preparing transaction state transition to ${newState} while it already a pending state ${this.pendingState}`);
    }
    if (producerId < 0) throw new IllegalTransactionStateError(`Illegal new producer id ${producerId}`);
    // The epoch may only be NO_PRODUCER_EPOCH (-1) before the first InitProducerId completes.
    if (producerEpoch < 0) throw new IllegalTransactionStateError(`Illegal new producer epoch ${producerEpoch}`);
    if (!isValidPreviousState(newState, this.state)) {
      throw new IllegalTransactionStateError(`Preparing transaction state transition to ${newState} failed since the target state ${newState} is not a valid previous state of the current state ${this.state}`);
    }
    this.pendingState = newState;
    return {
      producerId,
      lastProducerId: this.producerId,
      producerEpoch,
      lastProducerEpoch,
      txnTimeoutMs,
      txnState: newState,
      topicPartitions,
      txnStartTimestamp,
      txnLastUpdateTimestamp,
    };
  }

  /**
   * Applies a transition whose record is now in the log (Kafka's completeTransitionTo), checking that it is the
   * one prepared: the pending state matches, the epoch does not go back, and so on per target state.
   */
  completeTransitionTo(t: TxnTransitMetadata): void {
    const toState = this.pendingState;
    if (toState === undefined || toState !== t.txnState) this.throwInvalid(t);
    if (this.producerId !== t.producerId && toState !== 'Empty') this.throwInvalid(t);
    switch (toState) {
      case 'Empty':
        if (t.txnStartTimestamp !== -1 || t.topicPartitions.length > 0) this.throwInvalid(t);
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.setPartitions([]);
        break;
      case 'Ongoing':
        if (!this.sameProducer(t) || t.txnTimeoutMs !== this.txnTimeoutMs || t.txnStartTimestamp < this.txnStartTimestamp) this.throwInvalid(t);
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.setPartitions(t.topicPartitions);
        break;
      case 'PrepareAbort':
      case 'PrepareCommit':
        if (!this.sameProducer(t) || t.txnTimeoutMs !== this.txnTimeoutMs || t.txnStartTimestamp !== this.txnStartTimestamp) this.throwInvalid(t);
        break;
      case 'CompleteAbort':
      case 'CompleteCommit':
        if (!this.sameProducer(t) || t.txnTimeoutMs !== this.txnTimeoutMs || t.txnStartTimestamp === -1) this.throwInvalid(t);
        this.txnStartTimestamp = t.txnStartTimestamp;
        this.setPartitions([]);
        break;
      case 'PrepareEpochFence':
      // PrepareEpochFence is never written (the fence goes straight on to PrepareAbort, see the coordinator's
      // endTransaction) and Dead is never applied (the expired id leaves the cache once its tombstone is written).
      case 'Dead':
        this.throwInvalid(t);
    }
    this.producerId = t.producerId;
    this.lastProducerId = t.lastProducerId;
    this.producerEpoch = t.producerEpoch;
    this.lastProducerEpoch = t.lastProducerEpoch;
    this.txnTimeoutMs = t.txnTimeoutMs;
    this.txnLastUpdateTimestamp = t.txnLastUpdateTimestamp;
    this.state = toState;
    this.pendingState = undefined;
  }

  private sameProducer(t: TxnTransitMetadata): boolean {
    return this.producerEpoch === t.producerEpoch && t.txnLastUpdateTimestamp >= this.txnLastUpdateTimestamp;
  }

  private setPartitions(tps: readonly TopicPartition[]): void {
    this.topicPartitions.clear();
    for (const tp of tps) this.topicPartitions.set(tpString(tp), tp);
  }

  private throwInvalid(t: TxnTransitMetadata): never {
    throw new IllegalTransactionStateError(
      `TransactionalId ${this.transactionalId} failed transition to state ${JSON.stringify(t)} due to unexpected metadata`,
    );
  }

  private snapshot(): Omit<TxnTransitMetadata, 'topicPartitions'> {
    return {
      producerId: this.producerId,
      lastProducerId: this.lastProducerId,
      producerEpoch: this.producerEpoch,
      lastProducerEpoch: this.lastProducerEpoch,
      txnTimeoutMs: this.txnTimeoutMs,
      txnState: this.state,
      txnStartTimestamp: this.txnStartTimestamp,
      txnLastUpdateTimestamp: this.txnLastUpdateTimestamp,
    };
  }

  /** Kafka's TransactionMetadata.toString, for log lines. */
  toString(): string {
    return (
      `TransactionMetadata(transactionalId=${this.transactionalId}, producerId=${this.producerId}, producerEpoch=${this.producerEpoch}, ` +
      `txnTimeoutMs=${this.txnTimeoutMs}, state=${this.state}, pendingState=${this.pendingState === undefined ? 'None' : `Some(${this.pendingState})`}, ` +
      `topicPartitions=Set(${this.partitions().map(tpString).join(', ')}), txnStartTimestamp=${this.txnStartTimestamp}, txnLastUpdateTimestamp=${this.txnLastUpdateTimestamp})`
    );
  }
}
