import { ErrorCode, ErrorName } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { Scheduler, ScheduledTask } from '../common/scheduler';
import { Clock } from '../common/time';
import { TopicPartition } from '../common/topic-partition';
import { IllegalTransactionStateError, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, TransactionMetadata, TxnTransitMetadata } from './transaction-metadata';
import { TransactionMarkerChannelManager } from './transaction-marker-channel-manager';
import { TransactionStateManager } from './transaction-state-manager';

/** Hands out producer ids (the broker's ProducerIdManager, which claims blocks in ZooKeeper). */
export interface ProducerIdSource {
  generateProducerId(): Promise<number>;
}

/** InitProducerId's answer (producer id and epoch -1 on error). */
export interface InitProducerIdResult {
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export interface TransactionCoordinatorConfig {
  readonly brokerId: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms */
  readonly abortTimedOutTransactionsIntervalMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms */
  readonly removeExpiredTransactionalIdsIntervalMs: number;
}

type TxnResult = 'COMMIT' | 'ABORT';

/**
 * Kafka 2.8's TransactionCoordinator: InitProducerId for transactional ids (a new id, an epoch bump, or fencing
 * an older producer whose open transaction is aborted first), AddPartitionsToTxn (and AddOffsetsToTxn, which
 * adds the group's offsets partition), EndTxn (PrepareCommit/PrepareAbort written, the client answered, markers
 * sent, CompleteCommit/CompleteAbort written), the periodic abort of transactions past their timeout and the
 * expiry of idle transactional ids. State lives in the TransactionStateManager, markers go out through the
 * TransactionMarkerChannelManager.
 */
export class TransactionCoordinator {
  private readonly log: Logger;
  private readonly tasks: ScheduledTask[] = [];

  constructor(
    private readonly config: TransactionCoordinatorConfig,
    readonly stateManager: TransactionStateManager,
    readonly markerChannel: TransactionMarkerChannelManager,
    private readonly producerIds: ProducerIdSource,
    private readonly scheduler: Scheduler,
    private readonly clock: Clock,
  ) {
    this.log = getLogger('kafka.coordinator.transaction.TransactionCoordinator', `[TransactionCoordinator id=${config.brokerId}] `);
  }

  startup(): void {
    this.log.info('Starting up.');
    this.tasks.push(
      this.scheduler.schedule('transaction-abort', () => this.abortTimedOutTransactions(), this.config.abortTimedOutTransactionsIntervalMs, this.config.abortTimedOutTransactionsIntervalMs),
      this.scheduler.schedule('transactionalId-expiration', () => this.stateManager.removeExpiredTransactionalIds(), this.config.removeExpiredTransactionalIdsIntervalMs, this.config.removeExpiredTransactionalIdsIntervalMs),
    );
    this.log.info('Startup complete.');
  }

  shutdown(): void {
    this.log.info('Shutting down.');
    for (const t of this.tasks) t.cancel();
    this.markerChannel.shutdown();
    this.stateManager.shutdown();
    this.log.info('Shutdown complete.');
  }

  /** The coordinator's `__transaction_state` partition of a transactional id. */
  partitionFor(transactionalId: string): number {
    return this.stateManager.partitionFor(transactionalId);
  }

  /** This broker now leads `__transaction_state-<partition>` at `coordinatorEpoch` (its leader epoch). */
  async onElection(partition: number, coordinatorEpoch: number): Promise<void> {
    this.log.info(`Elected as the txn coordinator for partition ${partition} at epoch ${coordinatorEpoch}`);
    this.markerChannel.removeMarkersForTxnTopicPartition(partition);
    const pending = await this.stateManager.loadTransactionsForTxnTopicPartition(partition, coordinatorEpoch);
    // Transactions the previous coordinator prepared but did not complete: their markers are sent again.
    for (const p of pending) {
      this.log.info(`Sending txn markers for ${p.transactionalId} (${p.result}) after loading transaction state at coordinator epoch ${coordinatorEpoch}`);
      this.markerChannel.addTxnMarkersToSend(p.coordinatorEpoch, p.result, p.metadata, p.transit);
    }
  }

  onResignation(partition: number): void {
    this.log.info(`Resigned as the txn coordinator for partition ${partition}`);
    this.stateManager.removeTransactionsForTxnTopicPartition(partition);
    this.markerChannel.removeMarkersForTxnTopicPartition(partition);
  }

  /**
   * InitProducerId for a transactional id (null: a plain idempotent producer, given a fresh id). `expected` is the
   * producer id and epoch a KIP-360 client (InitProducerId v3+) says it has.
   */
  async handleInitProducerId(transactionalId: string | null, transactionTimeoutMs: number, expected?: { producerId: number; producerEpoch: number }): Promise<InitProducerIdResult> {
    if (transactionalId === null) return { errorCode: ErrorCode.NONE.code, producerId: await this.producerIds.generateProducerId(), producerEpoch: 0 };
    if (transactionalId === '') return initError('INVALID_REQUEST');
    if (!this.stateManager.validateTransactionTimeoutMs(transactionTimeoutMs)) return initError('INVALID_TRANSACTION_TIMEOUT');
    let lookup = this.stateManager.getTransactionState(transactionalId);
    if ('error' in lookup) return initError(lookup.error);
    if (lookup.entry === undefined) {
      const producerId = await this.producerIds.generateProducerId();
      const created = new TransactionMetadata({
        transactionalId,
        producerId,
        lastProducerId: NO_PRODUCER_ID,
        producerEpoch: NO_PRODUCER_EPOCH,
        lastProducerEpoch: NO_PRODUCER_EPOCH,
        txnTimeoutMs: transactionTimeoutMs,
        state: 'Empty',
        txnLastUpdateTimestamp: this.clock.nowMs(),
      });
      lookup = this.stateManager.putTransactionStateIfNotExists(created);
      if ('error' in lookup) return initError(lookup.error);
    }
    const { coordinatorEpoch, transactionMetadata: txn } = lookup.entry!;
    const prepared = await this.prepareInitProducerIdTransit(transactionalId, transactionTimeoutMs, txn, expected);
    if (typeof prepared === 'string') return initError(prepared);
    if (prepared.txnState === 'PrepareEpochFence') {
      // The open transaction is aborted first; the client is told to retry (and then gets the epoch bumped again).
      const error = await this.endTransaction(transactionalId, prepared.producerId, prepared.producerEpoch, 'ABORT', false);
      return initError(error === 'NONE' ? 'CONCURRENT_TRANSACTIONS' : error);
    }
    const error = await this.stateManager.appendTransactionToLog(transactionalId, coordinatorEpoch, prepared);
    if (error !== 'NONE') return initError(error);
    this.log.info(`Initialized transactionalId ${transactionalId} with producerId ${prepared.producerId} and producer epoch ${prepared.producerEpoch} on partition __transaction_state-${this.partitionFor(transactionalId)}`);
    return { errorCode: ErrorCode.NONE.code, producerId: prepared.producerId, producerEpoch: prepared.producerEpoch };
  }

  private async prepareInitProducerIdTransit(
    transactionalId: string,
    transactionTimeoutMs: number,
    txn: TransactionMetadata,
    expected: { producerId: number; producerEpoch: number } | undefined,
  ): Promise<TxnTransitMetadata | ErrorName> {
    const isValidProducerId = (e: { producerId: number; producerEpoch: number }): boolean =>
      txn.producerEpoch === NO_PRODUCER_EPOCH || e.producerId === txn.producerId || (e.producerId === txn.lastProducerId && e.producerEpoch >= 32766);
    if (txn.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS';
    if (expected !== undefined && !isValidProducerId(expected)) return 'PRODUCER_FENCED';
    switch (txn.state) {
      case 'PrepareAbort':
      case 'PrepareCommit':
        return 'CONCURRENT_TRANSACTIONS';
      case 'CompleteAbort':
      case 'CompleteCommit':
      case 'Empty': {
        if (txn.isProducerEpochExhausted && (expected === undefined || expected.producerEpoch === txn.producerEpoch)) {
          const newProducerId = await this.producerIds.generateProducerId();
          // The id generation awaited: another request may have started a transition meanwhile.
          if (txn.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS';
          return txn.prepareProducerIdRotation(newProducerId, transactionTimeoutMs, this.clock.nowMs(), expected !== undefined);
        }
        return txn.prepareIncrementProducerEpoch(transactionTimeoutMs, expected?.producerEpoch, this.clock.nowMs());
      }
      case 'Ongoing':
        // Fence the current producer: this epoch is never returned; the abort is followed by the client's retry.
        return txn.prepareFenceProducerEpoch();
      case 'Dead':
      case 'PrepareEpochFence': {
        const message = `Found transactionalId ${transactionalId} with state ${txn.state}. This is illegal as we should never have transitioned to this state.`;
        this.log.fatal(message);
        throw new IllegalTransactionStateError(message);
      }
    }
  }

  /** AddPartitionsToTxn (AddOffsetsToTxn passes the group's offsets partition). */
  async handleAddPartitionsToTransaction(transactionalId: string, producerId: number, producerEpoch: number, partitions: readonly TopicPartition[]): Promise<ErrorName> {
    if (transactionalId === '') return 'INVALID_REQUEST';
    const lookup = this.stateManager.getTransactionState(transactionalId);
    if ('error' in lookup) return lookup.error;
    if (lookup.entry === undefined) return 'INVALID_PRODUCER_ID_MAPPING';
    const { coordinatorEpoch, transactionMetadata: txn } = lookup.entry;
    if (txn.producerId !== producerId) return 'INVALID_PRODUCER_ID_MAPPING';
    if (txn.producerEpoch !== producerEpoch) return 'PRODUCER_FENCED';
    if (txn.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS';
    if (txn.state === 'PrepareCommit' || txn.state === 'PrepareAbort') return 'CONCURRENT_TRANSACTIONS';
    if (txn.state === 'Ongoing' && partitions.every((tp) => txn.topicPartitions.has(`${tp.topic}-${tp.partition}`))) return 'NONE';
    const transit = txn.prepareAddPartitions(partitions, this.clock.nowMs());
    return this.stateManager.appendTransactionToLog(transactionalId, coordinatorEpoch, transit);
  }

  handleEndTransaction(transactionalId: string, producerId: number, producerEpoch: number, result: TxnResult): Promise<ErrorName> {
    return this.endTransaction(transactionalId, producerId, producerEpoch, result, true);
  }

  /**
   * Kafka's endTransaction: from Ongoing, PrepareCommit/PrepareAbort is written and, once it is, the caller is
   * answered and the markers go out; a retried EndTxn of a completed transaction is answered NONE. The
   * coordinator's own aborts (fencing, timeouts) come with `isFromClient` false and the bumped epoch.
   */
  private async endTransaction(transactionalId: string, producerId: number, producerEpoch: number, result: TxnResult, isFromClient: boolean): Promise<ErrorName> {
    if (transactionalId === '') return 'INVALID_REQUEST';
    let isEpochFence = false;
    const lookup = this.stateManager.getTransactionState(transactionalId);
    if ('error' in lookup) return lookup.error;
    if (lookup.entry === undefined) return 'INVALID_PRODUCER_ID_MAPPING';
    const { coordinatorEpoch, transactionMetadata: txn } = lookup.entry;
    const invalid = (): ErrorName => {
      this.log.debug(`TransactionalId: ${transactionalId}'s state is ${txn.state}, but received transaction marker result to send: ${result}`);
      return 'INVALID_TXN_STATE';
    };
    if (txn.producerId !== producerId) return 'INVALID_PRODUCER_ID_MAPPING';
    // Clients must send their exact epoch; the coordinator's own aborts carry the fence's bumped one.
    if ((isFromClient && producerEpoch !== txn.producerEpoch) || producerEpoch < txn.producerEpoch) return 'PRODUCER_FENCED';
    if (txn.pendingTransitionInProgress && txn.pendingState !== 'PrepareEpochFence') return 'CONCURRENT_TRANSACTIONS';
    let transit: TxnTransitMetadata;
    switch (txn.state) {
      case 'Ongoing': {
        const nextState = result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort';
        if (nextState === 'PrepareAbort' && txn.pendingState === 'PrepareEpochFence') {
          // The fence turns into the abort: its pending state makes way, and the bumped epoch goes in the record.
          isEpochFence = true;
          txn.pendingState = undefined;
          txn.producerEpoch = producerEpoch;
          txn.lastProducerEpoch = NO_PRODUCER_EPOCH;
        }
        transit = txn.prepareAbortOrCommit(nextState, this.clock.nowMs());
        break;
      }
      case 'CompleteCommit':
        return result === 'COMMIT' ? 'NONE' : invalid();
      case 'CompleteAbort':
        return result === 'ABORT' ? 'NONE' : invalid();
      case 'PrepareCommit':
        return result === 'COMMIT' ? 'CONCURRENT_TRANSACTIONS' : invalid();
      case 'PrepareAbort':
        return result === 'ABORT' ? 'CONCURRENT_TRANSACTIONS' : invalid();
      case 'Empty':
        return invalid();
      case 'Dead':
      case 'PrepareEpochFence': {
        const message = `Found transactionalId ${transactionalId} with state ${txn.state}. This is illegal as we should never have transitioned to this state.`;
        this.log.fatal(message);
        throw new IllegalTransactionStateError(message);
      }
    }
    const error = await this.stateManager.appendTransactionToLog(transactionalId, coordinatorEpoch, transit);
    if (error !== 'NONE') {
      if (isEpochFence) {
        const again = this.stateManager.getTransactionState(transactionalId);
        if (!('error' in again) && again.entry !== undefined) again.entry.transactionMetadata.hasFailedEpochFence = true;
      }
      this.log.info(`Aborting sending of transaction markers and returning ${error} error to client for ${transactionalId}'s EndTransaction request of ${result}, since appending ${JSON.stringify(transit)} to transaction log with coordinator epoch ${coordinatorEpoch} failed`);
      return error;
    }
    // The prepare record is in: check nothing moved meanwhile, then answer and send the markers.
    const after = this.stateManager.getTransactionState(transactionalId);
    if ('error' in after) return after.error;
    if (after.entry === undefined) return 'UNKNOWN_SERVER_ERROR';
    if (after.entry.coordinatorEpoch !== coordinatorEpoch) return 'NOT_COORDINATOR';
    const m = after.entry.transactionMetadata;
    if (m.producerId !== producerId) return 'INVALID_PRODUCER_ID_MAPPING';
    if (m.producerEpoch !== producerEpoch) return 'PRODUCER_FENCED';
    if (m.pendingTransitionInProgress) return 'CONCURRENT_TRANSACTIONS';
    if (m.state !== (result === 'COMMIT' ? 'PrepareCommit' : 'PrepareAbort')) return invalid();
    const complete = m.prepareComplete(this.clock.nowMs());
    this.markerChannel.addTxnMarkersToSend(coordinatorEpoch, result, m, complete);
    return 'NONE';
  }

  /**
   * Kafka's abortTimedOutTransactions: each Ongoing transaction past transaction.timeout.ms gets its epoch bumped
   * (fencing its producer) and is aborted.
   */
  async abortTimedOutTransactions(): Promise<void> {
    for (const { transactionalId, producerId } of this.stateManager.timedOutTransactions()) {
      const lookup = this.stateManager.getTransactionState(transactionalId);
      if ('error' in lookup || lookup.entry === undefined) continue;
      const txn = lookup.entry.transactionMetadata;
      if (txn.producerId !== producerId) {
        this.log.error(`Found incorrect producerId when expiring transactionalId: ${transactionalId}. Expected producerId: ${producerId}. Found producerId: ${txn.producerId}`);
        continue;
      }
      if (txn.pendingTransitionInProgress) continue;
      const fence = txn.prepareFenceProducerEpoch();
      const error = await this.endTransaction(transactionalId, fence.producerId, fence.producerEpoch, 'ABORT', false);
      if (error === 'NONE') this.log.info(`Completed rollback of ongoing transaction for transactionalId ${transactionalId} due to timeout`);
      else if (error === 'INVALID_PRODUCER_ID_MAPPING' || error === 'PRODUCER_FENCED' || error === 'CONCURRENT_TRANSACTIONS') this.log.debug(`Rollback of ongoing transaction for transactionalId ${transactionalId} has been cancelled due to error ${error}`);
      else this.log.warn(`Rollback of ongoing transaction for transactionalId ${transactionalId} failed due to error ${error}`);
    }
  }
}

function initError(error: ErrorName): InitProducerIdResult {
  return { errorCode: ErrorCode[error].code, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}
