import { ErrorName } from '../common/error-codes';
import { hashPartitionFor } from '../common/java-string-hash-code';
import { getLogger, Logger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { TRANSACTION_STATE_TOPIC_NAME } from '../common/topic';
import { batchesIn, CompressionType, RecordBatchBuilder } from '../records';
import { readTransactionLogKey, readTransactionLogValue, transactionLogKey, transactionLogValue } from './transaction-log';
import { TransactionMetadata, TxnTransitMetadata } from './transaction-metadata';

/**
 * How the state manager reaches its partitions' logs on this broker (the broker's replica manager behind it, as
 * Kafka's TransactionStateManager uses ReplicaManager): appends as leader with acks=all, and reads for loading.
 */
export interface TransactionLogAccess {
  /** Appends to `__transaction_state-<partition>` as leader (acks=-1), resolved once replicated or failed. */
  append(partition: number, records: Buffer, timeoutMs: number): Promise<ErrorName | undefined>;
  /** Where the partition's log starts and ends; undefined when it is not hosted here. */
  bounds(partition: number): { logStartOffset: number; logEndOffset: number } | undefined;
  /** Whole batches from `fromOffset`, about `maxBytes` of them (the first whole however large). */
  read(partition: number, fromOffset: number, maxBytes: number): Buffer;
}

export interface TransactionStateManagerConfig {
  readonly brokerId: number;
  /** transaction.state.log.num.partitions, the topic's real count once it exists. */
  readonly numPartitions: () => number;
  /** transaction.max.timeout.ms */
  readonly transactionMaxTimeoutMs: number;
  /** transactional.id.expiration.ms */
  readonly transactionalIdExpirationMs: number;
  /** transaction.state.log.load.buffer.size */
  readonly loadBufferSize: number;
  /** request.timeout.ms: how long a write waits for the ISR (Kafka's config.requestTimeoutMs). */
  readonly requestTimeoutMs: number;
}

/** A transactional id's metadata and the epoch of the coordinator that holds it. */
export interface CoordinatorEpochAndTxnMetadata {
  readonly coordinatorEpoch: number;
  readonly transactionMetadata: TransactionMetadata;
}

/** getTransactionState's answer: an error (not coordinator, loading), or the entry (undefined: unknown id). */
export type TransactionStateLookup = { error: ErrorName } | { entry: CoordinatorEpochAndTxnMetadata | undefined };

/** A transaction the log left prepared: its markers must be (re)sent by the new coordinator. */
export interface PendingCompletion {
  readonly transactionalId: string;
  readonly coordinatorEpoch: number;
  readonly result: 'COMMIT' | 'ABORT';
  readonly metadata: TransactionMetadata;
  readonly transit: TxnTransitMetadata;
}

interface OwnedPartition {
  readonly coordinatorEpoch: number;
  readonly txns: Map<string, TransactionMetadata>;
}

/**
 * Kafka 2.8's TransactionStateManager: the transactional ids of the `__transaction_state` partitions this broker
 * leads, loaded from their logs on election and dropped on resignation, and every state change written to the
 * log (acks=all) before it is applied. The coordinator epoch of a partition is its leader epoch.
 */
export class TransactionStateManager {
  private readonly owned = new Map<number, OwnedPartition>();
  private readonly loading = new Map<number, number>();
  private readonly log: Logger;

  constructor(
    private readonly config: TransactionStateManagerConfig,
    private readonly access: TransactionLogAccess,
    private readonly clock: Clock,
  ) {
    this.log = getLogger('kafka.coordinator.transaction.TransactionStateManager', `[Transaction State Manager ${config.brokerId}]: `);
  }

  partitionFor(transactionalId: string): number {
    return hashPartitionFor(transactionalId, this.config.numPartitions());
  }

  /** Kafka's validateTransactionTimeoutMs: positive and at most transaction.max.timeout.ms. */
  validateTransactionTimeoutMs(txnTimeoutMs: number): boolean {
    return txnTimeoutMs > 0 && txnTimeoutMs <= this.config.transactionMaxTimeoutMs;
  }

  isCoordinatorFor(transactionalId: string): boolean {
    return this.owned.has(this.partitionFor(transactionalId));
  }

  isLoading(partition: number): boolean {
    return this.loading.has(partition);
  }

  getTransactionState(transactionalId: string): TransactionStateLookup {
    const partition = this.partitionFor(transactionalId);
    if (this.loading.has(partition)) return { error: 'COORDINATOR_LOAD_IN_PROGRESS' };
    const owned = this.owned.get(partition);
    if (owned === undefined) return { error: 'NOT_COORDINATOR' };
    const metadata = owned.txns.get(transactionalId);
    return { entry: metadata === undefined ? undefined : { coordinatorEpoch: owned.coordinatorEpoch, transactionMetadata: metadata } };
  }

  /** Adds a new id's metadata unless one appeared meanwhile (then that one wins, as in Kafka). */
  putTransactionStateIfNotExists(metadata: TransactionMetadata): TransactionStateLookup {
    const lookup = this.getTransactionState(metadata.transactionalId);
    if ('error' in lookup || lookup.entry !== undefined) return lookup;
    const owned = this.owned.get(this.partitionFor(metadata.transactionalId)) as OwnedPartition;
    owned.txns.set(metadata.transactionalId, metadata);
    return { entry: { coordinatorEpoch: owned.coordinatorEpoch, transactionMetadata: metadata } };
  }

  /** Every id this broker coordinates, for the periodic timeout and expiry tasks. */
  allTransactions(): { coordinatorEpoch: number; metadata: TransactionMetadata }[] {
    const out: { coordinatorEpoch: number; metadata: TransactionMetadata }[] = [];
    for (const [partition, owned] of this.owned) {
      if (this.loading.has(partition)) continue;
      for (const metadata of owned.txns.values()) out.push({ coordinatorEpoch: owned.coordinatorEpoch, metadata });
    }
    return out;
  }

  /**
   * Writes a transition to the log and, once it is replicated and this broker is still the coordinator at
   * `coordinatorEpoch`, applies it. Errors are mapped as Kafka's appendTransactionToLog maps them, so clients see
   * coordinator errors (and retry FindCoordinator) rather than replication errors. A failed write clears the
   * pending state, so the client may retry.
   */
  async appendTransactionToLog(transactionalId: string, coordinatorEpoch: number, transit: TxnTransitMetadata): Promise<ErrorName> {
    const value = transit.txnState === 'Dead' ? null : transactionLogValue(transit);
    const now = this.clock.nowMs();
    const records = new RecordBatchBuilder({ compression: CompressionType.NONE }).append({ key: transactionLogKey(transactionalId), value, timestamp: now }).build();
    const partition = this.partitionFor(transactionalId);
    let error: ErrorName;
    try {
      error = mapAppendError(await this.access.append(partition, records, this.config.requestTimeoutMs));
    } catch (err) {
      this.log.error(`Appending metadata ${JSON.stringify(transit)} for transaction id ${transactionalId} with coordinator epoch ${coordinatorEpoch} failed`, err);
      error = 'UNKNOWN_SERVER_ERROR';
    }
    const lookup = this.getTransactionState(transactionalId);
    if ('error' in lookup) {
      this.log.info(`Accessing the cached transaction metadata for ${transactionalId} returns ${lookup.error} error; aborting transition to the new metadata and setting the error in the callback`);
      return lookup.error;
    }
    const entry = lookup.entry;
    if (entry === undefined) {
      // The id was removed meanwhile (expiry or a new coordinator epoch that lost it): not ours any more.
      this.log.info(`The cached metadata for ${transactionalId} has gone when appending to the log with coordinator epoch ${coordinatorEpoch}; the coordinator must have moved`);
      return 'NOT_COORDINATOR';
    }
    if (entry.coordinatorEpoch !== coordinatorEpoch) {
      this.log.info(`The cached coordinator epoch for ${transactionalId} has changed to ${entry.coordinatorEpoch} after appended its new metadata ${JSON.stringify(transit)} to the transaction log (txn topic partition ${TRANSACTION_STATE_TOPIC_NAME}-${partition}) while it was ${coordinatorEpoch} before appending`);
      return 'NOT_COORDINATOR';
    }
    const metadata = entry.transactionMetadata;
    if (error !== 'NONE') {
      this.log.info(`Appending ${transactionalId}'s new metadata ${JSON.stringify(transit)} failed due to ${error}; resetting the pending state`);
      metadata.pendingState = undefined;
      return error;
    }
    if (transit.txnState === 'Dead') {
      this.owned.get(partition)?.txns.delete(transactionalId);
      return 'NONE';
    }
    metadata.completeTransitionTo(transit);
    this.log.debug(`Updating ${transactionalId}'s transaction state to ${JSON.stringify(transit)} with coordinator epoch ${coordinatorEpoch} for ${transactionalId} succeeded`);
    return 'NONE';
  }

  /**
   * This broker leads `__transaction_state-<partition>` at `coordinatorEpoch`: replays its log into the cache
   * (last record per id wins, a tombstone removes it) and returns the transactions left prepared, whose markers
   * the coordinator sends again. Requests for the partition's ids get COORDINATOR_LOAD_IN_PROGRESS meanwhile.
   */
  async loadTransactionsForTxnTopicPartition(partition: number, coordinatorEpoch: number): Promise<PendingCompletion[]> {
    const started = this.clock.nowMs();
    this.log.info(`Loading transaction metadata from ${TRANSACTION_STATE_TOPIC_NAME}-${partition} at epoch ${coordinatorEpoch}`);
    this.owned.delete(partition);
    this.loading.set(partition, coordinatorEpoch);
    const loaded = new Map<string, TransactionMetadata>();
    try {
      const bounds = this.access.bounds(partition);
      let offset = bounds?.logStartOffset ?? 0;
      const end = bounds?.logEndOffset ?? 0;
      while (offset < end && this.loading.get(partition) === coordinatorEpoch) {
        const records = this.access.read(partition, offset, this.config.loadBufferSize);
        if (records.length === 0) break;
        for (const batch of batchesIn(records)) {
          offset = batch.nextOffset;
          if (batch.isControlBatch) continue;
          for (const record of batch.records()) {
            if (record.key === null) continue;
            const transactionalId = readTransactionLogKey(record.key);
            if (transactionalId === undefined) continue;
            if (record.value === null) {
              loaded.delete(transactionalId);
              continue;
            }
            const v = readTransactionLogValue(record.value);
            loaded.set(
              transactionalId,
              new TransactionMetadata({
                transactionalId,
                producerId: v.producerId,
                lastProducerId: -1,
                producerEpoch: v.producerEpoch,
                lastProducerEpoch: -1,
                txnTimeoutMs: v.txnTimeoutMs,
                state: v.state,
                topicPartitions: v.topicPartitions,
                txnStartTimestamp: v.txnStartTimestamp,
                txnLastUpdateTimestamp: v.txnLastUpdateTimestamp,
              }),
            );
          }
        }
      }
    } catch (err) {
      this.log.error(`Error loading transactions from transaction log ${TRANSACTION_STATE_TOPIC_NAME}-${partition}`, err);
    }
    // A resignation or newer election while loading wins: this load is dropped.
    if (this.loading.get(partition) !== coordinatorEpoch) return [];
    this.loading.delete(partition);
    this.owned.set(partition, { coordinatorEpoch, txns: loaded });
    const pending: PendingCompletion[] = [];
    for (const [transactionalId, metadata] of loaded) {
      if (metadata.state !== 'PrepareCommit' && metadata.state !== 'PrepareAbort') continue;
      const result = metadata.state === 'PrepareCommit' ? 'COMMIT' : 'ABORT';
      pending.push({ transactionalId, coordinatorEpoch, result, metadata, transit: metadata.prepareComplete(this.clock.nowMs()) });
    }
    this.log.info(`Finished loading ${loaded.size} transaction metadata from ${TRANSACTION_STATE_TOPIC_NAME}-${partition} in ${this.clock.nowMs() - started} milliseconds, of which 0 milliseconds was spent in the scheduler.`);
    return pending;
  }

  /** This broker no longer leads the partition: its ids are dropped (a load in progress is abandoned). */
  removeTransactionsForTxnTopicPartition(partition: number): void {
    const wasLoading = this.loading.delete(partition);
    const owned = this.owned.get(partition);
    this.owned.delete(partition);
    if (owned !== undefined || wasLoading) {
      this.log.info(`Unloaded transaction metadata ${owned?.txns.size ?? 0} for ${TRANSACTION_STATE_TOPIC_NAME}-${partition} following local partition deletion`);
    }
  }

  /** Ongoing transactions past their timeout with nothing pending (Kafka's timedOutTransactions). */
  timedOutTransactions(): { transactionalId: string; producerId: number; producerEpoch: number }[] {
    const now = this.clock.nowMs();
    return this.allTransactions()
      .map((t) => t.metadata)
      .filter((m) => m.state === 'Ongoing' && m.pendingState === undefined && m.txnStartTimestamp + m.txnTimeoutMs < now)
      .map((m) => ({ transactionalId: m.transactionalId, producerId: m.producerId, producerEpoch: m.producerEpoch }));
  }

  /**
   * Kafka's removeExpiredTransactionalIds: an id idle in Empty/CompleteCommit/CompleteAbort for longer than
   * transactional.id.expiration.ms gets a tombstone and leaves the cache.
   */
  async removeExpiredTransactionalIds(): Promise<void> {
    const now = this.clock.nowMs();
    for (const { coordinatorEpoch, metadata } of this.allTransactions()) {
      const idle = metadata.state === 'Empty' || metadata.state === 'CompleteCommit' || metadata.state === 'CompleteAbort';
      if (!idle || metadata.pendingState !== undefined || metadata.txnLastUpdateTimestamp > now - this.config.transactionalIdExpirationMs) continue;
      const transit = metadata.prepareDead();
      const error = await this.appendTransactionToLog(metadata.transactionalId, coordinatorEpoch, transit);
      if (error === 'NONE') this.log.info(`Removed expired transactional id ${metadata.transactionalId} from the transaction log`);
      else this.log.warn(`Failed to remove expired transactional id ${metadata.transactionalId} due to ${error}`);
    }
  }

  shutdown(): void {
    this.owned.clear();
    this.loading.clear();
    this.log.info('Shutdown complete');
  }
}

/** TransactionStateManager.appendTransactionToLog's error mapping. */
function mapAppendError(error: ErrorName | undefined): ErrorName {
  switch (error) {
    case undefined:
      return 'NONE';
    case 'UNKNOWN_TOPIC_OR_PARTITION':
    case 'NOT_ENOUGH_REPLICAS':
    case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
    case 'REQUEST_TIMED_OUT':
      return 'COORDINATOR_NOT_AVAILABLE';
    case 'NOT_LEADER_OR_FOLLOWER':
    case 'KAFKA_STORAGE_ERROR':
      return 'NOT_COORDINATOR';
    case 'MESSAGE_TOO_LARGE':
    case 'RECORD_LIST_TOO_LARGE':
      return 'UNKNOWN_SERVER_ERROR';
    default:
      return error;
  }
}
