import { ErrorName } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { Log, LogAppendInfo } from '../log/log';
import type { AppendOrigin } from '../log/log-validator';
import { LeaderAndIsrPartitionState } from '../protocol/apis/leader-and-isr';
import { Clock } from '../common/time';
import { IsrStateWriter } from './isr-state-writer';

/**
 * What the leader knows of one follower (Kafka's Replica): how far it has fetched and when it last caught up.
 * `lastFetchLeaderLogEndOffset`/`lastFetchTimeMs` remember the previous fetch, so a follower that keeps pace with
 * a busy leader (never quite at its LEO when it asks) still counts as caught up (KAFKA-2477 rule, 0.10.2+).
 */
export interface FollowerState {
  logEndOffset: number;
  /** The follower's log start offset from its last fetch (-1 until it fetches): the low watermark counts it. */
  logStartOffset: number;
  lastCaughtUpTimeMs: number;
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
}

/** What a partition needs from its broker to change its ISR: the ZooKeeper write and who to tell. */
export interface PartitionHooks {
  /** Only `write` is used (narrow, so tests can fake the ZooKeeper write). */
  isrWriter?: Pick<IsrStateWriter, 'write'>;
  /** The ISR changed in ZooKeeper: queue it for /isr_change_notification. */
  onIsrChanged?: (tp: TopicPartition) => void;
  /** Wake fetches and acks=-1 produces waiting on this partition (high watermark or ISR moved). */
  notify?: (tp: TopicPartition) => void;
  /** ReplicaManager's IsrShrinksPerSec / IsrExpandsPerSec meters (kafka.metrics.port set). */
  isrChangeCounts?: { isrShrinks: number; isrExpands: number };
}

/** The broker settings a partition runs on. */
export interface PartitionSettings {
  readonly clock: Clock;
  /** replica.lag.time.max.ms: how long a follower may go without catching up and still count as in sync. */
  readonly replicaLagTimeMaxMs: number;
}

/** DeleteRecords' offset meaning "up to the high watermark" (DeleteRecordsRequest.HIGH_WATERMARK). */
export const HIGH_WATERMARK_OFFSET = -1;

/**
 * The low watermark of a partition: the smallest of the leader's log start offset and the followers' on live
 * brokers (a follower on a dead broker must not hold a DeleteRecords back).
 */
export function lowWatermark(leaderLogStartOffset: number, followers: ReadonlyMap<number, Pick<FollowerState, 'logStartOffset'>>, isBrokerAlive: (id: number) => boolean): number {
  let low = leaderLogStartOffset;
  for (const [id, f] of followers) if (isBrokerAlive(id) && f.logStartOffset < low) low = f.logStartOffset;
  return low;
}

/** Outcome of an acks=-1 produce check (Kafka's checkEnoughReplicasReachOffset). */
export type ReplicationCheck = { done: false } | { done: true; error?: ErrorName };

/**
 * One partition hosted on this broker (Kafka's cluster.Partition): its log and, depending on the last
 * LeaderAndIsr, its leader or follower state. The leader tracks followers' log end offsets, keeps the high
 * watermark at the smallest among the ISR (so consumers never see data a failover could lose), and shrinks or
 * expands the ISR itself, writing the change to ZooKeeper before it acts on it.
 */
export class Partition {
  log: Log | undefined;
  /** The replica being filled in another log dir of this broker (AlterReplicaLogDirs), until it replaces `log`. */
  futureLog: Log | undefined;
  /**
   * Set while the future log replaces the current one: appends wait for it, then go to the new log (Kafka takes
   * leaderIsrUpdateLock's write lock for the swap, appends its read lock).
   */
  private logSwap: Promise<void> | undefined;
  leaderId = -1;
  leaderEpoch = -1;
  controllerEpoch = -1;
  zkVersion = -1;
  isr: number[] = [];
  assignment: number[] = [];
  /** The leader's LEO when it took this epoch; a follower rejoins the ISR only once it has reached it. */
  leaderEpochStartOffset = -1;
  readonly followers = new Map<number, FollowerState>();
  private isrUpdateInFlight = false;
  /** The ISR being written to ZooKeeper, if any: it may already be what a new leader is elected from. */
  private pendingIsr: number[] | undefined;
  private readonly logger: Logger;

  constructor(
    readonly tp: TopicPartition,
    private readonly localBrokerId: number,
    private readonly settings: PartitionSettings,
    private readonly hooks: PartitionHooks = {},
  ) {
    this.logger = getLogger('kafka.cluster.Partition', `[Partition ${tpString(tp)} broker=${localBrokerId}] `);
  }

  get isLeader(): boolean {
    return this.leaderId === this.localBrokerId;
  }

  get highWatermark(): number {
    return this.log?.highWatermark ?? 0;
  }

  get logEndOffset(): number {
    return this.log?.logEndOffset ?? 0;
  }

  /** Returns false when this broker already led the partition at this epoch. */
  makeLeader(state: LeaderAndIsrPartitionState, log: Log): boolean {
    const wasLeader = this.isLeader;
    const sameEpoch = wasLeader && this.leaderEpoch === state.leaderEpoch;
    this.applyState(state, log);
    this.leaderId = this.localBrokerId;
    if (log.leaderEpochCache.latestEpoch() < state.leaderEpoch) log.maybeAssignEpochStartOffset(state.leaderEpoch, log.logEndOffset);
    this.leaderEpochStartOffset = log.logEndOffset;
    const now = this.settings.clock.nowMs();
    const previous = new Map(this.followers);
    this.followers.clear();
    for (const r of state.replicas) {
      if (r === this.localBrokerId) continue;
      // A new leader knows nothing of the followers' logs until they fetch; an epoch bump keeps what it knew.
      const logEndOffset = wasLeader ? (previous.get(r)?.logEndOffset ?? -1) : -1;
      const logStartOffset = wasLeader ? (previous.get(r)?.logStartOffset ?? -1) : -1;
      this.followers.set(r, {
        logEndOffset,
        logStartOffset,
        lastCaughtUpTimeMs: state.isr.includes(r) ? now : 0,
        lastFetchLeaderLogEndOffset: this.leaderEpochStartOffset,
        lastFetchTimeMs: now,
      });
    }
    this.maybeIncrementLeaderHW();
    return !sameEpoch;
  }

  /** Returns false when the leader did not change. */
  makeFollower(state: LeaderAndIsrPartitionState, log: Log): boolean {
    const changed = this.leaderId !== state.leader;
    this.applyState(state, log);
    this.leaderId = state.leader;
    this.leaderEpochStartOffset = -1;
    this.followers.clear();
    return changed;
  }

  private applyState(state: LeaderAndIsrPartitionState, log: Log): void {
    this.log = log;
    this.leaderEpoch = state.leaderEpoch;
    this.controllerEpoch = state.controllerEpoch;
    this.zkVersion = state.zkVersion;
    this.isr = [...state.isr];
    this.assignment = [...state.replicas];
  }

  /**
   * Appends a producer's batch as leader; acks=-1 needs an ISR of at least min.insync.replicas. The broker's own
   * coordinators pass origin 'coordinator' (Kafka's AppendOrigin.Coordinator: no client-only checks).
   */
  async appendRecordsToLeader(records: Buffer, requiredAcks: number, origin: AppendOrigin = 'client'): Promise<LogAppendInfo> {
    while (this.logSwap !== undefined) await this.logSwap;
    // From here to the log's append nothing awaits: the append is queued on the log the swap sees.
    const log = this.log;
    if (!this.isLeader || log === undefined) {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `Leader not local for partition ${tpString(this.tp)} on broker ${this.localBrokerId}`);
    }
    const minIsr = log.config.minInSyncReplicas;
    if (requiredAcks === -1 && this.isr.length < minIsr) {
      throw new KafkaError(
        'NOT_ENOUGH_REPLICAS',
        `The size of the current ISR Set(${this.isr.join(', ')}) is insufficient to satisfy the min.isr requirement of ${minIsr} for partition ${tpString(this.tp)}`,
      );
    }
    const info = await log.appendAsLeader(records, this.leaderEpoch, origin);
    this.maybeIncrementLeaderHW();
    return info;
  }

  /**
   * A follower fetched from `fetchOffset` (its log end offset): note how far it is and whether it is caught up,
   * maybe take it back into the ISR, maybe move the high watermark. Returns whether the high watermark moved.
   * `followerLogStartOffset` (Fetch v5+, else -1) feeds the low watermark that DeleteRecords waits for.
   */
  updateFollowerFetchState(replicaId: number, fetchOffset: number, followerLogStartOffset = -1): boolean {
    const f = this.followers.get(replicaId);
    if (f === undefined || !this.isLeader) return false;
    const now = this.settings.clock.nowMs();
    const leaderEndOffset = this.logEndOffset;
    if (fetchOffset >= leaderEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, now);
    else if (fetchOffset >= f.lastFetchLeaderLogEndOffset) f.lastCaughtUpTimeMs = Math.max(f.lastCaughtUpTimeMs, f.lastFetchTimeMs);
    f.logEndOffset = fetchOffset;
    f.logStartOffset = followerLogStartOffset;
    f.lastFetchLeaderLogEndOffset = leaderEndOffset;
    f.lastFetchTimeMs = now;
    this.maybeExpandIsr(replicaId, f);
    return this.maybeIncrementLeaderHW();
  }

  /** A follower outside the ISR that has reached the high watermark (and this epoch's start) rejoins it. */
  private maybeExpandIsr(replicaId: number, f: FollowerState): void {
    if (this.isr.includes(replicaId) || this.isrUpdateInFlight || !this.assignment.includes(replicaId)) return;
    if (f.logEndOffset < this.highWatermark || f.logEndOffset < this.leaderEpochStartOffset) return;
    const newIsr = [...this.isr, replicaId];
    this.logger.info(`Expanding ISR from ${this.isr.join(',')} to ${newIsr.join(',')}`);
    void this.updateIsr(newIsr);
  }

  /**
   * The `isr-expiration` check: followers that have not caught up within replica.lag.time.max.ms leave the ISR.
   * Resolves once the change is written (or refused by ZooKeeper).
   */
  async maybeShrinkIsr(): Promise<void> {
    const maxLagMs = this.settings.replicaLagTimeMaxMs;
    if (!this.isLeader || this.isrUpdateInFlight || this.log === undefined) return;
    const now = this.settings.clock.nowMs();
    const leaderEndOffset = this.logEndOffset;
    const outOfSync = this.isr.filter((r) => {
      if (r === this.localBrokerId) return false;
      const f = this.followers.get(r);
      return f !== undefined && f.logEndOffset !== leaderEndOffset && now - f.lastCaughtUpTimeMs > maxLagMs;
    });
    if (outOfSync.length === 0) return;
    const newIsr = this.isr.filter((r) => !outOfSync.includes(r));
    const lagging = outOfSync.map((r) => `(brokerId: ${r}, endOffset: ${this.followers.get(r)?.logEndOffset ?? -1})`).join(' ');
    this.logger.info(
      `Shrinking ISR from ${this.isr.join(',')} to ${newIsr.join(',')}. Leader: (highWatermark: ${this.highWatermark}, endOffset: ${leaderEndOffset}). Out of sync replicas: ${lagging}.`,
    );
    await this.updateIsr(newIsr);
  }

  /**
   * Writes the new ISR to ZooKeeper on the zkVersion we know, and only then uses it: the high watermark must
   * never count on a smaller ISR than the one a new leader would be elected from.
   */
  private async updateIsr(newIsr: number[]): Promise<void> {
    const writer = this.hooks.isrWriter;
    const epoch = this.leaderEpoch;
    const expectedZkVersion = this.zkVersion;
    this.isrUpdateInFlight = true;
    this.pendingIsr = newIsr;
    try {
      let newZkVersion: number | null = expectedZkVersion + 1;
      if (writer !== undefined) {
        newZkVersion = await writer.write(this.tp, { leader: this.localBrokerId, leaderEpoch: epoch, isr: newIsr, controllerEpoch: this.controllerEpoch }, expectedZkVersion);
      }
      // A LeaderAndIsr arrived meanwhile: its state is newer than ours.
      if (!this.isLeader || this.leaderEpoch !== epoch) return;
      if (newZkVersion === null) {
        this.logger.info(`Cached zkVersion ${expectedZkVersion} not equal to that in zookeeper, skip updating ISR`);
        return;
      }
      const counts = this.hooks.isrChangeCounts;
      if (counts !== undefined) {
        if (newIsr.length < this.isr.length) counts.isrShrinks++;
        else if (newIsr.length > this.isr.length) counts.isrExpands++;
      }
      this.isr = newIsr;
      this.zkVersion = newZkVersion;
      this.logger.info(`ISR updated to [${newIsr.join(',')}] and zkVersion updated to [${newZkVersion}]`);
      this.hooks.onIsrChanged?.(this.tp);
      // Only a moved high watermark can complete a waiting produce or fetch (Kafka's tryCompleteDelayedRequests
      // after an ISR change): waking them for every ISR write cost each parked follower fetch a check of all its
      // partitions per write, thousands of times over when a restarted broker rejoins every ISR.
      if (this.maybeIncrementLeaderHW()) this.hooks.notify?.(this.tp);
    } catch (err) {
      this.logger.error(`Failed to update ISR to ${newIsr.join(',')}`, err);
    } finally {
      this.isrUpdateInFlight = false;
      this.pendingIsr = undefined;
    }
  }

  /**
   * The high watermark moves to the smallest log end offset of the followers that count (Kafka 2.8's
   * maybeIncrementLeaderHW): the ISR, while an expansion is being written the joining follower too (the "maximal
   * ISR": once ZooKeeper has it, it may be elected, so nothing it lacks may be called committed), and any follower
   * that caught up within replica.lag.time.max.ms, so that one on its way back into the ISR is not outrun forever.
   */
  maybeIncrementLeaderHW(): boolean {
    const log = this.log;
    if (log === undefined || !this.isLeader) return false;
    let hw = log.logEndOffset;
    const now = this.settings.clock.nowMs();
    const pending = this.pendingIsr;
    for (const [r, f] of this.followers) {
      const counts = this.isr.includes(r) || (pending !== undefined && pending.includes(r)) || now - f.lastCaughtUpTimeMs <= this.settings.replicaLagTimeMaxMs;
      if (counts) hw = Math.min(hw, Math.max(f.logEndOffset, 0));
    }
    if (hw <= log.highWatermark) return false;
    log.updateHighWatermark(hw);
    return true;
  }

  /**
   * Whether an acks=-1 append ending before `requiredOffset` is complete: every ISR member has it (the high
   * watermark passed it), with an error if by then the ISR is smaller than min.insync.replicas.
   */
  checkEnoughReplicasReachOffset(requiredOffset: number): ReplicationCheck {
    const log = this.log;
    // Kafka's DelayedProduce: a partition in a failed log dir answers KAFKA_STORAGE_ERROR.
    if (log?.isOffline === true) return { done: true, error: 'KAFKA_STORAGE_ERROR' };
    if (!this.isLeader || log === undefined) return { done: true, error: 'NOT_LEADER_OR_FOLLOWER' };
    if (log.highWatermark < requiredOffset) return { done: false };
    if (this.isr.length < log.config.minInSyncReplicas) return { done: true, error: 'NOT_ENOUGH_REPLICAS_AFTER_APPEND' };
    return { done: true };
  }

  /**
   * The smallest log start offset of the leader and of the followers on live brokers (Kafka's
   * lowWatermarkIfLeader): what a DeleteRecords waits for. A follower that has not fetched yet counts as -1.
   */
  lowWatermarkIfLeader(isBrokerAlive: (id: number) => boolean): number {
    const log = this.log;
    if (!this.isLeader || log === undefined) {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `Leader not local for partition ${tpString(this.tp)} on broker ${this.localBrokerId}`);
    }
    return lowWatermark(log.logStartOffset, this.followers, isBrokerAlive);
  }

  /**
   * DeleteRecords on the leader (Kafka's Partition.deleteRecordsOnLeader): -1 means the high watermark; the log
   * start offset moves there (never past the high watermark: OFFSET_OUT_OF_RANGE from the log). Returns the offset
   * asked for and the low watermark now.
   */
  async deleteRecordsOnLeader(offset: number, isBrokerAlive: (id: number) => boolean): Promise<{ requestedOffset: number; lowWatermark: number }> {
    while (this.logSwap !== undefined) await this.logSwap;
    const log = this.log;
    if (!this.isLeader || log === undefined) {
      throw new KafkaError('NOT_LEADER_OR_FOLLOWER', `Leader not local for partition ${tpString(this.tp)} on broker ${this.localBrokerId}`);
    }
    if (!log.config.cleanupPolicy.includes('delete')) {
      throw new KafkaError('POLICY_VIOLATION', `Records of partition ${tpString(this.tp)} can not be deleted due to the configured policy`);
    }
    const requestedOffset = offset === HIGH_WATERMARK_OFFSET ? log.highWatermark : offset;
    if (requestedOffset < 0) throw new KafkaError('OFFSET_OUT_OF_RANGE', `The offset ${requestedOffset} for partition ${tpString(this.tp)} is not valid`);
    await log.maybeIncrementLogStartOffset(requestedOffset, 'client delete records request');
    return { requestedOffset, lowWatermark: this.lowWatermarkIfLeader(isBrokerAlive) };
  }

  /**
   * Holds appends and DeleteRecords of this partition until the returned release is called: those already queued
   * on the current log finish (Log.quiesce), later ones wait and then go to whatever `log` is by then.
   */
  blockAppends(): () => void {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    this.logSwap = gate;
    return () => {
      if (this.logSwap === gate) this.logSwap = undefined;
      release();
    };
  }

  /** Whether every ISR member has `offset` (acks=-1 completion). */
  allIsrCaughtUpTo(offset: number): boolean {
    return this.highWatermark >= offset;
  }

  logInfo(message: string): void {
    this.logger.info(message);
  }
}
