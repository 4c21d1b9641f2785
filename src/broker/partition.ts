import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { Log, LogAppendInfo } from '../log/log';
import { LeaderAndIsrPartitionState } from '../protocol/apis/leader-and-isr';

/** What the leader knows of one follower (Kafka's Replica): how far it has fetched and when it last caught up. */
export interface FollowerState {
  logEndOffset: number;
  lastCaughtUpTimeMs: number;
}

/**
 * One partition hosted on this broker (Kafka's cluster.Partition): its log and, depending on the last
 * LeaderAndIsr, its leader or follower state. The leader tracks followers' log end offsets and keeps the high
 * watermark at the smallest among the ISR, so consumers never see data a failover could lose.
 */
export class Partition {
  log: Log | undefined;
  leaderId = -1;
  leaderEpoch = -1;
  controllerEpoch = -1;
  zkVersion = -1;
  isr: number[] = [];
  assignment: number[] = [];
  readonly followers = new Map<number, FollowerState>();
  private readonly logger: Logger;

  constructor(
    readonly tp: TopicPartition,
    private readonly localBrokerId: number,
    private readonly now: () => number,
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
    const wasLeader = this.isLeader && this.leaderEpoch === state.leaderEpoch;
    this.applyState(state, log);
    this.leaderId = this.localBrokerId;
    const now = this.now();
    this.followers.clear();
    for (const r of state.replicas) {
      if (r !== this.localBrokerId) this.followers.set(r, { logEndOffset: -1, lastCaughtUpTimeMs: state.isr.includes(r) ? now : 0 });
    }
    if (log.leaderEpochCache.latestEpoch() < state.leaderEpoch) log.leaderEpochCache.assign(state.leaderEpoch, log.logEndOffset);
    this.maybeIncrementLeaderHW();
    return !wasLeader;
  }

  /** Returns false when the leader did not change. */
  makeFollower(state: LeaderAndIsrPartitionState, log: Log): boolean {
    const changed = this.leaderId !== state.leader;
    this.applyState(state, log);
    this.leaderId = state.leader;
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

  /** Appends a producer's batch as leader; acks=-1 needs an ISR of at least min.insync.replicas. */
  async appendRecordsToLeader(records: Buffer, requiredAcks: number): Promise<LogAppendInfo> {
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
    const info = await log.appendAsLeader(records, this.leaderEpoch);
    this.maybeIncrementLeaderHW();
    return info;
  }

  /** The high watermark moves to the smallest log end offset in the ISR (Kafka's maybeIncrementLeaderHW). */
  maybeIncrementLeaderHW(): boolean {
    const log = this.log;
    if (log === undefined || !this.isLeader) return false;
    let hw = log.logEndOffset;
    for (const r of this.isr) {
      if (r === this.localBrokerId) continue;
      const f = this.followers.get(r);
      if (f !== undefined) hw = Math.min(hw, Math.max(f.logEndOffset, 0));
    }
    if (hw <= log.highWatermark) return false;
    log.updateHighWatermark(hw);
    return true;
  }

  /** Whether every ISR member has `offset` (acks=-1 completion). */
  allIsrCaughtUpTo(offset: number): boolean {
    return this.highWatermark >= offset;
  }

  logInfo(message: string): void {
    this.logger.info(message);
  }
}
