import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { NetworkClient } from '../client/network-client';
import { ConsumedRecord, PartitionConsumer } from '../client/partition-consumer';
import { SerialQueue } from '../common/serial-queue';
import { Scheduler, ScheduledTask } from '../common/scheduler';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { INTERNAL_TOPICS, topicNameError } from '../common/topic';
import { TopicPartition, tpString } from '../common/topic-partition';
import { AdminZk } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkError } from '../zk/zk-error';
import { ZkPaths } from '../zk/zk-paths';
import { watchChildren, watchData, ZkWatch } from '../zk/zk-watch';
import { ConsumerOwnerZNode, ConsumerRegistration, ConsumerRegistrationZNode } from '../zk/znodes/consumer-znodes';
import { threadIds } from './consumer-threads';
import { oldConsumerConfigError } from './group-id';
import { assignorFor, PartitionAssignor } from './partition-assignor';
import { ZkOffsetStore } from './zk-offset-store';

export interface ZookeeperConsumerConfig {
  /** zookeeper.connect, with the cluster's chroot. */
  zkConnect: string;
  groupId: string;
  /** consumer.id: only for tests; generated from host, time and a UUID otherwise. */
  consumerId?: string;
  /** Exactly one: a static topic list, or a whitelist regex (registered as pattern white_list). */
  topics?: string[];
  whitelist?: string;
  /** Streams (threads) per topic; the consumer hands out all its threads' records through one poll(). */
  streams?: number;
  zkSessionTimeoutMs?: number;
  autoCommitEnable?: boolean;
  autoCommitIntervalMs?: number;
  autoOffsetReset?: 'smallest' | 'largest';
  rebalanceMaxRetries?: number;
  rebalanceBackoffMs?: number;
  partitionAssignmentStrategy?: 'range' | 'roundrobin';
  excludeInternalTopics?: boolean;
  /** fetch.wait.max.ms. */
  fetchWaitMaxMs?: number;
  clientId?: string;
  /** isolation.level (the fetches go through PartitionConsumer, which reads transactional batches). */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
}

export class ConsumerRebalanceFailedError extends Error {}

/** A consumer configuration Kafka's old ConsumerConfig refuses (kafka.common.InvalidConfigException). */
export class InvalidConfigError extends Error {}


/** The topic filter of a wildcard registration (its one subscription key, ',' meaning '|'). */
function subscriptionRegex(reg: ConsumerRegistration): RegExp {
  const [regex] = [...reg.subscription.keys()];
  if (regex === undefined) throw new Error('wildcard subscription without a pattern');
  return new RegExp(`^(?:${regex.replace(/,/g, '|')})$`);
}

function isZkCode(err: unknown, code: string): boolean {
  return err instanceof ZkError && err.code === code;
}

/**
 * The 0.8 high-level consumer (Kafka's ZookeeperConsumerConnector) as a library: it registers under
 * /consumers/<group>/ids, and on every membership or partition change each member independently releases its
 * partitions, computes the same assignment (range or roundrobin), and claims its share with ephemeral
 * /owners nodes. A claim that finds a node still held by a slower member fails the attempt, which is retried
 * after rebalance.backoff.ms up to rebalance.max.retries times: ownership nodes are what guarantee that no two
 * members consume a partition at once. Records are fetched from the leaders; offsets are committed to
 * /consumers/<group>/offsets, the store the group coordinator shares.
 *
 * Usage: `await consumer.start()`, then `poll()` in a loop (records are consumed once returned), `commitOffsets()`
 * when auto commit is off, and `close()`.
 */
export class ZookeeperConsumer {
  readonly consumerId: string;
  private readonly cfg: Required<Omit<ZookeeperConsumerConfig, 'consumerId' | 'topics' | 'whitelist' | 'clientId'>> & Pick<ZookeeperConsumerConfig, 'topics' | 'whitelist'> & { clientId: string };
  private readonly log: Logger;
  private readonly assignor: PartitionAssignor;
  private zk: ZkClient | undefined;
  private store: ZkOffsetStore | undefined;
  private client: NetworkClient | undefined;
  private fetcher: PartitionConsumer | undefined;
  private readonly watches: ZkWatch[] = [];
  private readonly topicWatches = new Map<string, ZkWatch>();
  /** Owned partitions -> owning thread id. */
  private readonly owned = new Map<string, { tp: TopicPartition; threadId: string }>();
  /** Next offset to consume per owned partition (what a commit writes), and what was last written. */
  private readonly consumed = new Map<string, number>();
  private readonly committed = new Map<string, number>();
  private buffer: ConsumedRecord[] = [];
  private rebalanceNeeded = true;
  /** Completed rebalances: start() returns after the first. */
  private rebalances = 0;
  private failure: Error | undefined;
  /** Rebalances, fetches and commits run one at a time (Kafka's rebalanceLock). */
  private readonly lock = new SerialQueue();
  private readonly clock: Clock;
  private autoCommitTask: ScheduledTask | undefined;
  private scheduler: Scheduler | undefined;
  private rebalanceLoop: Promise<void> | undefined;
  /** Aborted to wake the rebalance loop early (a watch fired, or close). */
  private wakeUp = new AbortController();
  private closed = false;

  constructor(config: ZookeeperConsumerConfig, clock: Clock = SYSTEM_CLOCK) {
    this.clock = clock;
    if ((config.topics === undefined) === (config.whitelist === undefined)) throw new Error('Exactly one of topics/whitelist is required.');
    // Kafka's ConsumerConfig.validate: group.id and client.id by validateChars; consumer.id and the topics, which
    // also become znode names, must be legal too.
    for (const [prop, value] of [['group.id', config.groupId], ['client.id', config.clientId], ['consumer.id', config.consumerId]] as const) {
      const error = value === undefined ? undefined : oldConsumerConfigError(prop, value);
      if (error !== undefined) throw new InvalidConfigError(error);
    }
    for (const t of config.topics ?? []) {
      const error = topicNameError(t);
      if (error !== undefined) throw new InvalidConfigError(error);
    }
    if (config.whitelist !== undefined) {
      try {
        new RegExp(config.whitelist);
      } catch {
        throw new InvalidConfigError(`${config.whitelist} is an invalid regex.`);
      }
    }
    const reset = config.autoOffsetReset ?? 'largest';
    if (reset !== 'smallest' && reset !== 'largest') throw new Error(`Wrong value ${String(reset)} of auto.offset.reset in ConsumerConfig; Valid values are smallest and largest`);
    this.cfg = {
      zkConnect: config.zkConnect,
      groupId: config.groupId,
      topics: config.topics,
      whitelist: config.whitelist,
      streams: config.streams ?? 1,
      zkSessionTimeoutMs: config.zkSessionTimeoutMs ?? 6000,
      autoCommitEnable: config.autoCommitEnable ?? true,
      autoCommitIntervalMs: config.autoCommitIntervalMs ?? 60000,
      autoOffsetReset: reset,
      rebalanceMaxRetries: config.rebalanceMaxRetries ?? 4,
      rebalanceBackoffMs: config.rebalanceBackoffMs ?? 2000,
      partitionAssignmentStrategy: config.partitionAssignmentStrategy ?? 'range',
      excludeInternalTopics: config.excludeInternalTopics ?? true,
      fetchWaitMaxMs: config.fetchWaitMaxMs ?? 100,
      clientId: config.clientId ?? config.groupId,
      isolationLevel: config.isolationLevel ?? 'read_uncommitted',
    };
    this.assignor = assignorFor(this.cfg.partitionAssignmentStrategy);
    const uuid = randomUUID().replace(/-/g, '').slice(0, 8);
    this.consumerId = `${config.groupId}_${config.consumerId ?? `${hostname()}-${clock.nowMs()}-${uuid}`}`;
    this.log = getLogger('kafka.consumer.ZookeeperConsumerConnector', `[${this.consumerId}], `);
  }

  /** The partitions this member owns now. */
  get assignment(): TopicPartition[] {
    return [...this.owned.values()].map((o) => o.tp);
  }

  private get zkc(): ZkClient {
    if (this.zk === undefined) throw new Error('The consumer is not started');
    return this.zk;
  }

  private registration(): ConsumerRegistration {
    const subscription = new Map<string, number>();
    if (this.cfg.whitelist !== undefined) subscription.set(this.cfg.whitelist, this.cfg.streams);
    else for (const t of this.cfg.topics ?? []) subscription.set(t, this.cfg.streams);
    return { subscription, pattern: this.cfg.whitelist !== undefined ? 'white_list' : 'static', timestamp: this.clock.nowMs() };
  }

  async start(): Promise<void> {
    this.log.info(`Connecting to zookeeper instance at ${this.cfg.zkConnect}`);
    this.zk = await ZkClient.connect({ connectString: this.cfg.zkConnect, sessionTimeoutMs: this.cfg.zkSessionTimeoutMs, connectionTimeoutMs: this.cfg.zkSessionTimeoutMs, name: this.consumerId });
    this.store = new ZkOffsetStore(this.zk);
    await this.register();
    this.zk.onSessionReinitialized(async () => {
      // The old session's ephemeral registration and owner nodes are gone with it.
      this.log.info(`ZK expired; release old broker parition ownership; re-register consumer ${this.consumerId}`);
      this.owned.clear();
      await this.register();
      this.triggerRebalance();
    });
    this.watches.push(watchChildren(this.zk, ZkPaths.consumerIds(this.cfg.groupId), () => this.triggerRebalance()));
    if (this.cfg.whitelist !== undefined) this.watches.push(watchChildren(this.zk, ZkPaths.topics, () => this.triggerRebalance()));
    else for (const t of this.cfg.topics ?? []) this.watchTopic(t);
    if (this.cfg.autoCommitEnable) {
      this.log.info(`starting auto committer every ${this.cfg.autoCommitIntervalMs} ms`);
      this.scheduler = new Scheduler(this.clock);
      const interval = this.cfg.autoCommitIntervalMs;
      this.autoCommitTask = this.scheduler.schedule(
        'kafka-consumer-autocommit',
        () => this.lock.run(() => this.commitOffsets()).catch((err: unknown) => this.log.warn('exception during autoCommit', err)),
        interval,
        interval,
      );
    }
    this.rebalanceLoop = this.runRebalanceLoop();
    await this.waitForFirstRebalance();
  }

  private watchTopic(topic: string): void {
    if (this.topicWatches.has(topic)) return;
    this.topicWatches.set(topic, watchData(this.zkc, ZkPaths.topic(topic), () => this.triggerRebalance()));
  }

  private async register(): Promise<void> {
    this.log.info(`begin registering consumer ${this.consumerId} in ZK`);
    const path = ZkPaths.consumerId(this.cfg.groupId, this.consumerId);
    await this.zkc.ensurePath(ZkPaths.consumerIds(this.cfg.groupId));
    try {
      await this.zkc.create(path, ConsumerRegistrationZNode.encode(this.registration()), 'EPHEMERAL');
    } catch (err) {
      // A create retried after a connection loss may find its own node.
      if (!isZkCode(err, 'NODEEXISTS')) throw err;
    }
    this.log.info(`end registering consumer ${this.consumerId} in ZK`);
  }

  private triggerRebalance(): void {
    this.rebalanceNeeded = true;
    this.wakeUp.abort();
  }

  private async waitForFirstRebalance(): Promise<void> {
    while (this.rebalances === 0 && !this.closed && this.failure === undefined) await this.clock.sleep(20);
    if (this.failure !== undefined) throw this.failure;
  }

  /** Kafka's watcher executor: coalesces triggers and runs one synced rebalance per batch (at least every 1 s). */
  private async runRebalanceLoop(): Promise<void> {
    while (!this.closed) {
      if (this.rebalanceNeeded) {
        this.rebalanceNeeded = false;
        try {
          await this.lock.run(() => this.syncedRebalance());
          this.rebalances++;
        } catch (err) {
          this.failure = err as Error;
          this.log.error((err as Error).message);
          return;
        }
      }
      if (!this.rebalanceNeeded) await this.clock.sleep(1000, this.wakeUp.signal);
      if (this.wakeUp.signal.aborted) this.wakeUp = new AbortController();
    }
  }

  private async syncedRebalance(): Promise<void> {
    for (let attempt = 0; attempt < this.cfg.rebalanceMaxRetries; attempt++) {
      if (this.closed) return;
      this.log.info(`begin rebalancing consumer ${this.consumerId} try #${attempt}`);
      let done = false;
      try {
        done = await this.rebalance();
      } catch (err) {
        this.log.info(`exception during rebalance ${(err as Error).message}`);
      }
      this.log.info(`end rebalancing consumer ${this.consumerId} try #${attempt}`);
      if (done) return;
      this.log.info('Rebalancing attempt failed. Clearing the cache before the next rebalancing operation is triggered');
      await this.releaseAll();
      await this.clock.sleep(this.cfg.rebalanceBackoffMs);
    }
    throw new ConsumerRebalanceFailedError(`${this.consumerId} can't rebalance after ${this.cfg.rebalanceMaxRetries} retries`);
  }

  /** Stops fetching, commits what was consumed (ownership is still held), then releases every owner node. */
  private async releaseAll(): Promise<void> {
    this.fetcher = undefined;
    this.buffer = [];
    if (this.cfg.autoCommitEnable) await this.commitOffsets();
    const owned = [...this.owned.values()];
    this.owned.clear();
    await Promise.all(
      owned.map(({ tp }) =>
        this.zkc.delete(ZkPaths.consumerOwner(this.cfg.groupId, tp.topic, tp.partition)).catch((err: unknown) => {
          if (!isZkCode(err, 'NONODE')) throw err;
        }),
      ),
    );
  }

  private async topicsOf(reg: ConsumerRegistration, re: RegExp | undefined, allTopics: () => Promise<string[]>): Promise<Map<string, number>> {
    if (reg.pattern === 'static' || re === undefined) return new Map([...reg.subscription].filter(([t]) => topicNameError(t) === undefined));
    const streams = [...reg.subscription.values()][0] ?? 0;
    const legal = (await allTopics()).filter((t) => topicNameError(t) === undefined);
    const matches = legal.filter((t) => re.test(t) && !(this.cfg.excludeInternalTopics && INTERNAL_TOPICS.has(t)));
    const keep = reg.pattern === 'white_list' ? matches : legal.filter((t) => !matches.includes(t));
    return new Map(keep.map((t) => [t, streams]));
  }

  /** One rebalance attempt (Kafka's ZKRebalancerListener.rebalance); false when a claim found an owner. */
  private async rebalance(): Promise<boolean> {
    const group = this.cfg.groupId;
    const brokers = (await this.zkc.getChildren(ZkPaths.brokerIds)) ?? [];
    if (brokers.length === 0) {
      this.log.warn('no brokers found when trying to rebalance.');
      this.watches.push(watchChildren(this.zkc, ZkPaths.brokerIds, (ids) => (ids?.length ? this.triggerRebalance() : undefined)));
      return true;
    }
    await this.releaseAll();

    let topicList: Promise<string[]> | undefined;
    const allTopics = (): Promise<string[]> => (topicList ??= this.zkc.getChildren(ZkPaths.topics).then((t) => t ?? []));
    const members = ((await this.zkc.getChildren(ZkPaths.consumerIds(group))) ?? []).sort();
    const subscriptions = new Map<string, Map<string, number>>();
    for (const member of members) {
      const path = ZkPaths.consumerId(group, member);
      const node = await this.zkc.getData(path);
      if (node === null) continue;
      let registration: ConsumerRegistration;
      let regex: RegExp | undefined;
      try {
        registration = ConsumerRegistrationZNode.decode(path, node.data);
        if (registration.pattern !== 'static') regex = subscriptionRegex(registration);
      } catch (err) {
        // Kafka's TopicCount.constructTopicCount fails the whole rebalance ("error constructing TopicCount") on it;
        // that member is left out instead, so the others keep consuming.
        this.log.warn(`Ignoring consumer ${member}: unreadable registration at ${path} (${(err as Error).message})`);
        continue;
      }
      subscriptions.set(member, await this.topicsOf(registration, regex, allTopics));
    }
    const mine = subscriptions.get(this.consumerId);
    if (mine === undefined) throw new Error(`${this.consumerId} is not registered`);
    const partitions = new Map<string, number[]>();
    for (const topic of new Set([...subscriptions.values()].flatMap((s) => [...s.keys()]))) {
      const assignment = await new AdminZk(this.zkc).getTopicAssignment(topic);
      partitions.set(topic, assignment === null ? [] : [...assignment.partitions.keys()]);
      if (this.cfg.topics !== undefined && mine.has(topic)) this.watchTopic(topic);
    }
    const decision = this.assignor(subscriptions, partitions);
    const myThreads = [...mine].flatMap(([topic, streams]) => threadIds(this.consumerId, streams).map((id) => ({ topic, id })));
    const assigned: { tp: TopicPartition; threadId: string }[] = [];
    for (const { topic, id } of myThreads) {
      for (const tp of decision.get(id) ?? []) if (tp.topic === topic) assigned.push({ tp, threadId: id });
    }
    for (const [topic, streams] of mine) {
      for (const id of threadIds(this.consumerId, streams)) {
        if (!assigned.some((a) => a.threadId === id && a.tp.topic === topic)) this.log.warn(`No broker partitions consumed by consumer thread ${id} for topic ${topic}`);
      }
    }

    const offsets = await this.store!.fetchMany(group, assigned.map((a) => a.tp));
    if (!(await this.claim(assigned))) return false;
    await this.ensureClient();
    const fetcher = new PartitionConsumer(this.client!, { maxWaitMs: this.cfg.fetchWaitMaxMs, isolationLevel: this.cfg.isolationLevel });
    const withOffset = assigned.map((a, i) => ({ ...a, offset: offsets[i]! }));
    for (const a of withOffset) {
      // No committed offset: auto.offset.reset decides where to start.
      await fetcher.assign([a.tp], a.offset >= 0 ? a.offset : this.cfg.autoOffsetReset === 'smallest' ? 'earliest' : 'latest');
      const start = fetcher.position(a.tp)!;
      this.consumed.set(tpString(a.tp), start);
      if (a.offset >= 0) this.committed.set(tpString(a.tp), a.offset);
    }
    for (const a of assigned) this.owned.set(tpString(a.tp), a);
    this.fetcher = fetcher;
    this.log.info(
      `Consumer ${this.consumerId} selected partitions : ${withOffset
        .map((a) => `${a.tp.topic}:${a.tp.partition}: fetched offset = ${this.consumed.get(tpString(a.tp))}: consumed offset = ${this.consumed.get(tpString(a.tp))}`)
        .join(',')}`,
    );
    return true;
  }

  /** Creates the ephemeral owner nodes; on any conflict removes those just created and reports failure. */
  private async claim(assigned: { tp: TopicPartition; threadId: string }[]): Promise<boolean> {
    const group = this.cfg.groupId;
    const results = await Promise.all(
      assigned.map(async ({ tp, threadId }) => {
        const path = ZkPaths.consumerOwner(group, tp.topic, tp.partition);
        try {
          await this.zkc.createRecursive(path, ConsumerOwnerZNode.encode(threadId), 'EPHEMERAL');
          this.log.info(`${threadId} successfully owned partition ${tp.partition} for topic ${tp.topic}`);
          return true;
        } catch (err) {
          if (!isZkCode(err, 'NODEEXISTS')) throw err;
          const existing = await this.zkc.getData(path);
          // Our own node (a create retried after a connection loss, same session) counts as claimed.
          if (existing !== null && existing.stat.ephemeralOwner === this.zkc.sessionId && existing.data?.toString() === threadId) return true;
          this.log.info(`waiting for the partition ownership to be deleted: ${tp.partition}`);
          return false;
        }
      }),
    );
    if (results.every(Boolean)) return true;
    await Promise.all(
      assigned
        .filter((_, i) => results[i])
        .map(({ tp }) => this.zkc.delete(ZkPaths.consumerOwner(group, tp.topic, tp.partition)).catch(() => undefined)),
    );
    return false;
  }

  private async ensureClient(): Promise<void> {
    if (this.client !== undefined) return;
    const brokers = await new BrokerRegistryZk(this.zkc).getAllBrokersAndEpochs();
    const servers = [...brokers.values()].flatMap(({ info }) => info.endpoints.slice(0, 1).map((e) => `${e.host}:${e.port}`));
    this.client = new NetworkClient({ bootstrapServers: servers, clientId: this.cfg.clientId });
  }

  /**
   * Up to `maxRecords` records from the owned partitions (fetching when none are buffered); they count as
   * consumed once returned. Throws ConsumerRebalanceFailedError if rebalancing gave up.
   */
  async poll(maxRecords = Number.MAX_SAFE_INTEGER): Promise<ConsumedRecord[]> {
    if (this.failure !== undefined) throw this.failure;
    return this.lock.run(async () => {
      if (this.buffer.length === 0) {
        if (this.fetcher === undefined || this.owned.size === 0) {
          await this.clock.sleep(this.cfg.fetchWaitMaxMs);
          return [];
        }
        this.buffer = (await this.fetcher.poll()).filter((r) => this.owned.has(tpString(r)));
      }
      const out = this.buffer.splice(0, maxRecords);
      for (const r of out) this.consumed.set(tpString(r), r.offset + 1);
      return out;
    });
  }

  /** Writes the consumed offset of every owned partition that moved since the last commit (pipelined). */
  async commitOffsets(): Promise<void> {
    if (this.store === undefined) return;
    const changed = [...this.owned.values()]
      .map(({ tp }) => ({ ...tp, offset: this.consumed.get(tpString(tp)) }))
      .filter((o): o is TopicPartition & { offset: number } => o.offset !== undefined && o.offset !== this.committed.get(tpString(o)));
    if (changed.length === 0) return;
    const errors = await this.store.commit(this.cfg.groupId, changed);
    changed.forEach((o, i) => {
      if (errors[i] === null) this.committed.set(tpString(o), o.offset);
      else this.log.warn(`Failed to commit offset ${o.offset} of ${tpString(o)}`, errors[i]);
    });
  }

  /** Commits (with auto commit on) and closes the session: the registration and owner nodes vanish. */
  async close(): Promise<void> {
    if (this.closed) return;
    const started = this.clock.nowMs();
    this.log.info('ZKConsumerConnector shutting down');
    this.closed = true;
    this.wakeUp.abort();
    this.autoCommitTask?.cancel();
    await this.scheduler?.shutdown();
    for (const w of [...this.watches, ...this.topicWatches.values()]) w.close();
    await this.lock.run(async () => {
      if (this.cfg.autoCommitEnable) await this.commitOffsets().catch((err: unknown) => this.log.warn('exception during commitOffsets', err));
    });
    await this.rebalanceLoop?.catch(() => undefined);
    this.client?.close();
    this.zk?.close();
    this.log.info(`ZKConsumerConnector shutdown completed in ${this.clock.nowMs() - started} ms`);
  }
}
