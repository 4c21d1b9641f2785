import { ErrorCode, ErrorName, errorNameOf } from '../common/error-codes';
import { Clock } from '../common/time';
import { KafkaError } from '../common/kafka-error';
import { tpKey } from '../common/topic-partition';
import { AddOffsetsToTxnApi } from '../protocol/apis/add-offsets-to-txn';
import { AddPartitionsToTxnApi } from '../protocol/apis/add-partitions-to-txn';
import { EndTxnApi } from '../protocol/apis/end-txn';
import { FindCoordinatorApi } from '../protocol/apis/find-coordinator';
import { InitProducerIdApi } from '../protocol/apis/init-producer-id';
import { TxnOffsetCommitApi } from '../protocol/apis/txn-offset-commit';
import { backoffMs } from './exponential-backoff';
import { NetworkClient } from './network-client';
import { isTransitionValid, TransactionState } from './transaction-state';

export interface ProducerIdAndEpoch {
  producerId: number;
  producerEpoch: number;
}

/** An offset to commit with the transaction (Kafka's OffsetAndMetadata per TopicPartition). */
export interface TransactionalOffset {
  topic: string;
  partition: number;
  offset: number;
  metadata?: string | null;
}

/** FindCoordinator key types. */
const GROUP_KEY = 0;
const TRANSACTION_KEY = 1;

/** Answers after which the request goes again, to a coordinator looked up afresh for the first three. */
const COORDINATOR_MOVED: ReadonlySet<ErrorName> = new Set(['NOT_COORDINATOR', 'COORDINATOR_NOT_AVAILABLE', 'COORDINATOR_LOAD_IN_PROGRESS']);
const RETRY_SAME: ReadonlySet<ErrorName> = new Set(['CONCURRENT_TRANSACTIONS', 'UNKNOWN_TOPIC_OR_PARTITION', 'REQUEST_TIMED_OUT', 'NETWORK_EXCEPTION']);
/** Errors after which the producer can only be closed (Kafka's TransactionManager fatal errors). */
const FATAL: ReadonlySet<ErrorName> = new Set([
  'PRODUCER_FENCED',
  'INVALID_PRODUCER_EPOCH',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'INVALID_TXN_STATE',
  'INVALID_PRODUCER_ID_MAPPING',
  'UNSUPPORTED_VERSION',
  'UNSUPPORTED_FOR_MESSAGE_FORMAT',
]);

class Retry extends Error {
  constructor(
    readonly refindCoordinator: boolean,
    readonly errorName: ErrorName,
  ) {
    super(errorName);
  }
}

/**
 * The producer's side of a transaction (Kafka's TransactionManager, transactional half): the state machine,
 * the transaction coordinator found with FindCoordinator(TRANSACTION), InitProducerId with the transactional id,
 * the partitions added with AddPartitionsToTxn before their first batch is sent, offsets added with
 * AddOffsetsToTxn and committed with TxnOffsetCommit at the group coordinator, and EndTxn. Coordinator moves
 * and CONCURRENT_TRANSACTIONS are retried until `timeoutMs` (max.block.ms); fencing and authorization
 * failures are fatal, a failed batch is an abortable error.
 */
export class TransactionManager {
  private current: TransactionState = 'UNINITIALIZED';
  private lastError: Error | undefined;
  private coordinator: number | undefined;
  private readonly added = new Set<string>();
  private started = false;

  constructor(
    readonly transactionalId: string,
    private readonly transactionTimeoutMs: number,
    private readonly client: NetworkClient,
    private readonly clock: Clock,
    private readonly retryBackoffMs: number,
    private readonly timeoutMs: number,
  ) {}

  get state(): TransactionState {
    return this.current;
  }

  get error(): Error | undefined {
    return this.lastError;
  }

  transitionTo(target: TransactionState, error?: Error): void {
    if (!isTransitionValid(this.current, target)) {
      throw new KafkaError('INVALID_TXN_STATE', `TransactionalId ${this.transactionalId}: Invalid transition attempted from state ${this.current} to state ${target}`);
    }
    if (target === 'ABORTABLE_ERROR' || target === 'FATAL_ERROR') this.lastError = error;
    else this.lastError = undefined;
    this.current = target;
  }

  /** A batch of the transaction failed: only an abort can follow (unless something worse already happened). */
  abortableError(error: Error): void {
    if (this.current === 'FATAL_ERROR' || this.current === 'ABORTING_TRANSACTION') return;
    if (error instanceof KafkaError && FATAL.has(error.errorName)) this.transitionTo('FATAL_ERROR', error);
    else if (isTransitionValid(this.current, 'ABORTABLE_ERROR')) this.transitionTo('ABORTABLE_ERROR', error);
  }

  /** Kafka's failIfNotReadyForSend: records join a transaction only between begin and commit/abort. */
  failIfNotReadyForSend(): Error | undefined {
    if (this.current === 'ABORTABLE_ERROR' || this.current === 'FATAL_ERROR') return this.errorStateException();
    if (this.current === 'UNINITIALIZED' || this.current === 'INITIALIZING') return new Error("Cannot perform a 'send' before completing a call to initTransactions when transactions are enabled.");
    if (this.current !== 'IN_TRANSACTION') return new Error(`Cannot call send in state ${this.current}`);
    return undefined;
  }

  private errorStateException(): Error {
    const cause = this.lastError?.message ?? 'unknown error';
    return new KafkaError(this.lastError instanceof KafkaError ? this.lastError.errorName : 'UNKNOWN_SERVER_ERROR', `Cannot execute transactional method because we are in an error state: ${cause}`);
  }

  private maybeFailWithError(): void {
    if (this.current === 'ABORTABLE_ERROR' || this.current === 'FATAL_ERROR') throw this.errorStateException();
  }

  /** initTransactions: a producer id and a new epoch for the transactional id (fencing any older producer). */
  async initTransactions(): Promise<ProducerIdAndEpoch> {
    this.transitionTo('INITIALIZING');
    try {
      const r = await this.coordinatorCall(async (node) => {
        const res = await this.client.request(node, InitProducerIdApi, { transactionalId: this.transactionalId, transactionTimeoutMs: this.transactionTimeoutMs, producerId: -1, producerEpoch: -1 });
        this.check(res.errorCode);
        return res;
      });
      this.transitionTo('READY');
      return { producerId: r.producerId, producerEpoch: r.producerEpoch };
    } catch (err) {
      this.transitionTo('FATAL_ERROR', err as Error);
      throw err;
    }
  }

  beginTransaction(): void {
    this.maybeFailWithError();
    this.transitionTo('IN_TRANSACTION');
    this.added.clear();
    this.started = false;
  }

  isPartitionAdded(topic: string, partition: number): boolean {
    return this.added.has(tpKey(topic, partition));
  }

  /** AddPartitionsToTxn for partitions about to get their first batch of this transaction. */
  async addPartitions(pe: ProducerIdAndEpoch, partitions: ReadonlyArray<{ topic: string; partition: number }>): Promise<void> {
    const byTopic = new Map<string, number[]>();
    for (const p of partitions) {
      if (this.isPartitionAdded(p.topic, p.partition)) continue;
      let list = byTopic.get(p.topic);
      if (list === undefined) byTopic.set(p.topic, (list = []));
      if (!list.includes(p.partition)) list.push(p.partition);
    }
    if (byTopic.size === 0) return;
    await this.coordinatorCall(async (node) => {
      const res = await this.client.request(node, AddPartitionsToTxnApi, {
        transactionalId: this.transactionalId,
        ...pe,
        topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps })),
      });
      const codes = res.results.flatMap((t) => t.results.map((p) => p.errorCode));
      // The first real error speaks for the request (OPERATION_NOT_ATTEMPTED only says another partition failed).
      const error = codes.find((c) => c !== ErrorCode.NONE.code && c !== ErrorCode.OPERATION_NOT_ATTEMPTED.code) ?? codes.find((c) => c !== ErrorCode.NONE.code);
      this.check(error ?? ErrorCode.NONE.code);
    });
    for (const [topic, ps] of byTopic) for (const p of ps) this.added.add(tpKey(topic, p));
    this.started = true;
  }

  /**
   * sendOffsetsToTransaction: AddOffsetsToTxn at the transaction coordinator, then TxnOffsetCommit at the
   * group's coordinator; the offsets become visible with the commit's marker (and never if it aborts).
   */
  async sendOffsets(pe: ProducerIdAndEpoch, offsets: readonly TransactionalOffset[], groupId: string, generationId = -1, memberId = '', groupInstanceId: string | null = null): Promise<void> {
    this.maybeFailWithError();
    if (this.current !== 'IN_TRANSACTION') throw new Error(`Cannot send offsets if a transaction is not in progress (currentState= ${this.current})`);
    await this.coordinatorCall(async (node) => {
      const res = await this.client.request(node, AddOffsetsToTxnApi, { transactionalId: this.transactionalId, ...pe, groupId });
      this.check(res.errorCode);
    });
    this.started = true;
    const byTopic = new Map<string, TransactionalOffset[]>();
    for (const o of offsets) {
      let list = byTopic.get(o.topic);
      if (list === undefined) byTopic.set(o.topic, (list = []));
      list.push(o);
    }
    await this.coordinatorCall(
      async (node) => {
        const res = await this.client.request(node, TxnOffsetCommitApi, {
          transactionalId: this.transactionalId,
          groupId,
          ...pe,
          generationId,
          memberId,
          groupInstanceId,
          topics: [...byTopic].map(([name, os]) => ({ name, partitions: os.map((o) => ({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, committedMetadata: o.metadata ?? '' })) })),
        });
        const error = res.topics.flatMap((t) => t.partitions.map((p) => p.errorCode)).find((c) => c !== ErrorCode.NONE.code);
        this.check(error ?? ErrorCode.NONE.code);
      },
      { keyType: GROUP_KEY, key: groupId },
    );
  }

  /** commitTransaction's first step: refused in an error state (the caller must abort). */
  beginCommit(): void {
    this.maybeFailWithError();
    this.transitionTo('COMMITTING_TRANSACTION');
  }

  /** abortTransaction's first step: allowed in an abortable error state, not after a fatal one. */
  beginAbort(): void {
    if (this.current === 'FATAL_ERROR') throw this.errorStateException();
    this.transitionTo('ABORTING_TRANSACTION');
  }

  /**
   * EndTxn for what begin*() started; nothing to send when no partition or offsets joined the transaction.
   * A failure while committing leaves an abortable error (or a fatal one) behind.
   */
  async endTransaction(pe: ProducerIdAndEpoch, committed: boolean): Promise<void> {
    try {
      if (this.started) {
        await this.coordinatorCall(async (node) => {
          const res = await this.client.request(node, EndTxnApi, { transactionalId: this.transactionalId, ...pe, committed });
          this.check(res.errorCode);
        });
      }
    } catch (err) {
      if (err instanceof KafkaError && FATAL.has(err.errorName)) this.transitionTo('FATAL_ERROR', err);
      else if (committed) this.transitionTo('ABORTABLE_ERROR', err as Error);
      throw err;
    }
    this.added.clear();
    this.started = false;
    this.transitionTo('READY');
  }

  /** A response's error: nothing, a retry (perhaps at a new coordinator), or the error thrown. */
  private check(errorCode: number): void {
    if (errorCode === ErrorCode.NONE.code) return;
    const name = errorNameOf(errorCode) ?? 'UNKNOWN_SERVER_ERROR';
    if (COORDINATOR_MOVED.has(name)) throw new Retry(true, name);
    if (RETRY_SAME.has(name)) throw new Retry(false, name);
    throw KafkaError.fromCode(errorCode);
  }

  /** One request at the coordinator for `key`, found (again) as needed, retried with backoff until the timeout. */
  private async coordinatorCall<T>(call: (node: number) => Promise<T>, lookup: { keyType: number; key: string } = { keyType: TRANSACTION_KEY, key: this.transactionalId }): Promise<T> {
    const deadline = this.clock.nowMs() + this.timeoutMs;
    const isTxn = lookup.keyType === TRANSACTION_KEY;
    let node = isTxn ? this.coordinator : undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        if (node === undefined) {
          node = await this.findCoordinator(lookup.keyType, lookup.key);
          if (isTxn) this.coordinator = node;
        }
        return await call(node);
      } catch (err) {
        const retriable = err instanceof Retry || (err instanceof KafkaError && err.retriable);
        if (!retriable || this.clock.nowMs() >= deadline) throw err instanceof Retry ? new KafkaError('REQUEST_TIMED_OUT', `Timeout expired after ${this.timeoutMs} ms awaiting the transaction coordinator (last answer ${err.errorName})`) : err;
        if (!(err instanceof Retry) || err.refindCoordinator) {
          node = undefined;
          if (isTxn) this.coordinator = undefined;
        }
        await this.clock.sleep(backoffMs(attempt, Math.min(this.retryBackoffMs, 20), 1000));
      }
    }
  }

  private async findCoordinator(keyType: number, key: string): Promise<number> {
    const res = await this.client.request('any', FindCoordinatorApi, { key, keyType });
    this.check(res.errorCode);
    // The coordinator must be a broker the client can connect to: refresh the broker list if it is new.
    if (!this.client.metadata.brokers.has(res.nodeId)) await this.client.refreshMetadata([]);
    return res.nodeId;
  }
}
