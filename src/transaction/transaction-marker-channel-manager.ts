import { BrokerConnection } from '../client/broker-connection';
import { errorNameOf, ErrorName } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { Clock, TimerHandle } from '../common/time';
import { TopicPartition, tpString } from '../common/topic-partition';
import { WritableTxnMarker, WriteTxnMarkersApi, WriteTxnMarkersResponse } from '../protocol/apis/write-txn-markers';
import { TransactionMetadata, TxnTransitMetadata } from './transaction-metadata';
import { TransactionStateManager } from './transaction-state-manager';

/**
 * Where a partition's markers go: its live leader's inter-broker endpoint, undefined while it has none, or
 * 'unknown' when the metadata does not know the partition at all (deleted: Kafka skips its marker).
 */
export type LeaderEndpointLookup = (tp: TopicPartition) => { brokerId: number; host: string; port: number } | 'unknown' | undefined;

export interface TransactionMarkerChannelConfig {
  readonly brokerId: number;
  /** request.timeout.ms of the inter-broker requests. */
  readonly requestTimeoutMs: number;
  /** How long a failed send or an unknown leader waits before the next attempt. */
  readonly retryBackoffMs: number;
}

interface PendingTxn {
  readonly transactionalId: string;
  readonly coordinatorEpoch: number;
  readonly result: 'COMMIT' | 'ABORT';
  readonly metadata: TransactionMetadata;
  /** The CompleteCommit/CompleteAbort transition written once every marker is in. */
  readonly transit: TxnTransitMetadata;
  /** Partitions still without their marker, by tpString; those in a request in flight are in `inFlight` too. */
  readonly unsent: Map<string, TopicPartition>;
  readonly inFlight: Set<string>;
}

/** Errors after which a marker is sent again (TransactionMarkerRequestCompletionHandler's retriable set). */
const RETRIABLE: ReadonlySet<ErrorName> = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'NOT_LEADER_OR_FOLLOWER',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REQUEST_TIMED_OUT',
  'KAFKA_STORAGE_ERROR',
]);

/**
 * Kafka 2.8's TransactionMarkerChannelManager: after a PrepareCommit/PrepareAbort is written, the transaction's
 * markers go to the leaders of its partitions, one WriteTxnMarkers request per broker carrying every transaction
 * waiting for it; a partition whose leader is unknown or moved (NOT_LEADER_OR_FOLLOWER, ...) is looked up again
 * and resent after a backoff, a lost connection resends what was in flight. Once every partition has its marker
 * the CompleteCommit/CompleteAbort is written (retried while the log is unavailable). A transaction whose
 * coordinator epoch is no longer this broker's is dropped: the new coordinator finishes it from its own log.
 */
export class TransactionMarkerChannelManager {
  private readonly pending = new Map<string, PendingTxn>();
  private readonly connections = new Map<number, BrokerConnection>();
  private readonly busy = new Set<number>();
  /** Transactions whose final state is being written (each once). */
  private readonly completing = new Set<PendingTxn>();
  private retryTimer: TimerHandle | undefined;
  private stopped = false;
  private readonly log: Logger;
  /** Kafka logs the per-partition outcome of a WriteTxnMarkers response under the completion handler's name. */
  private readonly completionLog: Logger;

  constructor(
    private readonly config: TransactionMarkerChannelConfig,
    private readonly leaderFor: LeaderEndpointLookup,
    private readonly stateManager: TransactionStateManager,
    private readonly clock: Clock,
  ) {
    this.log = getLogger('kafka.coordinator.transaction.TransactionMarkerChannelManager', `[Transaction Marker Channel Manager ${config.brokerId}]: `);
    this.completionLog = getLogger('kafka.coordinator.transaction.TransactionMarkerRequestCompletionHandler', `[Transaction Marker Request Completion Handler ${config.brokerId}]: `);
  }

  /** Transactions whose markers are still being sent (for tests and the shutdown log). */
  get numPendingTransactions(): number {
    return this.pending.size;
  }

  addTxnMarkersToSend(coordinatorEpoch: number, result: 'COMMIT' | 'ABORT', metadata: TransactionMetadata, transit: TxnTransitMetadata): void {
    const unsent = new Map(metadata.topicPartitions);
    const txn: PendingTxn = { transactionalId: metadata.transactionalId, coordinatorEpoch, result, metadata, transit, unsent, inFlight: new Set() };
    this.pending.set(txn.transactionalId, txn);
    if (unsent.size === 0) this.complete(txn);
    else this.pump();
  }

  /** Drops the transactions of a `__transaction_state` partition this broker no longer leads. */
  removeMarkersForTxnTopicPartition(partition: number): void {
    for (const [id, txn] of this.pending) if (this.stateManager.partitionFor(id) === partition) this.forget(txn, 'the coordinator resigned');
  }

  shutdown(): void {
    this.stopped = true;
    this.retryTimer?.cancel();
    for (const c of this.connections.values()) c.close();
    this.connections.clear();
    this.pending.clear();
  }

  /** Sends what can be sent: per broker with no request in flight, one request with every waiting marker. */
  private pump(): void {
    if (this.stopped) return;
    const byBroker = new Map<number, { host: string; port: number; entries: { txn: PendingTxn; tps: TopicPartition[] }[] }>();
    let unknownLeaders = false;
    for (const txn of [...this.pending.values()]) {
      if (!this.stillCoordinator(txn)) continue;
      const perBroker = new Map<number, TopicPartition[]>();
      for (const [key, tp] of txn.unsent) {
        if (txn.inFlight.has(key)) continue;
        const leader = this.leaderFor(tp);
        if (leader === 'unknown') {
          this.log.info(`Couldn't find leader endpoint for partitions ${tpString(tp)} while trying to send transaction markers for ${txn.transactionalId}, these partitions are likely deleted already and hence can be skipped`);
          txn.unsent.delete(key);
          txn.metadata.removePartition(tp);
          continue;
        }
        if (leader === undefined) {
          unknownLeaders = true;
          continue;
        }
        if (this.busy.has(leader.brokerId)) continue;
        let dest = byBroker.get(leader.brokerId);
        if (dest === undefined) byBroker.set(leader.brokerId, (dest = { host: leader.host, port: leader.port, entries: [] }));
        let list = perBroker.get(leader.brokerId);
        if (list === undefined) {
          perBroker.set(leader.brokerId, (list = []));
          dest.entries.push({ txn, tps: list });
        }
        list.push(tp);
      }
    }
    for (const txn of [...this.pending.values()]) if (txn.unsent.size === 0 && txn.inFlight.size === 0 && !this.completing.has(txn)) this.complete(txn);
    for (const [brokerId, dest] of byBroker) this.send(brokerId, dest.host, dest.port, dest.entries);
    if (unknownLeaders) this.scheduleRetry();
  }

  private send(brokerId: number, host: string, port: number, entries: { txn: PendingTxn; tps: TopicPartition[] }[]): void {
    this.busy.add(brokerId);
    for (const e of entries) for (const tp of e.tps) e.txn.inFlight.add(tpString(tp));
    const markers: WritableTxnMarker[] = entries.map(({ txn, tps }) => ({
      producerId: txn.transit.producerId,
      producerEpoch: txn.transit.producerEpoch,
      transactionResult: txn.result === 'COMMIT',
      coordinatorEpoch: txn.coordinatorEpoch,
      topics: groupByTopic(tps),
    }));
    this.connection(brokerId, host, port)
      .then((c) => c.send(WriteTxnMarkersApi, { markers }))
      .then(
        (response) => {
          this.release(brokerId, entries);
          let retry: boolean;
          try {
            retry = this.onResponse(entries, response);
          } catch (err) {
            this.log.error(`Failed to handle the WriteTxnMarkers response of broker ${brokerId}`, err);
            retry = true;
            this.scheduleRetry();
          }
          // Retriable errors wait for the backoff; everything else that is waiting goes now.
          if (!retry) this.pump();
        },
        (err: unknown) => {
          this.release(brokerId, entries);
          this.log.info(`Failed to send transaction markers to broker ${brokerId} (${host}:${port}): ${err instanceof Error ? err.message : String(err)}; retrying`);
          this.connections.get(brokerId)?.close();
          this.connections.delete(brokerId);
          this.scheduleRetry();
        },
      );
  }

  private release(brokerId: number, entries: readonly { txn: PendingTxn; tps: TopicPartition[] }[]): void {
    this.busy.delete(brokerId);
    for (const e of entries) for (const tp of e.tps) e.txn.inFlight.delete(tpString(tp));
  }

  private async connection(brokerId: number, host: string, port: number): Promise<BrokerConnection> {
    const existing = this.connections.get(brokerId);
    if (existing !== undefined && !existing.isClosed) return existing;
    const c = new BrokerConnection({ host, port, nodeId: brokerId, clientId: `broker-${this.config.brokerId}-txn-marker-sender`, requestTimeoutMs: this.config.requestTimeoutMs, clock: this.clock });
    this.connections.set(brokerId, c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  /**
   * TransactionMarkerRequestCompletionHandler: per partition, written, retried, or the transaction given up.
   * Returns whether something is to be retried (then after the backoff).
   */
  private onResponse(entries: { txn: PendingTxn; tps: TopicPartition[] }[], response: WriteTxnMarkersResponse): boolean {
    let retry = false;
    for (const { txn } of entries) {
      const result = response.markers.find((m) => m.producerId === txn.transit.producerId);
      if (this.pending.get(txn.transactionalId) !== txn || !this.stillCoordinator(txn)) continue;
      for (const topic of result?.topics ?? []) {
        for (const p of topic.partitions) {
          const tp = { topic: topic.name, partition: p.partitionIndex };
          const error = errorNameOf(p.errorCode) ?? 'UNKNOWN_SERVER_ERROR';
          if (error === 'NONE' || error === 'UNSUPPORTED_FOR_MESSAGE_FORMAT' || error === 'UNSUPPORTED_VERSION') {
            if (error !== 'NONE') this.completionLog.error(`Sending ${txn.transactionalId}'s transaction marker for partition ${tpString(tp)} has failed with error ${error}; the partition's message format does not support markers, so it is skipped`);
            txn.unsent.delete(tpString(tp));
            txn.metadata.removePartition(tp);
          } else if (error === 'INVALID_PRODUCER_EPOCH' || error === 'TRANSACTION_COORDINATOR_FENCED') {
            this.completionLog.info(
              `Sending ${txn.transactionalId}'s transaction marker for partition ${tpString(tp)} has permanently failed with error ${error} with the current coordinator epoch ${txn.coordinatorEpoch}; cancel sending any more transaction markers to the brokers`,
            );
            this.forget(txn, error);
          } else {
            if (!RETRIABLE.has(error)) this.completionLog.error(`Sending ${txn.transactionalId}'s transaction marker for partition ${tpString(tp)} failed with unexpected error ${error}; retrying`);
            else this.completionLog.info(`Sending ${txn.transactionalId}'s transaction marker for partition ${tpString(tp)} has failed with error ${error}, retrying with current coordinator epoch ${txn.coordinatorEpoch}`);
            retry = true;
          }
        }
      }
      if (this.pending.get(txn.transactionalId) === txn && txn.unsent.size === 0) this.complete(txn);
    }
    if (retry) this.scheduleRetry();
    return retry;
  }

  /** Runs the completion in the background; a coordinator bug it hits is logged, never an unhandled rejection. */
  private complete(txn: PendingTxn): void {
    if (this.completing.has(txn)) return;
    this.completing.add(txn);
    this.completeSendMarkers(txn).finally(() => this.completing.delete(txn)).catch((err: unknown) => {
      this.pending.delete(txn.transactionalId);
      this.log.error(`Failed to complete the transaction of ${txn.transactionalId} after its markers were written`, err);
    });
  }

  /** Every marker is in: write CompleteCommit/CompleteAbort (Kafka's tryAppendToLog, retried while unavailable). */
  private async completeSendMarkers(txn: PendingTxn): Promise<void> {
    for (;;) {
      if (this.stopped || this.pending.get(txn.transactionalId) !== txn) return;
      const error = await this.stateManager.appendTransactionToLog(txn.transactionalId, txn.coordinatorEpoch, txn.transit);
      if (error === 'NONE') {
        this.log.debug(`Completed transaction for ${txn.transactionalId} with coordinator epoch ${txn.coordinatorEpoch}, final state after commit: ${txn.metadata.state}`);
        this.pending.delete(txn.transactionalId);
        return;
      }
      if (error !== 'COORDINATOR_NOT_AVAILABLE') {
        this.log.info(`Failed to append the final transaction state of ${txn.transactionalId} with coordinator epoch ${txn.coordinatorEpoch}: ${error}; giving up, the next coordinator completes it`);
        this.pending.delete(txn.transactionalId);
        return;
      }
      this.log.warn(`Failed updating transaction state for ${txn.transactionalId} when appending to transaction log due to ${error}. retrying.`);
      await this.clock.sleep(this.config.retryBackoffMs);
    }
  }

  /** Kafka checks the cached epoch before each send: a newer coordinator (or none here) owns the transaction. */
  private stillCoordinator(txn: PendingTxn): boolean {
    const lookup = this.stateManager.getTransactionState(txn.transactionalId);
    const ok = !('error' in lookup) && lookup.entry !== undefined && lookup.entry.coordinatorEpoch === txn.coordinatorEpoch && lookup.entry.transactionMetadata === txn.metadata;
    if (!ok) this.forget(txn, 'error' in lookup ? lookup.error : 'the coordinator epoch changed');
    return ok;
  }

  private forget(txn: PendingTxn, reason: string): void {
    if (this.pending.get(txn.transactionalId) !== txn) return;
    this.pending.delete(txn.transactionalId);
    this.log.info(`Dropping the pending transaction markers of ${txn.transactionalId} (coordinator epoch ${txn.coordinatorEpoch}): ${reason}`);
  }

  private scheduleRetry(): void {
    if (this.stopped || this.retryTimer !== undefined) return;
    this.retryTimer = this.clock.setTimer(() => {
      this.retryTimer = undefined;
      this.pump();
    }, this.config.retryBackoffMs);
  }
}

function groupByTopic(tps: readonly TopicPartition[]): { name: string; partitionIndexes: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) {
    const list = byTopic.get(tp.topic);
    if (list === undefined) byTopic.set(tp.topic, [tp.partition]);
    else list.push(tp.partition);
  }
  return [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}
