import { BrokerConnection } from '../../client/broker-connection';
import { ErrorCode, errorName } from '../../common/error-codes';
import { SerialQueue } from '../../common/serial-queue';
import { Clock, SYSTEM_CLOCK } from '../../common/time';
import { getLogger, Logger } from '../../common/logging/logging';
import { TopicPartition, tpKey, tpString } from '../../common/topic-partition';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, Log } from '../../log/log';
import { ApiDefinition } from '../../protocol/api-definition';
import { FetchApi, FetchPartitionResponse, FetchRequest } from '../../protocol/apis/fetch';
import { ListOffsetsApi } from '../../protocol/apis/list-offsets';
import { OffsetForLeaderEpochApi, OffsetForLeaderEpochRequest } from '../../protocol/apis/offset-for-leader-epoch';
import { offsetTruncationState } from './offset-truncation';
import { ReplicaFetcherConfig } from './replica-fetcher-config';
import { FetchSessionHandler, SessionPartitionData } from './fetch-session-handler';
import type { ReplicaQuota } from '../replication-quota-manager';

/**
 * Versions a 2.x follower sends with inter.broker.protocol.version 2.x (KIP-320 leader epochs in both). The
 * leaders serve Fetch 12 (diverging epochs) and OffsetForLeaderEpoch 4 to Kafka 2.8's followers, but this
 * fetcher stays on Fetch 11 and truncates through OffsetForLeaderEpoch: moving it to v12 (truncation from the
 * fetch response) is a separate, benchmarked change.
 */
const FETCH_VERSION = 11;
const OFFSET_FOR_LEADER_EPOCH_VERSION = 3;
const LIST_OFFSETS_VERSION = 2;

export interface BrokerEndPoint {
  id: number;
  host: string;
  port: number;
}

/** Where a partition starts fetching (Kafka's InitialFetchState). */
export interface InitialFetchState {
  tp: TopicPartition;
  leader: BrokerEndPoint;
  currentLeaderEpoch: number;
  initOffset: number;
}

/** One followed partition (Kafka's PartitionFetchState): Truncating until it agrees with the leader, then Fetching. */
interface PartitionFetchState {
  readonly tp: TopicPartition;
  readonly currentLeaderEpoch: number;
  fetchOffset: number;
  truncating: boolean;
  delayedUntilMs: number;
  /** The leader's high watermark less our fetch offset after the last fetch (Kafka's PartitionFetchState.lag). */
  lag?: number;
}

/** Retriable answers after which the partition waits replica.fetch.backoff.ms (and, usually, a LeaderAndIsr). */
const BACK_OFF_ERRORS = new Set<number>([
  ErrorCode.NOT_LEADER_OR_FOLLOWER.code,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code,
  ErrorCode.FENCED_LEADER_EPOCH.code,
  ErrorCode.UNKNOWN_LEADER_EPOCH.code,
  ErrorCode.KAFKA_STORAGE_ERROR.code,
  ErrorCode.REPLICA_NOT_AVAILABLE.code,
  ErrorCode.LEADER_NOT_AVAILABLE.code,
]);

/**
 * The loop that keeps this broker's replicas of partitions led by one broker up to date (Kafka's
 * ReplicaFetcherThread/AbstractFetcherThread): new partitions first truncate to where they agree with the
 * leader (OffsetsForLeaderEpoch), then one Fetch request with our replica id carries every partition, and the
 * returned batches are appended as bytes with their offsets, with the follower's high watermark following the
 * leader's. Errors back off the partition (or, for a failed request, all of them) by replica.fetch.backoff.ms.
 *
 * Log changes happen in a "processing" phase that removePartitions waits for, so once a partition is removed
 * (the broker becomes its leader, or stops it) nothing more is written to its log by this fetcher.
 */
export class ReplicaFetcherThread {
  private readonly partitions = new Map<string, PartitionFetchState>();
  private readonly logger: Logger;
  private connection: BrokerConnection | undefined;
  private loop: Promise<void> | undefined;
  /** The log changes of a response; removePartitions waits for the one in progress. */
  private readonly processing = new SerialQueue();
  private stopped = false;
  /** This fetcher's incremental fetch session with the leader. */
  private readonly fetchSession = new FetchSessionHandler();
  /** Aborted to end an idle wait early (partitions added, shutdown). */
  private wakeUp = new AbortController();

  constructor(
    readonly fetcherId: number,
    readonly leader: BrokerEndPoint,
    private readonly config: ReplicaFetcherConfig,
    private readonly localLog: (tp: TopicPartition) => Log | undefined,
    private readonly clock: Clock = SYSTEM_CLOCK,
    /** follower.replication.throttled.rate over the follower.replication.throttled.replicas here. */
    private readonly quota: ReplicaQuota | undefined = undefined,
  ) {
    this.logger = getLogger('kafka.server.ReplicaFetcherThread', `[ReplicaFetcher replicaId=${config.brokerId}, leaderId=${leader.id}, fetcherId=${fetcherId}] `);
  }

  get name(): string {
    return `ReplicaFetcherThread-${this.fetcherId}-${this.leader.id}`;
  }

  /** Each followed partition's lag behind the leader's high watermark (FetcherLagMetrics' ConsumerLag), for metrics. */
  *partitionLags(): Iterable<readonly [TopicPartition, number]> {
    for (const st of this.partitions.values()) if (st.lag !== undefined) yield [st.tp, st.lag];
  }

  get partitionCount(): number {
    return this.partitions.size;
  }

  start(): void {
    if (this.loop !== undefined) return;
    this.logger.info('Starting');
    this.loop = this.run();
  }

  /** Starts following `states` (replacing an earlier state of the same partition). */
  addPartitions(states: readonly InitialFetchState[]): void {
    for (const s of states) {
      this.partitions.set(tpString(s.tp), { tp: s.tp, currentLeaderEpoch: s.currentLeaderEpoch, fetchOffset: s.initOffset, truncating: true, delayedUntilMs: 0 });
    }
    this.wake();
  }

  /** Where each followed partition is (to move them to another fetcher). */
  partitionStates(): InitialFetchState[] {
    return [...this.partitions.values()].map((s) => ({ tp: s.tp, leader: this.leader, currentLeaderEpoch: s.currentLeaderEpoch, initOffset: s.fetchOffset }));
  }

  /**
   * Stops following every partition and says where each one had got to, read once no log change is in progress
   * (so the offsets are the ones the logs have), for the fetcher pool to hand them to other fetchers.
   */
  async takeAllPartitions(): Promise<InitialFetchState[]> {
    const held = [...this.partitions.values()];
    this.partitions.clear();
    await this.processing.whenIdle();
    return held.map((s) => ({ tp: s.tp, leader: this.leader, currentLeaderEpoch: s.currentLeaderEpoch, initOffset: s.fetchOffset }));
  }

  /** Stops following `tps`; resolves once no log change of this fetcher is in progress. */
  async removePartitions(tps: readonly TopicPartition[]): Promise<void> {
    for (const tp of tps) this.partitions.delete(tpString(tp));
    await this.processing.whenIdle();
  }

  async shutdown(): Promise<void> {
    this.logger.info('Shutting down');
    this.stopped = true;
    this.wake();
    this.connection?.close();
    await this.loop;
    this.logger.info('Shutdown completed');
  }

  private wake(): void {
    this.wakeUp.abort();
  }

  private async idle(ms: number): Promise<void> {
    await this.clock.sleep(ms, this.wakeUp.signal);
    if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.doWork();
      } catch (err) {
        this.logger.error('Error due to', err);
        await this.idle(this.config.fetchBackoffMs);
      }
    }
    this.connection?.close();
    this.logger.info('Stopped');
  }

  private async doWork(): Promise<void> {
    const now = this.clock.nowMs();
    const all = [...this.partitions.values()];
    const ready = all.filter((s) => s.delayedUntilMs <= now && this.localLog(s.tp) !== undefined);
    if (ready.length === 0) {
      // Sleep until the first back-off ends (or a partition is added); partitions without a log wait a full back-off.
      const next = Math.min(...all.filter((s) => s.delayedUntilMs > now).map((s) => s.delayedUntilMs));
      await this.idle(Number.isFinite(next) ? Math.max(10, Math.min(next - now, this.config.fetchBackoffMs)) : this.config.fetchBackoffMs);
      return;
    }
    const truncating = ready.filter((s) => s.truncating);
    if (truncating.length > 0) {
      await this.truncate(truncating);
      return;
    }
    const fetchable = this.unthrottled(ready);
    // Every partition is throttled and over the rate: wait a back-off, as Kafka's empty fetch request does.
    if (fetchable.length === 0) await this.idle(this.config.fetchBackoffMs);
    else await this.fetch(fetchable);
  }

  /**
   * Kafka's shouldFollowerThrottle: an out-of-sync replica of a throttled partition is left out of the fetch while
   * the follower rate is over its bound. Without throttled partitions this is one check per fetch.
   */
  private unthrottled(ready: PartitionFetchState[]): PartitionFetchState[] {
    const quota = this.quota;
    if (quota === undefined || !quota.isActive) return ready;
    if (!quota.isQuotaExceeded()) return ready;
    return ready.filter((s) => (s.lag !== undefined && s.lag <= 0) || !quota.isThrottled(s.tp));
  }

  /** The partition is still ours in the same state as when the request went out. */
  private current(s: PartitionFetchState): boolean {
    return this.partitions.get(tpString(s.tp)) === s;
  }

  private process(work: () => Promise<void>): Promise<void> {
    return this.processing.run(work);
  }

  private async conn(): Promise<BrokerConnection> {
    if (this.connection !== undefined && !this.connection.isClosed) return this.connection;
    const c = new BrokerConnection({
      host: this.leader.host,
      port: this.leader.port,
      nodeId: this.leader.id,
      clientId: `broker-${this.config.brokerId}-fetcher-${this.fetcherId}`,
      requestTimeoutMs: this.config.socketTimeoutMs,
      ...(this.config.security === undefined ? {} : { security: this.config.security }),
      ...(this.config.sasl === undefined ? {} : { sasl: this.config.sasl }),
    });
    this.connection = c;
    await c.connect();
    return c;
  }

  private backOff(states: readonly PartitionFetchState[]): void {
    const until = this.clock.nowMs() + this.config.fetchBackoffMs;
    for (const s of states) if (this.current(s)) s.delayedUntilMs = until;
  }

  private async send<Req, Res>(api: ApiDefinition<Req, Res>, body: Req, version: number, timeoutMs: number, states: readonly PartitionFetchState[]): Promise<Res | undefined> {
    try {
      const c = await this.conn();
      return await c.send(api, body, { version, timeoutMs });
    } catch (err) {
      if (this.stopped) return undefined;
      this.connection?.close();
      this.connection = undefined;
      this.logger.info(`Error sending ${api.name} request to node ${this.leader.id}: ${(err as Error).message}. Backing off ${this.config.fetchBackoffMs} ms.`);
      this.backOff(states);
      return undefined;
    }
  }

  // ---- truncation ----

  private async truncate(states: PartitionFetchState[]): Promise<void> {
    const ask: { s: PartitionFetchState; epoch: number }[] = [];
    await this.process(async () => {
      for (const s of states) {
        const log = this.localLog(s.tp);
        if (log === undefined || !this.current(s)) continue;
        const epoch = log.leaderEpochCache.latestEpoch();
        // Nothing written under a known epoch (empty or old-format log): the high watermark is all we know.
        if (epoch < 0) await this.truncateToHighWatermark(s, log);
        else ask.push({ s, epoch });
      }
    });
    if (ask.length === 0) return;
    const byTopic = new Map<string, OffsetForLeaderEpochRequest['topics'][number]>();
    for (const { s, epoch } of ask) {
      let t = byTopic.get(s.tp.topic);
      if (t === undefined) byTopic.set(s.tp.topic, (t = { topic: s.tp.topic, partitions: [] }));
      t.partitions.push({ partition: s.tp.partition, currentLeaderEpoch: s.currentLeaderEpoch, leaderEpoch: epoch });
    }
    const request: OffsetForLeaderEpochRequest = { replicaId: this.config.brokerId, topics: [...byTopic.values()] };
    const response = await this.send(
      OffsetForLeaderEpochApi,
      request,
      OFFSET_FOR_LEADER_EPOCH_VERSION,
      this.config.socketTimeoutMs,
      ask.map((a) => a.s),
    );
    if (response === undefined) return;
    await this.process(async () => {
      for (const t of response.topics) {
        for (const p of t.partitions) {
          const entry = ask.find((a) => a.s.tp.topic === t.topic && a.s.tp.partition === p.partition);
          if (entry === undefined || !this.current(entry.s)) continue;
          const { s, epoch } = entry;
          const log = this.localLog(s.tp);
          if (log === undefined) continue;
          if (p.errorCode !== ErrorCode.NONE.code) {
            if (BACK_OFF_ERRORS.has(p.errorCode)) {
              this.logger.info(`Retrying leaderEpoch request for partition ${tpString(s.tp)} as the leader reported an error: ${errorName(p.errorCode)}`);
              this.backOff([s]);
            } else {
              // The leader cannot answer (e.g. it does not support the API): fall back to the high watermark.
              this.logger.warn(`Error when sending leader epoch request for partition ${tpString(s.tp)}: ${errorName(p.errorCode)}`);
              await this.truncateToHighWatermark(s, log);
            }
            continue;
          }
          const state = offsetTruncationState(log, p.leaderEpoch, p.endOffset);
          this.logger.info(
            `Truncating partition ${tpString(s.tp)} with TruncationState(offset=${state.offset}, completed=${state.truncationCompleted}) due to leader epoch and offset EpochEndOffset(errorCode=0, partition=${tpString(s.tp)}, leaderEpoch=${p.leaderEpoch}, endOffset=${p.endOffset})`,
          );
          if (state.offset < log.logEndOffset) await log.truncateTo(state.offset);
          s.fetchOffset = log.logEndOffset;
          // Asking again only makes sense if the truncation removed our latest epoch; otherwise we are done.
          s.truncating = !state.truncationCompleted && log.leaderEpochCache.latestEpoch() < epoch;
        }
      }
    });
  }

  private async truncateToHighWatermark(s: PartitionFetchState, log: Log): Promise<void> {
    const hw = log.highWatermark;
    this.logger.info(`Truncating partition ${tpString(s.tp)} to local high watermark ${hw}`);
    if (hw < log.logEndOffset) await log.truncateTo(hw);
    s.fetchOffset = log.logEndOffset;
    s.truncating = false;
  }

  // ---- fetching ----

  private async fetch(states: PartitionFetchState[]): Promise<void> {
    const next = new Map<string, SessionPartitionData>();
    const sent = new Map<PartitionFetchState, number>();
    for (const s of states) {
      const log = this.localLog(s.tp) as Log;
      next.set(tpKey(s.tp.topic, s.tp.partition), { tp: s.tp, currentLeaderEpoch: s.currentLeaderEpoch, fetchOffset: s.fetchOffset, logStartOffset: log.logStartOffset, partitionMaxBytes: this.config.fetchMaxBytes });
      sent.set(s, s.fetchOffset);
    }
    // KIP-227: after the first, full request, only the partitions whose fetch data moved are named.
    const session = this.fetchSession.build(next);
    const request: FetchRequest = {
      replicaId: this.config.brokerId,
      maxWaitMs: this.config.fetchWaitMaxMs,
      minBytes: this.config.fetchMinBytes,
      maxBytes: this.config.fetchResponseMaxBytes,
      isolationLevel: 0,
      sessionId: session.sessionId,
      sessionEpoch: session.sessionEpoch,
      topics: session.topics,
      forgottenTopicsData: session.forgottenTopicsData,
      rackId: '',
    };
    const response = await this.send(
      FetchApi,
      request,
      FETCH_VERSION,
      this.config.fetchWaitMaxMs + this.config.socketTimeoutMs,
      states,
    );
    if (response === undefined) {
      this.fetchSession.handleError();
      return;
    }
    const unusable = this.fetchSession.handleResponse(session, response);
    if (unusable !== undefined) {
      this.logger.info(`Node ${this.leader.id} could not be fetched from: ${unusable}; the next fetch is a full one.`);
      return;
    }
    const index = new Map<string, PartitionFetchState>();
    for (const s of states) index.set(tpString(s.tp), s);
    await this.process(async () => {
      for (const t of response.responses) {
        for (const p of t.partitionResponses) {
          const s = index.get(tpKey(t.topic, p.partition));
          if (s === undefined || !this.current(s) || s.truncating || s.fetchOffset !== sent.get(s)) continue;
          const log = this.localLog(s.tp);
          if (log === undefined) continue;
          try {
            await this.processPartitionData(s, log, p);
          } catch (err) {
            this.logger.error(`Unexpected error occurred while processing data for partition ${tpString(s.tp)} at offset ${s.fetchOffset}`, err);
            this.backOff([s]);
          }
        }
      }
    });
  }

  private async processPartitionData(s: PartitionFetchState, log: Log, p: FetchPartitionResponse): Promise<void> {
    if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE.code) {
      await this.handleOffsetOutOfRange(s, log);
      return;
    }
    if (p.errorCode !== ErrorCode.NONE.code) {
      if (!BACK_OFF_ERRORS.has(p.errorCode)) this.logger.error(`Error for partition ${tpString(s.tp)} at offset ${s.fetchOffset}: ${errorName(p.errorCode)}`);
      else this.logger.debug(`Remote broker is not the leader for partition ${tpString(s.tp)} (${errorName(p.errorCode)})`);
      this.backOff([s]);
      return;
    }
    const records = p.recordSet === null ? undefined : Array.isArray(p.recordSet) ? Buffer.concat(p.recordSet as Buffer[]) : (p.recordSet as Buffer);
    if (records !== undefined && records.length > 0) {
      await log.appendAsFollower(records);
      // The bytes of a throttled partition count towards the follower rate (from the batch size, never per record).
      if (this.quota?.isActive === true && this.quota.isThrottled(s.tp)) this.quota.record(records.length);
    }
    s.fetchOffset = log.logEndOffset;
    if (p.highWatermark >= 0) s.lag = Math.max(0, p.highWatermark - s.fetchOffset);
    // The follower's high watermark trails the leader's, never past what it has itself.
    if (p.highWatermark >= 0) log.updateHighWatermark(Math.min(p.highWatermark, log.logEndOffset));
    // DeleteRecords on the leader reaches the followers here (Kafka's processPartitionData): our log start offset
    // follows the leader's, which our next fetch reports back for the leader's low watermark. Never past our own
    // high watermark (a follower behind the leader's start would have been answered OFFSET_OUT_OF_RANGE).
    if (p.logStartOffset > log.logStartOffset) await log.maybeIncrementLogStartOffset(Math.min(p.logStartOffset, log.highWatermark), 'leader offset increment');
  }

  /**
   * The leader does not have our fetch offset: we are ahead of it (truncate to its end) or behind its log start
   * (start over at its log start offset).
   */
  private async handleOffsetOutOfRange(s: PartitionFetchState, log: Log): Promise<void> {
    const replicaEndOffset = log.logEndOffset;
    const leaderEndOffset = await this.leaderOffset(s, LATEST_TIMESTAMP);
    if (leaderEndOffset === undefined) return;
    if (leaderEndOffset < replicaEndOffset) {
      this.logger.warn(
        `Reset fetch offset for partition ${tpString(s.tp)} from ${replicaEndOffset} to current leader ${this.leader.id}'s latest offset ${leaderEndOffset}`,
      );
      await log.truncateTo(leaderEndOffset);
      s.fetchOffset = log.logEndOffset;
      return;
    }
    const leaderStartOffset = await this.leaderOffset(s, EARLIEST_TIMESTAMP);
    if (leaderStartOffset === undefined) return;
    const offsetToFetch = Math.max(leaderStartOffset, replicaEndOffset);
    if (leaderStartOffset > replicaEndOffset) await log.truncateFullyAndStartAt(leaderStartOffset);
    this.logger.warn(`Reset fetch offset for partition ${tpString(s.tp)} from ${replicaEndOffset} to current leader ${this.leader.id}'s start offset ${leaderStartOffset}`);
    s.fetchOffset = offsetToFetch;
  }

  private async leaderOffset(s: PartitionFetchState, timestamp: number): Promise<number | undefined> {
    const response = await this.send(
      ListOffsetsApi,
      {
        replicaId: this.config.brokerId,
        isolationLevel: 0,
        topics: [{ name: s.tp.topic, partitions: [{ partitionIndex: s.tp.partition, timestamp, maxNumOffsets: 1 }] }],
      },
      LIST_OFFSETS_VERSION,
      this.config.socketTimeoutMs,
      [s],
    );
    const p = response?.topics[0]?.partitions[0];
    if (p === undefined) return undefined;
    if (p.errorCode !== ErrorCode.NONE.code) {
      this.logger.info(`Could not fetch the offset for ${tpString(s.tp)} from the leader: ${errorName(p.errorCode)}`);
      this.backOff([s]);
      return undefined;
    }
    return p.offset;
  }
}
