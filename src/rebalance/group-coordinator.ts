import { randomUUID } from 'node:crypto';
import { tpString } from '../common/topic-partition';
import { ErrorCode, ErrorName } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { mapBounded } from '../common/map-bounded';
import { Scheduler } from '../common/scheduler';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { topicNameError } from '../common/topic';
import { decodeSubscription } from './consumer-protocol';
import { groupIdError } from './group-id';
import { GroupMetadata } from './group-metadata';
import { GroupState } from './group-state';
import { JoinResult, MemberMetadata, MemberProtocol, SyncResult } from './member-metadata';
import { PendingTxnOffsets } from './pending-txn-offsets';
import { groupMetadataKey, offsetCommitKey, offsetCommitValue, OffsetCommitValue } from './offset-commit-record';
import { OffsetsLog, OffsetsLogRecord } from './offsets-log';
import { emptyReplay, replayOffsetsBatches } from './offsets-log-replay';
import { expiredOffsets, GroupExpiryView, OFFSET_ONLY_GROUP } from './offset-expiry';
import { TopicPartitionOffset, ZkOffsetStore } from './zk-offset-store';

const log = getLogger('kafka.coordinator.group.GroupCoordinator');

/** Kafka's default offsets.retention.minutes (7 days), in ms. */
const DEFAULT_OFFSETS_RETENTION_MS = 10080 * 60 * 1000;

export interface GroupCoordinatorConfig {
  minSessionTimeoutMs: number;
  maxSessionTimeoutMs: number;
  initialRebalanceDelayMs: number;
  maxGroupSize: number;
  offsetMetadataMaxBytes: number;
  /** offsets.retention.minutes in ms (Kafka's offsetsRetentionMs); default 10080 minutes. */
  offsetsRetentionMs?: number;
  /** offsets.retention.check.interval.ms: the period of the expiry; without it no expiry is scheduled (unit tests). */
  offsetsRetentionCheckIntervalMs?: number;
  /** offsets.commit.timeout.ms: how long an append to `__consumer_offsets` waits for the ISR (default 5000). */
  offsetCommitTimeoutMs?: number;
  /** offsets.load.buffer.size: bytes read at a time when loading a partition (default 5 MiB). */
  offsetsLoadBufferSize?: number;
}

export interface GroupCoordinatorDeps {
  config: GroupCoordinatorConfig;
  offsetStore: ZkOffsetStore;
  /** The `__consumer_offsets` partition of a group (Kafka's partitionFor). */
  partitionFor(groupId: string): number;
  /**
   * The `__consumer_offsets` partitions (the broker's replica manager): every commit is appended there in Kafka's
   * format before ZooKeeper is written. Without it (unit tests) offsets live in ZooKeeper alone.
   */
  offsetsLog?: OffsetsLog;
  clock?: Clock;
  /** For the GroupMetadataManager's log prefix. */
  brokerId?: number;
}

export interface JoinGroupParams {
  groupId: string;
  memberId: string;
  /** group.instance.id (JoinGroup v5+): a static member (KIP-345). */
  groupInstanceId?: string | null;
  /** JoinGroup v4+ from a dynamic member: a first join gets MEMBER_ID_REQUIRED with its id (KIP-394). */
  requireKnownMemberId?: boolean;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  protocols: MemberProtocol[];
}

export interface CommitPartition extends TopicPartitionOffset {
  metadata: string | null;
  /** committed_leader_epoch (OffsetCommit v6+, TxnOffsetCommit v2+); -1 or absent when unknown. */
  leaderEpoch?: number;
}

/** OffsetFetch's answer for one partition: the offset (ZooKeeper's) with the leader epoch and metadata of its commit. */
export interface FetchedOffset extends TopicPartitionOffset {
  leaderEpoch: number;
  metadata: string;
}

export interface DescribedGroupInfo {
  errorCode: number;
  groupId: string;
  state: GroupState;
  protocolType: string;
  protocolName: string;
  members: { memberId: string; groupInstanceId: string | null; clientId: string; clientHost: string; metadata: Buffer; assignment: Buffer }[];
}

export interface ListedGroupInfo {
  groupId: string;
  protocolType: string;
  state: GroupState;
}

const EMPTY = Buffer.alloc(0);

function joinError(memberId: string, name: ErrorName): JoinResult {
  return { errorCode: ErrorCode[name].code, generationId: -1, protocolType: null, protocolName: '', leaderId: '', memberId, members: [] };
}

/**
 * The group coordinator (Kafka's GroupCoordinator) for the groups whose `__consumer_offsets` partition this
 * broker leads. It runs the JoinGroup/SyncGroup rebalance protocol (see GroupMetadata for the states), expires
 * members whose session times out, and stores committed offsets in ZooKeeper. The broker tells it which
 * partitions it leads from LeaderAndIsr and StopReplica (Kafka's onElection and onResignation). Nothing needs
 * loading when leadership arrives (ZooKeeper already holds the offsets); when it leaves, the partition's groups
 * are unloaded and their members get NOT_COORDINATOR, find the new coordinator and rejoin it as new members.
 */
export class GroupCoordinator {
  private readonly groups = new Map<string, GroupMetadata>();
  private readonly clock: Clock;
  /** The `__consumer_offsets` partitions this broker leads (Kafka's GroupMetadataManager.ownedPartitions). */
  private readonly ownedPartitions = new Set<number>();
  private active = false;
  private readonly scheduler: Scheduler;
  private readonly metadataLog: Logger;
  /** TxnOffsetCommit offsets waiting for their transaction's marker. */
  private readonly pendingTxnOffsets = new PendingTxnOffsets();
  /**
   * The last commit of each partition as `__consumer_offsets` holds it (group -> `topic-partition` -> value), for
   * the groups of the partitions this broker leads: loaded from the log on election, updated by each commit.
   */
  private readonly committedCache = new Map<string, Map<string, OffsetCommitValue>>();
  /** Partitions being loaded (Kafka's loadingPartitions): their groups get COORDINATOR_LOAD_IN_PROGRESS. */
  private readonly loading = new Map<number, Promise<void>>();

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.clock = deps.clock ?? SYSTEM_CLOCK;
    this.scheduler = new Scheduler(this.clock);
    this.metadataLog = getLogger('kafka.coordinator.group.GroupMetadataManager').withPrefix(`[GroupMetadataManager brokerId=${deps.brokerId ?? -1}] `);
  }

  startup(): void {
    log.info('Starting up.');
    this.active = true;
    const interval = this.deps.config.offsetsRetentionCheckIntervalMs;
    // Kafka's GroupMetadataManager.startup: the first run right away, then every check interval.
    if (interval !== undefined) this.scheduler.schedule('delete-expired-group-metadata', async () => {
        await this.cleanupGroupMetadata();
      }, 0, interval);
    log.info('Startup complete.');
  }

  shutdown(): void {
    log.info('Shutting down.');
    this.active = false;
    void this.scheduler.shutdown();
    for (const g of [...this.groups.values()]) this.unload(g, 'COORDINATOR_NOT_AVAILABLE');
    this.ownedPartitions.clear();
    log.info('Shutdown complete.');
  }

  /** The group's in-memory state, for tests and tools. */
  /** The groups this coordinator holds, by state (GroupMetadataManager's NumGroups* gauges), read at scrape time. */
  groupCountsByState(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const g of this.groups.values()) counts.set(g.state, (counts.get(g.state) ?? 0) + 1);
    return counts;
  }

  group(groupId: string): GroupMetadata | undefined {
    return this.groups.get(groupId);
  }

  partitionFor(groupId: string): number {
    return this.deps.partitionFor(groupId);
  }

  /** This broker became the leader of `__consumer_offsets` partition `partition` (a LeaderAndIsr). */
  onElection(partition: number): Promise<void> {
    if (this.ownedPartitions.has(partition)) return this.loading.get(partition) ?? Promise.resolve();
    log.info(`Elected as the group coordinator for partition ${partition}`);
    this.ownedPartitions.add(partition);
    const offsetsLog = this.deps.offsetsLog;
    if (offsetsLog === undefined) return Promise.resolve();
    const load = this.loadPartition(offsetsLog, partition).finally(() => {
      if (this.loading.get(partition) === load) this.loading.delete(partition);
    });
    this.loading.set(partition, load);
    return load;
  }

  /**
   * Kafka's loadGroupsAndOffsets: replays the partition's log into the commit cache; transactions without a
   * marker yet become pending again (their marker will come here), and offsets whose transaction committed are
   * written to ZooKeeper where it holds another value (the old coordinator may have died between the marker and
   * its ZooKeeper write; writing again is harmless).
   */
  private async loadPartition(offsetsLog: OffsetsLog, partition: number): Promise<void> {
    const started = this.clock.nowMs();
    const topicPartition = `__consumer_offsets-${partition}`;
    this.metadataLog.info(`Scheduling loading of offsets and group metadata from ${topicPartition}`);
    const state = emptyReplay();
    try {
      const bounds = offsetsLog.bounds(partition);
      let offset = bounds?.logStartOffset ?? 0;
      const end = bounds?.logEndOffset ?? 0;
      while (offset < end && this.ownedPartitions.has(partition)) {
        const next = replayOffsetsBatches(state, offsetsLog.read(partition, offset, this.deps.config.offsetsLoadBufferSize ?? 5242880), (at, err) =>
          this.metadataLog.warn(`Skipping the unreadable record at offset ${at} of ${topicPartition}: ${(err as Error).message}`),
        );
        if (next < 0) break;
        offset = next;
      }
    } catch (err) {
      this.metadataLog.error(`Error loading offsets from ${topicPartition}`, err);
    }
    if (!this.ownedPartitions.has(partition)) return;
    let offsets = 0;
    for (const [groupId, byTp] of state.committed) {
      if (this.deps.partitionFor(groupId) !== partition) continue;
      const cache = new Map<string, OffsetCommitValue>();
      for (const [key, o] of byTp) cache.set(key, o.value);
      this.committedCache.set(groupId, cache);
      offsets += cache.size;
      const fromTxn = [...byTp.values()].filter((o) => o.transactional);
      if (fromTxn.length === 0) continue;
      try {
        const current = await this.deps.offsetStore.fetchMany(groupId, fromTxn);
        const stale = fromTxn.filter((o, i) => current[i] !== o.value.offset).map((o) => ({ topic: o.topic, partition: o.partition, offset: o.value.offset }));
        if (stale.length > 0) await this.deps.offsetStore.commit(groupId, stale);
      } catch (err) {
        this.metadataLog.warn(`Could not write the transactional offsets of group ${groupId} to ZooKeeper`, err);
      }
    }
    for (const [producerId, byGroup] of state.pending) {
      for (const [groupId, byTp] of byGroup) {
        if (this.deps.partitionFor(groupId) !== partition) continue;
        this.pendingTxnOffsets.add(groupId, producerId, [...byTp.values()].map((o) => ({ topic: o.topic, partition: o.partition, offset: o.value.offset, metadata: o.value.metadata, leaderEpoch: o.value.leaderEpoch })));
      }
    }
    this.metadataLog.info(`Finished loading offsets and group metadata from ${topicPartition} in ${this.clock.nowMs() - started} milliseconds, of which 0 milliseconds was spent in the scheduler.`);
    log.debug(`Loaded ${offsets} offsets of ${topicPartition}`);
  }

  /** This broker no longer leads the partition (LeaderAndIsr as follower, or StopReplica): its groups leave. */
  onResignation(partition: number): void {
    if (!this.ownedPartitions.delete(partition)) return;
    log.info(`Resigned as the group coordinator for partition ${partition}`);
    const ofPartition = (groupId: string): boolean => this.deps.partitionFor(groupId) === partition;
    for (const groupId of [...this.committedCache.keys()]) if (ofPartition(groupId)) this.committedCache.delete(groupId);
    this.pendingTxnOffsets.dropGroups(ofPartition);
    let removed = 0;
    for (const g of [...this.groups.values()]) {
      if (this.deps.partitionFor(g.groupId) !== partition) continue;
      this.unload(g, 'NOT_COORDINATOR');
      removed++;
    }
    if (removed > 0) log.info(`Unloaded ${removed} groups of __consumer_offsets-${partition}`);
  }

  /** Whether this broker coordinates the group now: it leads the group's `__consumer_offsets` partition. */
  isCoordinatorFor(groupId: string): boolean {
    return this.ownedPartitions.has(this.deps.partitionFor(groupId));
  }

  /** Drops a group (Kafka's onResignation/removeGroup): parked requests are answered with `error`. */
  private unload(group: GroupMetadata, error: ErrorName): void {
    group.joinTimer?.cancel();
    group.joinTimer = null;
    for (const t of group.pendingMembers.values()) t.cancel();
    group.pendingMembers.clear();
    for (const m of group.members.values()) {
      m.heartbeatTimer?.cancel();
      this.answerParked(m, error);
    }
    group.transitionTo('Dead');
    this.groups.delete(group.groupId);
  }

  private answerParked(member: MemberMetadata, error: ErrorName): void {
    const join = member.awaitingJoin;
    const sync = member.awaitingSync;
    member.awaitingJoin = null;
    member.awaitingSync = null;
    join?.(joinError(member.memberId, error));
    sync?.({ errorCode: ErrorCode[error].code, assignment: EMPTY });
  }

  /**
   * INVALID_GROUP_ID for a group id that cannot name a znode under /consumers (see groupIdError; Kafka refuses
   * only the empty one, in the APIs other than the offset and describe/delete ones, but its offsets do not live
   * in ZooKeeper), then the coordinator checks.
   */
  private checkCoordinator(groupId: string): ErrorName | null {
    if (groupIdError(groupId) !== undefined) return 'INVALID_GROUP_ID';
    if (!this.active) return 'COORDINATOR_NOT_AVAILABLE';
    if (!this.isCoordinatorFor(groupId)) return 'NOT_COORDINATOR';
    if (this.loading.has(this.deps.partitionFor(groupId))) return 'COORDINATOR_LOAD_IN_PROGRESS';
    return null;
  }

  // ---- JoinGroup -------------------------------------------------------------------------------------------

  joinGroup(params: JoinGroupParams): Promise<JoinResult> {
    const p: Required<JoinGroupParams> = { ...params, groupInstanceId: params.groupInstanceId ?? null, requireKnownMemberId: params.requireKnownMemberId ?? false };
    const error = this.checkCoordinator(p.groupId);
    if (error !== null) return Promise.resolve(joinError(p.memberId, error));
    const { minSessionTimeoutMs, maxSessionTimeoutMs } = this.deps.config;
    if (p.sessionTimeoutMs < minSessionTimeoutMs || p.sessionTimeoutMs > maxSessionTimeoutMs) {
      return Promise.resolve(joinError(p.memberId, 'INVALID_SESSION_TIMEOUT'));
    }
    let group = this.groups.get(p.groupId);
    if (group === undefined) {
      // Only a first join (no member id) may create the group; a known id for an unknown group must rejoin fresh.
      if (p.memberId !== '') return Promise.resolve(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'));
      group = new GroupMetadata(p.groupId, () => this.clock.nowMs());
      this.groups.set(p.groupId, group);
    }
    if (group.is('Dead')) return Promise.resolve(joinError(p.memberId, 'COORDINATOR_NOT_AVAILABLE'));
    if (!group.supportsProtocols(p.protocolType, p.protocols)) return Promise.resolve(joinError(p.memberId, 'INCONSISTENT_GROUP_PROTOCOL'));
    if (p.memberId === '') return this.joinUnknownMember(group, p);
    const pending = group.pendingMembers.get(p.memberId);
    if (pending !== undefined) {
      // The rejoin with the id MEMBER_ID_REQUIRED gave (Kafka's doCurrentMemberJoinGroup for a pending member).
      pending.cancel();
      group.pendingMembers.delete(p.memberId);
      return this.joinNewMember(group, p, p.memberId);
    }
    const invalid = this.validateCurrentMember(group, p.memberId, p.groupInstanceId, 'join-group');
    if (invalid !== null) return Promise.resolve(joinError(p.memberId, invalid));
    return this.joinExistingMember(group, p);
  }

  /**
   * A join without a member id (Kafka's doUnknownJoinGroup): a static member whose instance id is known takes over
   * its old member; a dynamic member on JoinGroup v4+ first gets MEMBER_ID_REQUIRED with the id it must rejoin with.
   */
  private joinUnknownMember(group: GroupMetadata, p: Required<JoinGroupParams>): Promise<JoinResult> {
    const memberId = `${p.clientId}-${randomUUID()}`;
    if (p.groupInstanceId !== null) {
      const oldMemberId = group.staticMembers.get(p.groupInstanceId);
      if (oldMemberId !== undefined) return this.updateStaticMember(group, p.groupInstanceId, oldMemberId, memberId, p);
      return this.joinNewMember(group, p, memberId);
    }
    if (p.requireKnownMemberId) {
      if (group.members.size + group.pendingMembers.size >= this.deps.config.maxGroupSize) return Promise.resolve(joinError('', 'GROUP_MAX_SIZE_REACHED'));
      // Kafka's addPendingMemberExpiration: an id never used within the session timeout is forgotten.
      group.pendingMembers.set(
        memberId,
        this.clock.setTimer(() => {
          group.pendingMembers.delete(memberId);
        }, p.sessionTimeoutMs),
      );
      log.info(`Dynamic member with unknown member id joins group ${group.groupId} in ${group.state} state. Created a new member id ${memberId} and request the member to rejoin with this id.`);
      return Promise.resolve(joinError(memberId, 'MEMBER_ID_REQUIRED'));
    }
    return this.joinNewMember(group, p, memberId);
  }

  /**
   * A static member rejoining with a new member id (a restart): it replaces its old member, which is fenced
   * (FENCED_INSTANCE_ID on anything it had parked). In a Stable group whose protocol would not change it gets the
   * current generation and its old assignment without a rebalance, and the old leader id, so that it does not
   * assign as a leader (Kafka's updateStaticMemberAndRebalance).
   */
  private updateStaticMember(group: GroupMetadata, instanceId: string, oldMemberId: string, newMemberId: string, p: Required<JoinGroupParams>): Promise<JoinResult> {
    const currentLeader = group.leaderId ?? '';
    const old = group.members.get(oldMemberId)!;
    const join = old.awaitingJoin;
    const sync = old.awaitingSync;
    old.awaitingJoin = null;
    old.awaitingSync = null;
    join?.(joinError(oldMemberId, 'FENCED_INSTANCE_ID'));
    sync?.({ errorCode: ErrorCode.FENCED_INSTANCE_ID.code, assignment: EMPTY });
    const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
    log.info(`Static member ${oldMemberId} of group ${group.groupId} with instance id ${instanceId} is replaced by ${newMemberId}`);
    this.scheduleHeartbeat(group, member);
    const result = this.updateMember(member, p);
    switch (group.state) {
      case 'Stable':
        if (group.protocolName === group.selectProtocol()) {
          log.info(`Static member which joins during Stable stage and doesn't affect selectProtocol will not trigger rebalance.`);
          const answer = member.awaitingJoin;
          member.awaitingJoin = null;
          answer?.({ ...this.joinResultFor(group, member), leaderId: currentLeader, members: [] });
        } else {
          this.maybePrepareRebalance(group, `Group's selectedProtocol will change because static member ${newMemberId} with instance id ${instanceId} joined with change of protocol`);
        }
        break;
      case 'CompletingRebalance':
        // The leader may already have assigned to the old member id: only a new generation is consistent.
        this.prepareRebalance(group, `Updating metadata for static member ${newMemberId} with instance id ${instanceId}`);
        break;
      default:
        this.tryCompleteJoin(group);
    }
    return result;
  }

  /**
   * Kafka's validateCurrentMember: an instance id must be known and map to this member id (else UNKNOWN_MEMBER_ID
   * or FENCED_INSTANCE_ID), and the member id must be in the group.
   */
  private validateCurrentMember(group: GroupMetadata, memberId: string, groupInstanceId: string | null, operation: string): ErrorName | null {
    if (groupInstanceId !== null) {
      const current = group.staticMembers.get(groupInstanceId);
      if (current === undefined) return 'UNKNOWN_MEMBER_ID';
      if (current !== memberId) {
        log.info(`Request memberId=${memberId} for static member with groupInstanceId=${groupInstanceId} is fenced by current memberId=${current} during operation ${operation}`);
        return 'FENCED_INSTANCE_ID';
      }
    }
    return group.members.has(memberId) ? null : 'UNKNOWN_MEMBER_ID';
  }

  private joinNewMember(group: GroupMetadata, p: Required<JoinGroupParams>, memberId: string): Promise<JoinResult> {
    if (group.members.size >= this.deps.config.maxGroupSize) return Promise.resolve(joinError('', 'GROUP_MAX_SIZE_REACHED'));
    const member = new MemberMetadata(memberId, p.clientId, p.clientHost, p.rebalanceTimeoutMs, p.sessionTimeoutMs, p.protocolType, p.protocols);
    member.groupInstanceId = p.groupInstanceId;
    member.isNew = true;
    const result = this.park(member);
    group.add(member);
    if (group.is('PreparingRebalance') && group.inInitialDelay) group.newMemberAdded = true;
    log.info(`Member ${memberId} joins group ${group.groupId} in state ${group.state}`);
    this.maybePrepareRebalance(group, `Adding new member ${memberId}`);
    this.tryCompleteJoin(group);
    return result;
  }

  private joinExistingMember(group: GroupMetadata, p: Required<JoinGroupParams>): Promise<JoinResult> {
    const member = group.members.get(p.memberId);
    if (member === undefined || group.is('Empty')) return Promise.resolve(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'));
    switch (group.state) {
      case 'PreparingRebalance': {
        const result = this.updateMember(member, p);
        this.tryCompleteJoin(group);
        return result;
      }
      case 'CompletingRebalance':
        // A repeated join with nothing changed (the JoinGroup answer was lost): answer the generation again.
        if (member.matches(p.protocols)) return Promise.resolve(this.joinResultFor(group, member));
        return this.updateAndRebalance(group, member, p, `Updating metadata for member ${member.memberId}`);
      case 'Stable':
        // The leader rejoining, or a member with new metadata (a subscription change), starts a rebalance.
        if (member.memberId === group.leaderId || !member.matches(p.protocols)) {
          return this.updateAndRebalance(group, member, p, `leader or member ${member.memberId} rejoined with changed metadata`);
        }
        this.scheduleHeartbeat(group, member);
        return Promise.resolve(this.joinResultFor(group, member));
      default:
        return Promise.resolve(joinError(p.memberId, 'UNKNOWN_MEMBER_ID'));
    }
  }

  private updateAndRebalance(group: GroupMetadata, member: MemberMetadata, p: Required<JoinGroupParams>, reason: string): Promise<JoinResult> {
    const result = this.updateMember(member, p);
    this.maybePrepareRebalance(group, reason);
    this.tryCompleteJoin(group);
    return result;
  }

  private updateMember(member: MemberMetadata, p: Required<JoinGroupParams>): Promise<JoinResult> {
    member.protocols = p.protocols;
    member.rebalanceTimeoutMs = p.rebalanceTimeoutMs;
    member.sessionTimeoutMs = p.sessionTimeoutMs;
    // A second JoinGroup while one is parked replaces it; the first must still be answered (responses leave a
    // connection in request order).
    member.awaitingJoin?.(joinError(member.memberId, 'REBALANCE_IN_PROGRESS'));
    member.awaitingJoin = null;
    return this.park(member);
  }

  private park(member: MemberMetadata): Promise<JoinResult> {
    return new Promise((resolve) => {
      member.awaitingJoin = resolve;
    });
  }

  private joinResultFor(group: GroupMetadata, member: MemberMetadata): JoinResult {
    const isLeader = member.memberId === group.leaderId;
    const protocol = group.protocolName ?? '';
    return {
      errorCode: ErrorCode.NONE.code,
      generationId: group.generationId,
      protocolType: group.protocolType,
      protocolName: protocol,
      leaderId: group.leaderId ?? '',
      memberId: member.memberId,
      members: isLeader ? [...group.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, metadata: m.metadataFor(protocol) })) : [],
    };
  }

  private maybePrepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is('Stable') || group.is('CompletingRebalance') || group.is('Empty')) this.prepareRebalance(group, reason);
  }

  /**
   * Starts a rebalance: members learn of it through REBALANCE_IN_PROGRESS on heartbeats and must rejoin within the
   * rebalance timeout. A new (Empty) group first waits group.initial.rebalance.delay.ms, extended while members
   * keep arriving, so that a batch of starting consumers lands in one generation (Kafka's InitialDelayedJoin).
   */
  private prepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, 'REBALANCE_IN_PROGRESS');
    group.joinTimer?.cancel();
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance');
    group.rebalanceStartMs = this.clock.nowMs();
    log.info(`Preparing to rebalance group ${group.groupId} in state PreparingRebalance with old generation ${group.generationId} (reason: ${reason})`);
    const delay = this.deps.config.initialRebalanceDelayMs;
    if (initial && delay > 0) {
      group.inInitialDelay = true;
      group.newMemberAdded = false;
      group.joinTimer = this.clock.setTimer(() => this.onInitialDelayExpired(group), Math.min(delay, group.rebalanceTimeoutMs));
    } else {
      group.inInitialDelay = false;
      group.joinTimer = this.clock.setTimer(() => this.onJoinTimeout(group), group.rebalanceTimeoutMs);
    }
  }

  private onInitialDelayExpired(group: GroupMetadata): void {
    if (!group.is('PreparingRebalance')) return;
    const remaining = group.rebalanceTimeoutMs - (this.clock.nowMs() - group.rebalanceStartMs);
    if (group.newMemberAdded && remaining > 0) {
      group.newMemberAdded = false;
      group.joinTimer = this.clock.setTimer(() => this.onInitialDelayExpired(group), Math.min(this.deps.config.initialRebalanceDelayMs, remaining));
      return;
    }
    group.inInitialDelay = false;
    this.completeJoin(group);
  }

  private onJoinTimeout(group: GroupMetadata): void {
    if (group.is('PreparingRebalance')) this.completeJoin(group);
  }

  private tryCompleteJoin(group: GroupMetadata): void {
    if (group.is('PreparingRebalance') && !group.inInitialDelay && group.allMembersJoined) this.completeJoin(group);
  }

  /** Ends the join phase: members that did not rejoin are dropped, the next generation starts, joins are answered. */
  private completeJoin(group: GroupMetadata): void {
    group.joinTimer?.cancel();
    group.joinTimer = null;
    for (const m of group.notYetRejoined()) {
      log.info(`Member ${m.memberId} in group ${group.groupId} has failed, removing it from the group`);
      m.heartbeatTimer?.cancel();
      this.answerParked(m, 'UNKNOWN_MEMBER_ID');
      group.remove(m.memberId);
    }
    group.initNextGeneration();
    if (group.is('Empty')) {
      log.info(`Group ${group.groupId} with generation ${group.generationId} is now empty`);
      return;
    }
    log.info(`Stabilized group ${group.groupId} generation ${group.generationId} with ${group.members.size} members (protocol ${group.protocolName})`);
    for (const m of group.members.values()) {
      const answer = m.awaitingJoin;
      m.awaitingJoin = null;
      m.isNew = false;
      answer?.(this.joinResultFor(group, m));
      this.scheduleHeartbeat(group, m);
    }
  }

  private resetAndPropagateAssignmentError(group: GroupMetadata, error: ErrorName): void {
    for (const m of group.members.values()) {
      m.assignment = EMPTY;
      const sync = m.awaitingSync;
      m.awaitingSync = null;
      sync?.({ errorCode: ErrorCode[error].code, assignment: EMPTY });
    }
  }

  // ---- SyncGroup, Heartbeat, LeaveGroup ------------------------------------------------------------------------

  /**
   * SyncGroup. `protocol` (v5) must match the group's protocol type and name when given
   * (INCONSISTENT_GROUP_PROTOCOL); successful answers carry both.
   */
  syncGroup(
    groupId: string,
    generationId: number,
    memberId: string,
    assignments: { memberId: string; assignment: Buffer }[],
    groupInstanceId: string | null = null,
    protocol: { protocolType: string | null; protocolName: string | null } = { protocolType: null, protocolName: null },
  ): Promise<SyncResult> {
    const fail = (name: ErrorName): Promise<SyncResult> => Promise.resolve({ errorCode: ErrorCode[name].code, assignment: EMPTY });
    const error = this.checkCoordinator(groupId);
    if (error !== null) return fail(error);
    const group = this.groups.get(groupId);
    if (group === undefined) return fail('UNKNOWN_MEMBER_ID');
    const invalid = this.validateCurrentMember(group, memberId, groupInstanceId, 'sync-group');
    if (invalid !== null) return fail(invalid);
    const member = group.members.get(memberId)!;
    if (generationId !== group.generationId) return fail('ILLEGAL_GENERATION');
    if (protocol.protocolType !== null && protocol.protocolType !== group.protocolType) return fail('INCONSISTENT_GROUP_PROTOCOL');
    if (protocol.protocolName !== null && protocol.protocolName !== group.protocolName) return fail('INCONSISTENT_GROUP_PROTOCOL');
    return this.doSyncGroup(group, generationId, member, assignments).then((r) =>
      r.errorCode === ErrorCode.NONE.code ? { ...r, protocolType: group.protocolType, protocolName: group.protocolName } : r,
    );
  }

  private doSyncGroup(group: GroupMetadata, generationId: number, member: MemberMetadata, assignments: { memberId: string; assignment: Buffer }[]): Promise<SyncResult> {
    const fail = (name: ErrorName): Promise<SyncResult> => Promise.resolve({ errorCode: ErrorCode[name].code, assignment: EMPTY });
    const { groupId } = group;
    const memberId = member.memberId;
    switch (group.state) {
      case 'PreparingRebalance':
        return fail('REBALANCE_IN_PROGRESS');
      case 'Stable':
        this.scheduleHeartbeat(group, member);
        return Promise.resolve({ errorCode: ErrorCode.NONE.code, assignment: member.assignment });
      case 'CompletingRebalance': {
        this.scheduleHeartbeat(group, member);
        member.awaitingSync?.({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS.code, assignment: EMPTY });
        const result = new Promise<SyncResult>((resolve) => {
          member.awaitingSync = resolve;
        });
        if (memberId === group.leaderId) {
          const byMember = new Map(assignments.map((a) => [a.memberId, a.assignment]));
          for (const m of group.members.values()) m.assignment = byMember.get(m.memberId) ?? EMPTY;
          group.transitionTo('Stable');
          log.info(`Assignment received from leader ${memberId} for group ${groupId} for generation ${generationId}`);
          for (const m of group.members.values()) {
            const answer = m.awaitingSync;
            m.awaitingSync = null;
            answer?.({ errorCode: ErrorCode.NONE.code, assignment: m.assignment });
          }
        }
        return result;
      }
      default:
        return fail('UNKNOWN_MEMBER_ID');
    }
  }

  heartbeat(groupId: string, generationId: number, memberId: string, groupInstanceId: string | null = null): number {
    const error = this.checkCoordinator(groupId);
    if (error !== null) return ErrorCode[error].code;
    const group = this.groups.get(groupId);
    if (group === undefined || group.is('Empty') || group.is('Dead')) return ErrorCode.UNKNOWN_MEMBER_ID.code;
    const invalid = this.validateCurrentMember(group, memberId, groupInstanceId, 'heartbeat');
    if (invalid !== null) return ErrorCode[invalid].code;
    const member = group.members.get(memberId)!;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION.code;
    this.scheduleHeartbeat(group, member);
    // PreparingRebalance: this answer is how members learn that they must rejoin.
    return group.is('PreparingRebalance') ? ErrorCode.REBALANCE_IN_PROGRESS.code : 0;
  }

  /**
   * Removes members (LeaveGroup v3+ names a batch, each by member id and/or instance id: an empty member id with
   * an instance id removes whichever member holds it); each gets its own error code (top level for v0-2).
   */
  leaveGroup(
    groupId: string,
    leaving: { memberId: string; groupInstanceId: string | null }[],
  ): { errorCode: number; members: { memberId: string; groupInstanceId: string | null; errorCode: number }[] } {
    const error = this.checkCoordinator(groupId);
    if (error !== null) return { errorCode: ErrorCode[error].code, members: [] };
    const group = this.groups.get(groupId);
    const answer = (l: (typeof leaving)[number], name: ErrorName): { memberId: string; groupInstanceId: string | null; errorCode: number } => ({ ...l, errorCode: ErrorCode[name].code });
    if (group === undefined) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID.code, members: leaving.map((l) => answer(l, 'UNKNOWN_MEMBER_ID')) };
    const remove = (memberId: string): void => {
      log.info(`Member ${memberId} in group ${groupId} has left, removing it from the group`);
      this.removeMemberAndUpdateGroup(group, group.members.get(memberId)!);
    };
    const members = leaving.map((l) => {
      if (l.memberId === '') {
        const current = l.groupInstanceId === null ? undefined : group.staticMembers.get(l.groupInstanceId);
        if (current === undefined) return answer(l, 'UNKNOWN_MEMBER_ID');
        remove(current);
        return answer(l, 'NONE');
      }
      const pending = group.pendingMembers.get(l.memberId);
      if (pending !== undefined) {
        pending.cancel();
        group.pendingMembers.delete(l.memberId);
        log.info(`Pending member with memberId=${l.memberId} has left group ${groupId} through explicit \`LeaveGroup\` request`);
        return answer(l, 'NONE');
      }
      const invalid = this.validateCurrentMember(group, l.memberId, l.groupInstanceId, 'leave-group');
      if (invalid !== null) return answer(l, invalid);
      remove(l.memberId);
      return answer(l, 'NONE');
    });
    return { errorCode: leaving.length === 1 ? members[0]!.errorCode : ErrorCode.NONE.code, members };
  }

  private removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata): void {
    member.heartbeatTimer?.cancel();
    this.answerParked(member, 'UNKNOWN_MEMBER_ID');
    group.remove(member.memberId);
    if (group.is('Stable') || group.is('CompletingRebalance')) this.prepareRebalance(group, `removing member ${member.memberId}`);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }

  /**
   * Restarts a member's session timer. While a member's JoinGroup or SyncGroup is parked it cannot heartbeat,
   * so the timer keeps it alive then (the rebalance timeout bounds that wait instead).
   */
  private scheduleHeartbeat(group: GroupMetadata, member: MemberMetadata): void {
    member.heartbeatTimer?.cancel();
    member.heartbeatTimer = this.clock.setTimer(() => {
      if (group.members.get(member.memberId) !== member) return;
      if (member.isAwaitingJoin || member.isAwaitingSync) {
        this.scheduleHeartbeat(group, member);
        return;
      }
      log.info(`Member ${member.memberId} in group ${group.groupId} has failed (session timeout ${member.sessionTimeoutMs} ms), removing it from the group`);
      this.removeMemberAndUpdateGroup(group, member);
    }, member.sessionTimeoutMs);
  }

  // ---- Offsets ---------------------------------------------------------------------------------------------

  /**
   * OffsetCommit v1+. A commit outside group management (generationId < 0) is accepted while the group has no
   * members; otherwise the member and generation must match and the group must not be awaiting its assignment.
   */
  async commitOffsets(groupId: string, generationId: number, memberId: string, offsets: CommitPartition[], groupInstanceId: string | null = null): Promise<number[]> {
    const all = (name: ErrorName): number[] => offsets.map(() => ErrorCode[name].code);
    const error = this.checkCoordinator(groupId);
    if (error !== null) return all(error);
    const group = this.groups.get(groupId);
    if (group === undefined) {
      if (generationId >= 0) return all('ILLEGAL_GENERATION');
    } else if (group.is('Dead')) {
      return all('COORDINATOR_NOT_AVAILABLE');
    } else if (!(generationId < 0 && group.is('Empty'))) {
      if (group.is('CompletingRebalance')) return all('REBALANCE_IN_PROGRESS');
      const invalid = this.validateCurrentMember(group, memberId, groupInstanceId, 'offset-commit');
      if (invalid !== null) return all(invalid);
      const member = group.members.get(memberId)!;
      if (generationId !== group.generationId) return all('ILLEGAL_GENERATION');
      this.scheduleHeartbeat(group, member);
    }
    return this.storeOffsets(groupId, offsets, true);
  }

  /**
   * Appends records to the group's `__consumer_offsets` partition as one batch (Kafka's storeOffsets and
   * storeGroup: the coordinator's append with acks -1), transactional when a producer is given. Resolves with the
   * error OffsetCommit answers, mapped as Kafka's putCacheCallback maps the append's, or undefined.
   */
  private async appendToOffsetsLog(offsetsLog: OffsetsLog, groupId: string, records: OffsetsLogRecord[], producer?: { producerId: number; producerEpoch: number }): Promise<ErrorName | undefined> {
    const error = await offsetsLog.append(this.deps.partitionFor(groupId), records, producer, this.deps.config.offsetCommitTimeoutMs ?? 5000);
    switch (error) {
      case undefined:
        return undefined;
      case 'UNKNOWN_TOPIC_OR_PARTITION':
      case 'NOT_ENOUGH_REPLICAS':
      case 'NOT_ENOUGH_REPLICAS_AFTER_APPEND':
        return 'COORDINATOR_NOT_AVAILABLE';
      case 'NOT_LEADER_OR_FOLLOWER':
      case 'KAFKA_STORAGE_ERROR':
        return 'NOT_COORDINATOR';
      case 'MESSAGE_TOO_LARGE':
      case 'RECORD_LIST_TOO_LARGE':
      case 'INVALID_FETCH_SIZE':
        return 'INVALID_COMMIT_OFFSET_SIZE';
      default:
        return error;
    }
  }

  /** The offset commit records of `offsets`, committed at `now` (a null metadata is stored as "", as Kafka's). */
  private commitRecords(groupId: string, offsets: readonly CommitPartition[], now: number): { records: OffsetsLogRecord[]; values: OffsetCommitValue[] } {
    const values = offsets.map((o) => ({ offset: o.offset, leaderEpoch: o.leaderEpoch ?? -1, metadata: o.metadata ?? '', commitTimestamp: now }));
    return { records: offsets.map((o, i) => ({ key: offsetCommitKey(groupId, o.topic, o.partition), value: offsetCommitValue(values[i]!), timestamp: now })), values };
  }

  private remember(groupId: string, offsets: readonly TopicPartitionOffset[], values: readonly OffsetCommitValue[]): void {
    let cache = this.committedCache.get(groupId);
    if (cache === undefined) this.committedCache.set(groupId, (cache = new Map()));
    offsets.forEach((o, i) => cache.set(tpString(o), values[i]!));
  }

  /**
   * Tombstones for offsets (and, with `group`, for the group itself), where Kafka writes them: OffsetDelete,
   * DeleteGroups and the expiry. A failed append is logged, as Kafka's cleanupGroupMetadata does; ZooKeeper stays
   * the source of the offsets either way.
   */
  private async appendTombstones(groupId: string, partitions: readonly { topic: string; partition: number }[], group: boolean): Promise<void> {
    const cache = this.committedCache.get(groupId);
    for (const p of partitions) cache?.delete(tpString(p));
    if (group) this.committedCache.delete(groupId);
    const offsetsLog = this.deps.offsetsLog;
    if (offsetsLog === undefined || (partitions.length === 0 && !group)) return;
    const now = this.clock.nowMs();
    const records: OffsetsLogRecord[] = partitions.map((p) => ({ key: offsetCommitKey(groupId, p.topic, p.partition), value: null, timestamp: now }));
    if (group) records.push({ key: groupMetadataKey(groupId), value: null, timestamp: now });
    const error = await this.appendToOffsetsLog(offsetsLog, groupId, records).catch((err: unknown) => (err as Error).message);
    if (error !== undefined) this.metadataLog.warn(`Failed to append ${records.length} tombstones to __consumer_offsets-${this.deps.partitionFor(groupId)} for group ${groupId}: ${error}`);
  }

  /**
   * Writes offsets to ZooKeeper without any group membership check: OffsetCommit v0, which any broker answers.
   * The group id must still name a znode (INVALID_GROUP_ID), and a partition of a topic whose name is illegal
   * (which cannot exist) gets UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers for partitions it does not know.
   */
  async storeOffsets(groupId: string, offsets: CommitPartition[], toLog = false): Promise<number[]> {
    if (groupIdError(groupId) !== undefined) return offsets.map(() => ErrorCode.INVALID_GROUP_ID.code);
    const max = this.deps.config.offsetMetadataMaxBytes;
    const errors = offsets.map((o) => {
      if (topicNameError(o.topic) !== undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
      if (o.metadata !== null && Buffer.byteLength(o.metadata, 'utf8') > max) return ErrorCode.OFFSET_METADATA_TOO_LARGE.code;
      return ErrorCode.NONE.code;
    });
    const valid = errors.map((e) => e === ErrorCode.NONE.code);
    const toStore = offsets.filter((_, i) => valid[i]);
    const offsetsLog = this.deps.offsetsLog;
    if (toLog && offsetsLog !== undefined && toStore.length > 0) {
      // The log first (acks -1): what it holds survives a failover; ZooKeeper, the offsets' source, after.
      const { records, values } = this.commitRecords(groupId, toStore, this.clock.nowMs());
      const appendError = await this.appendToOffsetsLog(offsetsLog, groupId, records);
      if (appendError !== undefined) return offsets.map((_, i) => (valid[i] ? ErrorCode[appendError].code : errors[i]!));
      this.remember(groupId, toStore, values);
    }
    const results = await this.deps.offsetStore.commit(groupId, toStore);
    let next = 0;
    return offsets.map((o, i) => {
      if (!valid[i]) return errors[i]!;
      const err = results[next++];
      if (err) {
        log.warn(`Failed to commit offset ${o.offset} of ${tpString(o)} for group ${groupId}`, err);
        return ErrorCode.UNKNOWN_SERVER_ERROR.code;
      }
      return 0;
    });
  }

  /**
   * TxnOffsetCommit (Kafka's handleTxnCommitOffsets): the offsets are checked as OffsetCommit's are, then held
   * pending under the producer id until the transaction's marker reaches this group's offsets partition
   * (`handleTxnCompletion`). A commit without a generation (v0-v2, or generation -1) skips the member checks.
   */
  async txnCommitOffsets(groupId: string, producerId: number, producerEpoch: number, generationId: number, memberId: string, groupInstanceId: string | null, offsets: CommitPartition[]): Promise<number[]> {
    const all = (name: ErrorName): number[] => offsets.map(() => ErrorCode[name].code);
    const error = this.checkCoordinator(groupId);
    if (error !== null) return all(error);
    const group = this.groups.get(groupId);
    if (group?.is('Dead') === true) return all('COORDINATOR_NOT_AVAILABLE');
    if (group !== undefined && (generationId >= 0 || memberId !== '' || groupInstanceId !== null)) {
      const invalid = this.validateCurrentMember(group, memberId, groupInstanceId, 'txn-offset-commit');
      if (invalid !== null) return all(invalid);
      if (generationId !== group.generationId) return all('ILLEGAL_GENERATION');
    } else if (group === undefined && generationId >= 0) {
      return all('ILLEGAL_GENERATION');
    }
    const max = this.deps.config.offsetMetadataMaxBytes;
    const errors = offsets.map((o) => {
      if (topicNameError(o.topic) !== undefined) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
      if (o.metadata !== null && Buffer.byteLength(o.metadata, 'utf8') > max) return ErrorCode.OFFSET_METADATA_TOO_LARGE.code;
      return ErrorCode.NONE.code;
    });
    const accepted = offsets.filter((_, i) => errors[i] === ErrorCode.NONE.code);
    const offsetsLog = this.deps.offsetsLog;
    if (offsetsLog !== undefined && accepted.length > 0) {
      // A transactional batch of the producer: the transaction's marker on this partition completes it, and a
      // coordinator loading the partition after a failover finds it pending (or committed) again.
      const appendError = await this.appendToOffsetsLog(offsetsLog, groupId, this.commitRecords(groupId, accepted, this.clock.nowMs()).records, { producerId, producerEpoch });
      if (appendError !== undefined) return errors.map((e) => (e === ErrorCode.NONE.code ? ErrorCode[appendError].code : e));
    }
    this.pendingTxnOffsets.add(groupId, producerId, accepted);
    return errors;
  }

  /**
   * A transaction marker was written to `__consumer_offsets` partitions (Kafka's scheduleHandleTxnCompletion):
   * the producer's pending offsets of the groups on those partitions are stored (COMMIT) or dropped (ABORT).
   */
  async handleTxnCompletion(producerId: number, offsetsPartitions: readonly number[], commit: boolean): Promise<void> {
    const partitions = new Set(offsetsPartitions);
    // A marker that reaches a partition still loading settles what the load finds pending (Kafka schedules the
    // completion after the load).
    await Promise.all(offsetsPartitions.map((p) => this.loading.get(p)));
    const taken = this.pendingTxnOffsets.take(producerId, (g) => partitions.has(this.partitionFor(g)));
    if (!commit) return;
    // Every group's offsets stay unstable until their own ZooKeeper write is done, the later groups' too.
    const releases = taken.map(({ groupId, offsets }) => this.pendingTxnOffsets.holdWhileStoring(groupId, offsets));
    try {
      for (const { groupId, offsets } of taken) {
        this.remember(groupId, offsets, this.commitRecords(groupId, offsets, this.clock.nowMs()).values);
        const errors = await this.storeOffsets(groupId, offsets);
        errors.forEach((e, i) => {
          if (e !== ErrorCode.NONE.code) log.warn(`Failed to store the transactional offset ${offsets[i]!.offset} of ${tpString(offsets[i]!)} for group ${groupId} (producer ${producerId}): error ${e}`);
        });
      }
    } finally {
      for (const release of releases) release();
    }
  }

  /** Whether an open transaction holds an offset of this group's partition (OffsetFetch's require_stable). */
  hasPendingTxnOffset(groupId: string, tp: { topic: string; partition: number }): boolean {
    return this.pendingTxnOffsets.hasPending(groupId, tp);
  }

  /** OffsetFetch: committed offsets of the given partitions (-1 when none), or of every partition when null. */
  async fetchOffsets(groupId: string, partitions: { topic: string; partition: number }[] | null, checkCoordinator = true): Promise<{ errorCode: number; offsets: FetchedOffset[] }> {
    const r = await this.fetchStoredOffsets(groupId, partitions, checkCoordinator);
    // ZooKeeper holds the offset; the epoch and metadata are those of the log's commit of that same offset (a
    // commit that did not go through the log, OffsetCommit v0 or the ZooKeeper consumer, has none).
    const cache = this.committedCache.get(groupId);
    return {
      errorCode: r.errorCode,
      offsets: r.offsets.map((o) => {
        const c = o.offset < 0 ? undefined : cache?.get(tpString(o));
        return c !== undefined && c.offset === o.offset ? { ...o, leaderEpoch: c.leaderEpoch, metadata: c.metadata } : { ...o, leaderEpoch: -1, metadata: '' };
      }),
    };
  }

  private async fetchStoredOffsets(groupId: string, partitions: { topic: string; partition: number }[] | null, checkCoordinator: boolean): Promise<{ errorCode: number; offsets: TopicPartitionOffset[] }> {
    if (checkCoordinator) {
      const error = this.checkCoordinator(groupId);
      if (error !== null) return { errorCode: ErrorCode[error].code, offsets: [] };
    } else if (groupIdError(groupId) !== undefined) {
      return { errorCode: ErrorCode.INVALID_GROUP_ID.code, offsets: [] };
    }
    if (partitions === null) {
      const all = await this.deps.offsetStore.fetchAll(groupId);
      const offsets: TopicPartitionOffset[] = [];
      for (const [topic, byPartition] of all) for (const [partition, offset] of byPartition) offsets.push({ topic, partition, offset });
      return { errorCode: ErrorCode.NONE.code, offsets };
    }
    // A topic with an illegal name has no offsets (and names no znode): -1 without asking ZooKeeper.
    const legal = partitions.filter((p) => topicNameError(p.topic) === undefined);
    const values = await this.deps.offsetStore.fetchMany(groupId, legal);
    const byKey = new Map(legal.map((p, i) => [tpString(p), values[i]!]));
    return { errorCode: ErrorCode.NONE.code, offsets: partitions.map((p) => ({ ...p, offset: byKey.get(tpString(p)) ?? -1 })) };
  }

  // ---- ListGroups, DescribeGroups, DeleteGroups ------------------------------------------------------------

  /**
   * The groups this broker coordinates: those in memory, plus groups that only have offsets in ZooKeeper
   * (protocol type "", state Empty, as Kafka lists offset-only groups). A non-empty `states` keeps only the groups
   * in one of those states (ListGroups v4, KIP-518; names compared exactly, as Kafka's GroupMetadata.isInStates).
   */
  async listGroups(states: readonly string[] = []): Promise<ListedGroupInfo[]> {
    const result = new Map<string, ListedGroupInfo>();
    for (const g of this.groups.values()) {
      if (this.isCoordinatorFor(g.groupId) && !g.is('Dead')) result.set(g.groupId, { groupId: g.groupId, protocolType: g.protocolType ?? '', state: g.state });
    }
    // Offset-only groups are Empty: only read ZooKeeper when Empty is wanted.
    if (states.length === 0 || states.includes('Empty')) {
      const stored = (await this.deps.offsetStore.allGroups()).filter((g) => !result.has(g) && this.isCoordinatorFor(g));
      const withOffsets = await mapBounded(stored, (g) => this.deps.offsetStore.hasOffsets(g));
      stored.forEach((g, i) => {
        if (withOffsets[i]) result.set(g, { groupId: g, protocolType: '', state: 'Empty' });
      });
    }
    const all = [...result.values()];
    return states.length === 0 ? all : all.filter((g) => states.includes(g.state));
  }

  async describeGroup(groupId: string): Promise<DescribedGroupInfo> {
    const none = (errorCode: number, state: GroupState): DescribedGroupInfo => ({ errorCode, groupId, state, protocolType: '', protocolName: '', members: [] });
    const error = this.checkCoordinator(groupId);
    if (error !== null) return none(ErrorCode[error].code, 'Dead');
    const group = this.groups.get(groupId);
    if (group === undefined || group.is('Dead')) return none(0, (await this.deps.offsetStore.hasOffsets(groupId)) ? 'Empty' : 'Dead');
    // Only a Stable group shows the chosen protocol and each member's metadata and assignment (as Kafka).
    const stable = group.is('Stable');
    const protocol = group.protocolName ?? '';
    return {
      errorCode: ErrorCode.NONE.code,
      groupId,
      state: group.state,
      protocolType: group.protocolType ?? '',
      protocolName: stable ? protocol : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        metadata: stable ? m.metadataFor(protocol) : EMPTY,
        assignment: stable ? m.assignment : EMPTY,
      })),
    };
  }

  /** Deletes groups that have no members: their state here and their offsets in ZooKeeper. */
  async deleteGroups(groupIds: string[]): Promise<{ groupId: string; errorCode: number }[]> {
    return mapBounded(groupIds, async (groupId) => {
      const error = this.checkCoordinator(groupId);
      if (error !== null) return { groupId, errorCode: ErrorCode[error].code };
      const group = this.groups.get(groupId);
      if (group !== undefined && !group.is('Empty') && !group.is('Dead')) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP.code };
      if ((await this.deps.offsetStore.registeredConsumers(groupId)).length > 0) return { groupId, errorCode: ErrorCode.NON_EMPTY_GROUP.code };
      const stored = await this.deps.offsetStore.groupExists(groupId);
      if (group === undefined && !stored) return { groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND.code };
      if (group !== undefined) this.unload(group, 'COORDINATOR_NOT_AVAILABLE');
      // Kafka's removeAllOffsets: a tombstone for each offset the group has, then the group's own.
      const offsets = this.deps.offsetsLog === undefined ? new Map<string, Map<number, number>>() : await this.deps.offsetStore.fetchAll(groupId);
      await this.appendTombstones(groupId, [...offsets].flatMap(([topic, byPartition]) => [...byPartition.keys()].map((partition) => ({ topic, partition }))), true);
      await this.deps.offsetStore.deleteGroup(groupId);
      log.info(`Group ${groupId} deleted`);
      return { groupId, errorCode: ErrorCode.NONE.code };
    });
  }

  // ---- Offset expiry --------------------------------------------------------------------------------------

  /**
   * Kafka 2.8's GroupMetadataManager.cleanupGroupMetadata, every offsets.retention.check.interval.ms: the expired
   * offsets (see expiredOffsets) of every group this broker coordinates are deleted from ZooKeeper (Kafka writes
   * tombstones), and a group left Empty without offsets becomes Dead and is removed, znodes included. Groups of
   * ZooKeeper-based consumers (`/consumers/<group>/ids`) are left alone, as Kafka never expired them. Resolves with
   * the number of offsets removed.
   */
  async cleanupGroupMetadata(): Promise<number> {
    if (!this.active) return 0;
    const startMs = this.clock.nowMs();
    const retentionMs = this.deps.config.offsetsRetentionMs ?? DEFAULT_OFFSETS_RETENTION_MS;
    const stored = await this.deps.offsetStore.allGroups().catch((err: unknown) => {
      this.metadataLog.warn('Could not list the groups under /consumers for the offset expiry', err);
      return [] as string[];
    });
    const candidates = new Set([...stored, ...this.groups.keys()].filter((g) => groupIdError(g) === undefined && this.isCoordinatorFor(g)));
    let removed = 0;
    for (const groupId of candidates) {
      try {
        removed += await this.cleanupGroup(groupId, startMs, retentionMs);
      } catch (err) {
        this.metadataLog.warn(`Could not expire the offsets of group ${groupId}`, err);
      }
    }
    if (removed > 0) this.metadataLog.info(`Removed ${removed} expired offsets in ${this.clock.nowMs() - startMs} milliseconds.`);
    return removed;
  }

  private async cleanupGroup(groupId: string, nowMs: number, retentionMs: number): Promise<number> {
    const view = this.expiryView(this.groups.get(groupId));
    if (view === null) return 0;
    if (await this.deps.offsetStore.isZookeeperConsumerGroup(groupId)) return 0;
    const offsets = await this.deps.offsetStore.fetchAllWithCommitTimes(groupId);
    // Kafka spares a partition an open transaction will commit (removeExpiredOffsets' pendingTransactionalOffsetCommits).
    const expired = new Set(expiredOffsets(view, offsets, nowMs, retentionMs).filter((o) => !this.pendingTxnOffsets.hasPending(groupId, o)));
    const deleted = expired.size === 0 ? [] : await this.deps.offsetStore.deleteExpired(groupId, offsets.filter((o) => expired.has(o)));
    // The group may have changed while ZooKeeper answered: decide on what it is now.
    const group = this.groups.get(groupId);
    const left = offsets.length - deleted.length;
    const groupGone = left === 0 && (group === undefined || group.is('Empty')) && this.isCoordinatorFor(groupId);
    // Kafka's cleanupGroupMetadata: a tombstone per expired offset, and the group's own once it is Dead.
    if (deleted.length > 0 || (groupGone && this.committedCache.has(groupId))) await this.appendTombstones(groupId, deleted, groupGone);
    if (groupGone) {
      if (group !== undefined) {
        this.metadataLog.info(`Group ${groupId} transitioned to Dead in generation ${group.generationId}`);
        this.unload(group, 'COORDINATOR_NOT_AVAILABLE');
      }
      await this.deps.offsetStore.removeEmptyGroup(groupId);
    }
    return deleted.length;
  }

  /** What the expiry reads of a group (null: nothing can expire, so ZooKeeper is not read). */
  private expiryView(group: GroupMetadata | undefined): GroupExpiryView | null {
    if (group === undefined || group.is('Dead')) return OFFSET_ONLY_GROUP;
    const view: GroupExpiryView = {
      state: group.state,
      protocolType: group.protocolType,
      currentStateTimestamp: group.currentStateTimestamp,
      subscribedTopics: group.protocolType === 'consumer' && group.protocolName !== null ? subscribedTopics(group) : null,
    };
    if (view.protocolType !== null && view.state !== 'Empty' && view.subscribedTopics === null) return null;
    return view;
  }

  // ---- OffsetDelete ----------------------------------------------------------------------------------------

  /**
   * Kafka's handleDeleteOffsets: the group-level error (validateGroupStatus: INVALID_GROUP_ID for an empty or
   * unusable id, COORDINATOR_NOT_AVAILABLE, NOT_COORDINATOR; GROUP_ID_NOT_FOUND when neither members nor offsets
   * exist; NON_EMPTY_GROUP for a group with members that is not a consumer-protocol group, or one with
   * ZooKeeper-based consumers registered), else per partition: GROUP_SUBSCRIBED_TO_TOPIC for the topics a
   * consumer group's members subscribe to, and the others' offsets deleted from ZooKeeper.
   */
  async deleteOffsets(groupId: string, partitions: readonly { topic: string; partition: number }[]): Promise<{ errorCode: number; partitions: { topic: string; partition: number; errorCode: number }[] }> {
    const groupError = (name: ErrorName): { errorCode: number; partitions: [] } => ({ errorCode: ErrorCode[name].code, partitions: [] });
    if (groupId === '') return groupError('INVALID_GROUP_ID');
    const error = this.checkCoordinator(groupId);
    if (error !== null) return groupError(error);
    const group = this.groups.get(groupId);
    let subscribed: ReadonlySet<string> = new Set();
    if (group === undefined || group.is('Dead') || group.is('Empty')) {
      if ((await this.deps.offsetStore.registeredConsumers(groupId)).length > 0) return groupError('NON_EMPTY_GROUP');
      // A group without members is known by its offsets: once they are all deleted it is gone (Kafka's cleanupGroupMetadata).
      if ((group === undefined || group.is('Dead')) && !(await this.deps.offsetStore.hasOffsets(groupId))) return groupError('GROUP_ID_NOT_FOUND');
    } else if (group.protocolType === 'consumer') {
      subscribed = subscribedTopics(group);
    } else {
      return groupError('NON_EMPTY_GROUP');
    }
    const eligible = partitions.filter((p) => !subscribed.has(p.topic));
    if (eligible.length > 0) {
      await this.appendTombstones(groupId, eligible, false);
      await this.deps.offsetStore.deleteOffsets(groupId, eligible);
      log.info(`The following offsets of the group ${groupId} were deleted: ${eligible.map(tpString).join(', ')}. `);
    }
    return {
      errorCode: ErrorCode.NONE.code,
      partitions: partitions.map((p) => ({ ...p, errorCode: subscribed.has(p.topic) ? ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC.code : ErrorCode.NONE.code })),
    };
  }
}

/**
 * The topics a consumer group's members subscribe to under the chosen protocol (Kafka's subscribedTopics, set
 * with each generation): none before the first generation, or when a member's subscription cannot be read.
 */
function subscribedTopics(group: GroupMetadata): Set<string> {
  const protocol = group.protocolName;
  if (protocol === null) return new Set();
  try {
    return new Set([...group.members.values()].flatMap((m) => decodeSubscription(m.metadataFor(protocol)).topics));
  } catch {
    return new Set();
  }
}
