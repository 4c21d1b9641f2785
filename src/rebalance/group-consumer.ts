import { NetworkClient } from '../client/network-client';
import { authorizationError } from '../client/authorization-error';
import { ConsumedRecord, PartitionConsumer } from '../client/partition-consumer';
import { ErrorCode, errorName } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { Scheduler } from '../common/scheduler';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { INTERNAL_TOPICS } from '../common/topic';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { FindCoordinatorApi } from '../protocol/apis/find-coordinator';
import { HeartbeatApi } from '../protocol/apis/heartbeat';
import { JoinGroupApi } from '../protocol/apis/join-group';
import { LeaveGroupApi } from '../protocol/apis/leave-group';
import { OffsetCommitApi } from '../protocol/apis/offset-commit';
import { OffsetFetchApi } from '../protocol/apis/offset-fetch';
import { SyncGroupApi } from '../protocol/apis/sync-group';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from './consumer-protocol';
import { rangeAssign } from './range-assignor';

/**
 * Kafka's (consumer protocol) RoundRobinAssignor: every partition of the subscribed topics, ordered by topic and
 * partition, dealt in turn to the members sorted by id, skipping members not subscribed to its topic. Keys are
 * `<memberId>-0`, as rangeAssign's.
 */
function roundRobinAssign(subscriptions: ReadonlyMap<string, ReadonlyMap<string, number>>, partitions: ReadonlyMap<string, readonly number[]>): Map<string, TopicPartition[]> {
  const members = [...subscriptions.keys()].sort();
  const result = new Map<string, TopicPartition[]>(members.map((m) => [`${m}-0`, []]));
  const all = [...partitions.keys()].sort().flatMap((topic) => [...(partitions.get(topic) ?? [])].sort((a, b) => a - b).map((partition) => ({ topic, partition })));
  let next = 0;
  for (const tp of all) {
    for (let tried = 0; tried < members.length; tried++) {
      const member = members[next % members.length] as string;
      next++;
      if (subscriptions.get(member)?.has(tp.topic)) {
        result.get(`${member}-0`)?.push(tp);
        break;
      }
    }
  }
  return result;
}

export interface GroupConsumerConfig {
  groupId: string;
  /** A topic list, or a regex over the cluster's topics (internal topics excluded). */
  topics?: string[];
  pattern?: RegExp;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  autoOffsetReset?: 'earliest' | 'latest';
  enableAutoCommit?: boolean;
  autoCommitIntervalMs?: number;
  /** group.instance.id: a static member (KIP-345), which sends no LeaveGroup on close. */
  groupInstanceId?: string | null;
  /** The consumer protocol's assignor: Kafka's RangeAssignor ("range") or RoundRobinAssignor ("roundrobin"). */
  assignor?: 'range' | 'roundrobin';
  /** Kafka's ConsumerRebalanceListener (the eager protocol: everything is revoked before each join). */
  listener?: RebalanceListener;
  /** isolation.level: read_committed fetches stop at the last stable offset and skip aborted transactions. */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
}

export interface RebalanceListener {
  /** Awaited before the JoinGroup (kafka-mirror-maker flushes its producer and commits here). */
  onPartitionsRevoked(partitions: TopicPartition[]): void | Promise<void>;
  onPartitionsAssigned(partitions: TopicPartition[]): void;
}

const COORDINATOR_ERRORS = new Set([ErrorCode.NOT_COORDINATOR.code, ErrorCode.COORDINATOR_NOT_AVAILABLE.code, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code]);
const REJOIN_ERRORS = new Set([ErrorCode.REBALANCE_IN_PROGRESS.code, ErrorCode.ILLEGAL_GENERATION.code, ErrorCode.UNKNOWN_MEMBER_ID.code]);

/**
 * A group member of the modern consumer protocol (Kafka's ConsumerCoordinator, reduced to what the console
 * consumer needs): finds the coordinator, joins with the "range" assignor (the leader assigns from every
 * member's subscription), heartbeats in the background, rejoins when told to, fetches its partitions from the
 * leaders, commits offsets with its generation, and leaves the group on close.
 */
export class GroupConsumer {
  private readonly cfg: Required<Omit<GroupConsumerConfig, 'topics' | 'pattern' | 'listener'>> & Pick<GroupConsumerConfig, 'topics' | 'pattern' | 'listener'>;
  private readonly log: Logger;
  private coordinator: number | undefined;
  private memberId = '';
  private generationId = -1;
  private needsJoin = true;
  private joining = false;
  private fetcher: PartitionConsumer | undefined;
  private assigned: TopicPartition[] = [];
  private readonly consumed = new Map<string, number>();
  private buffer: ConsumedRecord[] = [];
  /** Runs the heartbeat (Kafka's AbstractCoordinator heartbeat thread): a run never overlaps the previous one. */
  private readonly scheduler: Scheduler;
  private lastCommitMs: number;
  private closed = false;

  constructor(
    private readonly client: NetworkClient,
    config: GroupConsumerConfig,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {
    this.scheduler = new Scheduler(clock);
    this.lastCommitMs = clock.nowMs();
    if ((config.topics === undefined) === (config.pattern === undefined)) throw new Error('Exactly one of topics/pattern is required.');
    this.cfg = {
      groupId: config.groupId,
      topics: config.topics,
      pattern: config.pattern,
      sessionTimeoutMs: config.sessionTimeoutMs ?? 10000,
      rebalanceTimeoutMs: config.rebalanceTimeoutMs ?? 60000,
      heartbeatIntervalMs: config.heartbeatIntervalMs ?? 3000,
      autoOffsetReset: config.autoOffsetReset ?? 'latest',
      enableAutoCommit: config.enableAutoCommit ?? true,
      autoCommitIntervalMs: config.autoCommitIntervalMs ?? 5000,
      groupInstanceId: config.groupInstanceId ?? null,
      assignor: config.assignor ?? 'range',
      listener: config.listener,
      isolationLevel: config.isolationLevel ?? 'read_uncommitted',
    };
    this.log = getLogger('org.apache.kafka.clients.consumer.internals.ConsumerCoordinator', `[Consumer groupId=${config.groupId}] `);
  }

  get assignment(): TopicPartition[] {
    return [...this.assigned];
  }

  private async findCoordinator(): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      const r = await this.client.request('any', FindCoordinatorApi, { key: this.cfg.groupId, keyType: 0 });
      if (r.errorCode === ErrorCode.NONE.code) {
        if (this.client.metadata.broker(r.nodeId) === undefined) await this.client.refreshMetadata();
        this.log.info(`Discovered group coordinator ${r.host}:${r.port} (id: ${r.nodeId})`);
        return r.nodeId;
      }
      if (!COORDINATOR_ERRORS.has(r.errorCode) || attempt > 300) throw authorizationError(r.errorCode, { group: this.cfg.groupId });
      await this.clock.sleep(100);
    }
  }

  private async subscribedTopics(): Promise<string[]> {
    if (this.cfg.topics !== undefined) {
      await this.client.refreshMetadata(this.cfg.topics);
      // Kafka's consumer: a subscribed topic the metadata refuses fails the poll (TopicAuthorizationException).
      const refused = this.cfg.topics.filter((t) => this.client.metadata.topics.get(t)?.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code);
      if (refused.length > 0) throw authorizationError(ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, { topics: refused });
      return [...this.cfg.topics];
    }
    await this.client.refreshMetadata(null);
    return [...this.client.metadata.topics.keys()].filter((t) => this.cfg.pattern!.test(t) && !INTERNAL_TOPICS.has(t)).sort();
  }

  /** JoinGroup then SyncGroup until a generation is reached (Kafka's ensureActiveGroup). */
  private async join(): Promise<void> {
    this.joining = true;
    // Kafka's onJoinPrepare under the eager protocol: the whole assignment is revoked, even an empty one.
    try {
      await this.cfg.listener?.onPartitionsRevoked([...this.assigned]);
      for (;;) {
        if (this.closed) return;
        this.coordinator ??= await this.findCoordinator();
        const topics = await this.subscribedTopics();
        const joined = await this.client.request(
          this.coordinator,
          JoinGroupApi,
          {
            groupId: this.cfg.groupId,
            sessionTimeoutMs: this.cfg.sessionTimeoutMs,
            rebalanceTimeoutMs: this.cfg.rebalanceTimeoutMs,
            memberId: this.memberId,
            groupInstanceId: this.cfg.groupInstanceId,
            protocolType: 'consumer',
            protocols: [{ name: this.cfg.assignor, metadata: encodeSubscription(topics) }],
          },
          { timeoutMs: this.cfg.rebalanceTimeoutMs + 5000 },
        );
        if (joined.errorCode !== ErrorCode.NONE.code) {
          await this.onJoinError(joined.errorCode, joined.memberId);
          continue;
        }
        this.memberId = joined.memberId;
        this.generationId = joined.generationId;
        const assignments = joined.leader === joined.memberId ? await this.assign(joined.members) : [];
        const synced = await this.client.request(this.coordinator, SyncGroupApi, {
          groupId: this.cfg.groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId: this.cfg.groupInstanceId,
          // SyncGroup v5: the coordinator checks these against the generation it answered.
          protocolType: joined.protocolType,
          protocolName: joined.protocolName,
          assignments,
        });
        if (synced.errorCode !== ErrorCode.NONE.code) {
          await this.onJoinError(synced.errorCode, this.memberId);
          continue;
        }
        const partitions = decodeAssignment(synced.assignment).partitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
        await this.install(partitions);
        this.needsJoin = false;
        this.log.info(`Successfully joined group with generation ${this.generationId}; assigned partitions: ${partitions.map(tpString).join(', ')}`);
        this.cfg.listener?.onPartitionsAssigned([...partitions]);
        return;
      }
    } finally {
      this.joining = false;
    }
  }

  private async onJoinError(errorCode: number, memberId: string): Promise<void> {
    const name = errorName(errorCode);
    this.log.info(`JoinGroup/SyncGroup failed with ${name}; retrying`);
    if (errorCode === ErrorCode.MEMBER_ID_REQUIRED.code) this.memberId = memberId;
    else if (errorCode === ErrorCode.UNKNOWN_MEMBER_ID.code || errorCode === ErrorCode.ILLEGAL_GENERATION.code) this.memberId = errorCode === ErrorCode.UNKNOWN_MEMBER_ID.code ? '' : this.memberId;
    else if (COORDINATOR_ERRORS.has(errorCode)) this.coordinator = undefined;
    else if (errorCode !== ErrorCode.REBALANCE_IN_PROGRESS.code) throw authorizationError(errorCode, { group: this.cfg.groupId });
    await this.clock.sleep(100);
  }

  /** The leader's job: range-assign every member's subscribed topics (members ordered by id, as Kafka's). */
  private async assign(members: { memberId: string; metadata: Buffer }[]): Promise<{ memberId: string; assignment: Buffer }[]> {
    const subscriptions = new Map(members.map((m) => [m.memberId, new Map(decodeSubscription(m.metadata).topics.map((t) => [t, 1]))]));
    const topics = [...new Set([...subscriptions.values()].flatMap((s) => [...s.keys()]))];
    await this.client.refreshMetadata(topics);
    const partitions = new Map(topics.map((t) => [t, (this.client.metadata.topics.get(t)?.partitions ?? []).map((p) => p.partition)]));
    const byThread = this.cfg.assignor === 'roundrobin' ? roundRobinAssign(subscriptions, partitions) : rangeAssign(subscriptions, partitions);
    return members.map((m) => {
      const tps = byThread.get(`${m.memberId}-0`) ?? [];
      const byTopic = new Map<string, number[]>();
      for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
      return { memberId: m.memberId, assignment: encodeAssignment([...byTopic].map(([topic, ps]) => ({ topic, partitions: ps }))) };
    });
  }

  /** Starts fetching the new assignment from the committed offsets (auto.offset.reset where there are none). */
  private async install(partitions: TopicPartition[]): Promise<void> {
    this.assigned = partitions;
    this.buffer = [];
    this.consumed.clear();
    const fetcher = new PartitionConsumer(this.client, { maxWaitMs: 100, isolationLevel: this.cfg.isolationLevel });
    if (partitions.length > 0) {
      const fetched = await this.client.request(this.coordinator!, OffsetFetchApi, {
        groupId: this.cfg.groupId,
        topics: [...new Set(partitions.map((p) => p.topic))].map((name) => ({ name, partitionIndexes: partitions.filter((p) => p.topic === name).map((p) => p.partition) })),
        requireStable: false,
      });
      if (fetched.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED.code) throw authorizationError(fetched.errorCode, { group: this.cfg.groupId });
      const committed = new Map<string, number>(fetched.topics.flatMap((t) => t.partitions.map((p): [string, number] => [tpKey(t.name, p.partitionIndex), p.committedOffset])));
      for (const tp of partitions) {
        const offset = committed.get(tpString(tp)) ?? -1;
        await fetcher.assign([tp], offset >= 0 ? offset : this.cfg.autoOffsetReset);
        this.consumed.set(tpString(tp), fetcher.position(tp)!);
      }
    }
    this.fetcher = fetcher;
  }

  async start(): Promise<void> {
    await this.join();
    this.scheduler.schedule('heartbeat', () => this.heartbeat(), this.cfg.heartbeatIntervalMs, this.cfg.heartbeatIntervalMs);
  }

  private async heartbeat(): Promise<void> {
    if (this.joining || this.needsJoin || this.closed || this.coordinator === undefined) return;
    try {
      const r = await this.client.request(this.coordinator, HeartbeatApi, { groupId: this.cfg.groupId, generationId: this.generationId, memberId: this.memberId, groupInstanceId: this.cfg.groupInstanceId });
      if (r.errorCode === ErrorCode.NONE.code) return;
      this.log.info(`Heartbeat answered ${errorName(r.errorCode)}: rejoining`);
      if (COORDINATOR_ERRORS.has(r.errorCode)) this.coordinator = undefined;
      if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID.code) this.memberId = '';
      if (REJOIN_ERRORS.has(r.errorCode) || COORDINATOR_ERRORS.has(r.errorCode)) this.needsJoin = true;
    } catch {
      this.coordinator = undefined;
      this.needsJoin = true;
    }
  }

  /** Up to `max` records; rejoins first when the group is rebalancing. Records count as consumed once returned. */
  async poll(max = Number.MAX_SAFE_INTEGER): Promise<ConsumedRecord[]> {
    if (this.needsJoin) {
      if (this.cfg.enableAutoCommit) await this.commit().catch(() => undefined);
      await this.join();
    }
    if (this.cfg.enableAutoCommit && this.clock.nowMs() - this.lastCommitMs >= this.cfg.autoCommitIntervalMs) await this.commit().catch(() => undefined);
    if (this.buffer.length === 0) {
      if (this.fetcher === undefined || this.assigned.length === 0) {
        await this.clock.sleep(100);
        return [];
      }
      this.buffer = await this.fetcher.poll();
    }
    const out = this.buffer.splice(0, max);
    for (const r of out) this.consumed.set(tpString(r), r.offset + 1);
    return out;
  }

  /**
   * Commits the consumed position of every assigned partition with this member's generation, or the given
   * offsets (Kafka's commitSync(offsets)).
   */
  async commit(offsets?: ReadonlyMap<string, { tp: TopicPartition; offset: number }>): Promise<void> {
    this.lastCommitMs = this.clock.nowMs();
    if (this.coordinator === undefined || (offsets === undefined && this.assigned.length === 0)) return;
    if (offsets !== undefined && offsets.size === 0) return;
    const topics = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; commitTimestamp: number; committedMetadata: string }[]>();
    for (const tp of offsets === undefined ? this.assigned : [...offsets.values()].map((o) => o.tp)) {
      const offset = offsets === undefined ? this.consumed.get(tpString(tp)) : offsets.get(tpString(tp))?.offset;
      if (offset === undefined) continue;
      topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), { partitionIndex: tp.partition, committedOffset: offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' }]);
    }
    const r = await this.client.request(this.coordinator, OffsetCommitApi, {
      groupId: this.cfg.groupId,
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: this.cfg.groupInstanceId,
      retentionTimeMs: -1,
      topics: [...topics].map(([name, partitions]) => ({ name, partitions })),
    });
    const failed = r.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== ErrorCode.NONE.code);
    if (failed !== undefined) {
      if (REJOIN_ERRORS.has(failed.errorCode)) this.needsJoin = true;
      if (COORDINATOR_ERRORS.has(failed.errorCode)) this.coordinator = undefined;
      throw KafkaError.fromCode(failed.errorCode, `Offset commit failed: ${errorName(failed.errorCode)}`);
    }
  }

  /** Commits (auto commit on) and leaves the group so that the others rebalance at once. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.scheduler.shutdown();
    if (this.cfg.enableAutoCommit && !this.needsJoin) await this.commit().catch((err: unknown) => this.log.warn('Offset commit on close failed', err));
    this.closed = true;
    // A static member leaves by session expiry only (Kafka's consumers send no LeaveGroup for one).
    if (this.coordinator !== undefined && this.memberId !== '' && this.cfg.groupInstanceId === null) {
      await this.client
        .request(this.coordinator, LeaveGroupApi, { groupId: this.cfg.groupId, memberId: this.memberId, members: [{ memberId: this.memberId, groupInstanceId: null }] })
        .catch(() => undefined);
    }
  }
}
