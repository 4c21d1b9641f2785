import { Clock, SYSTEM_CLOCK } from '../../common/time';
import { SerialQueue } from '../../common/serial-queue';
import { getLogger, Logger } from '../../common/logging/logging';
import { TopicPartition, tpString } from '../../common/topic-partition';
import { Log } from '../../log/log';
import { ReplicaFetcherConfig } from './replica-fetcher-config';
import { InitialFetchState, ReplicaFetcherThread } from './replica-fetcher-thread';
import type { ReplicaQuota } from '../replication-quota-manager';

/** Java's String.hashCode, so partitions spread over fetchers as Kafka spreads them. */
function javaHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * This broker's fetchers (Kafka's ReplicaFetcherManager/AbstractFetcherManager): num.replica.fetchers per
 * source broker, a partition always on fetcher `abs(31 * topic.hashCode + partition) % num.replica.fetchers`
 * of its leader. Fetchers left without partitions are shut down. The count can change at run time
 * (resizeThreadPool).
 */
export class ReplicaFetcherManager {
  private readonly fetchers = new Map<string, ReplicaFetcherThread>();
  /** tp string -> the fetcher that follows it. */
  private readonly assigned = new Map<string, ReplicaFetcherThread>();
  private readonly logger: Logger;
  /** Adds, removals and resizes one at a time (Kafka's AbstractFetcherManager lock), so a resize moving the
   * partitions never re-adds one a LeaderAndIsr removed meanwhile. */
  private readonly lock = new SerialQueue();
  /** num.replica.fetchers now (dynamic: resizeThreadPool changes it). */
  private numFetchersPerBroker: number;

  constructor(
    private readonly config: ReplicaFetcherConfig,
    private readonly localLog: (tp: TopicPartition) => Log | undefined,
    private readonly clock: Clock = SYSTEM_CLOCK,
    /** The follower replication quota (follower.replication.throttled.rate); none when undefined. */
    private readonly quota: ReplicaQuota | undefined = undefined,
  ) {
    this.logger = getLogger('kafka.server.ReplicaFetcherManager', `[ReplicaFetcherManager on broker ${config.brokerId}] `);
    this.numFetchersPerBroker = config.numReplicaFetchers;
  }

  /** The fetcher threads (their names are Kafka's clientId key of FetcherLagMetrics). */
  fetcherThreads(): IterableIterator<ReplicaFetcherThread> {
    return this.fetchers.values();
  }

  get numFetchers(): number {
    return this.numFetchersPerBroker;
  }

  /**
   * Dynamic num.replica.fetchers (Kafka's AbstractFetcherManager.resizeThreadPool): every followed partition is
   * taken off its fetcher and added again where its hash now points, from the offset and epoch it had reached,
   * so that hash-based placement stays as a fresh start would make it; fetchers left empty shut down.
   */
  resizeThreadPool(newSize: number): Promise<void> {
    return this.lock.run(() => this.resize(newSize));
  }

  private async resize(newSize: number): Promise<void> {
    const currentSize = this.numFetchersPerBroker;
    this.logger.info(`Resizing fetcher thread pool size from ${currentSize} to ${newSize}`);
    this.numFetchersPerBroker = newSize;
    if (newSize !== currentSize) {
      const states: InitialFetchState[] = [];
      for (const fetcher of [...this.fetchers.values()]) {
        const taken = await fetcher.takeAllPartitions();
        for (const s of taken) if (this.assigned.get(tpString(s.tp)) === fetcher) this.assigned.delete(tpString(s.tp));
        states.push(...taken);
      }
      await this.addFetchers(states);
    }
    await this.shutdownIdleFetcherThreads();
  }

  fetcherId(tp: TopicPartition): number {
    const h = (Math.imul(31, javaHashCode(tp.topic)) + tp.partition) | 0;
    // Kafka's Utils.abs: Integer.MIN_VALUE maps to 0.
    return (h === -2147483648 ? 0 : Math.abs(h)) % this.numFetchersPerBroker;
  }

  /** The leader a partition is being fetched from, if any (for tests and metrics). */
  leaderFor(tp: TopicPartition): number | undefined {
    return this.assigned.get(tpString(tp))?.leader.id;
  }

  /** The id of the fetcher following a partition, if any (for tests and metrics). */
  assignedFetcherId(tp: TopicPartition): number | undefined {
    return this.assigned.get(tpString(tp))?.fetcherId;
  }

  /** How many fetchers run (for tests and metrics). */
  get fetcherCount(): number {
    return this.fetchers.size;
  }

  /** Where a followed partition's fetcher is (leader, epoch, fetch offset), to pause and resume it around a log swap. */
  fetchStateFor(tp: TopicPartition): InitialFetchState | undefined {
    return this.assigned.get(tpString(tp))?.partitionStates().find((s) => tpString(s.tp) === tpString(tp));
  }

  addFetcherForPartitions(states: readonly InitialFetchState[]): Promise<void> {
    return this.lock.run(() => this.addFetchers(states));
  }

  private async addFetchers(states: readonly InitialFetchState[]): Promise<void> {
    await this.detach(states.map((s) => s.tp));
    const byFetcher = new Map<ReplicaFetcherThread, InitialFetchState[]>();
    for (const s of states) {
      const fetcher = await this.fetcherFor(s);
      let list = byFetcher.get(fetcher);
      if (list === undefined) byFetcher.set(fetcher, (list = []));
      list.push(s);
      this.assigned.set(tpString(s.tp), fetcher);
    }
    for (const [fetcher, list] of byFetcher) {
      fetcher.addPartitions(list);
      this.logger.info(
        `Added fetcher to broker ${fetcher.leader.id} for partitions Map(${list.map((s) => `${tpString(s.tp)} -> InitialFetchState(BrokerEndPoint(id=${s.leader.id}, host=${s.leader.host}:${s.leader.port}),${s.currentLeaderEpoch},${s.initOffset})`).join(', ')})`,
      );
    }
  }

  /** Stops fetching `tps`; resolves once their fetchers no longer touch their logs. */
  removeFetcherForPartitions(tps: readonly TopicPartition[]): Promise<void> {
    return this.lock.run(() => this.removeFetchers(tps));
  }

  private async removeFetchers(tps: readonly TopicPartition[]): Promise<void> {
    await this.detach(tps);
    if (tps.length > 0) this.logger.info(`Removed fetcher for partitions Set(${tps.map(tpString).join(', ')})`);
    await this.shutdownIdleFetcherThreads();
  }

  private async detach(tps: readonly TopicPartition[]): Promise<void> {
    const byFetcher = new Map<ReplicaFetcherThread, TopicPartition[]>();
    for (const tp of tps) {
      const fetcher = this.assigned.get(tpString(tp));
      if (fetcher === undefined) continue;
      this.assigned.delete(tpString(tp));
      let list = byFetcher.get(fetcher);
      if (list === undefined) byFetcher.set(fetcher, (list = []));
      list.push(tp);
    }
    await Promise.all([...byFetcher].map(([fetcher, list]) => fetcher.removePartitions(list)));
  }

  async shutdownIdleFetcherThreads(): Promise<void> {
    for (const [key, fetcher] of [...this.fetchers]) {
      if (fetcher.partitionCount > 0) continue;
      this.fetchers.delete(key);
      await fetcher.shutdown();
    }
  }

  async shutdown(): Promise<void> {
    this.logger.info('shutting down');
    const all = [...this.fetchers.values()];
    this.fetchers.clear();
    this.assigned.clear();
    await Promise.all(all.map((f) => f.shutdown()));
    this.logger.info('shutdown completed');
  }

  /** The fetcher for the partition's leader and fetcher id; a new one if the leader's endpoint changed. */
  private async fetcherFor(s: InitialFetchState): Promise<ReplicaFetcherThread> {
    const id = this.fetcherId(s.tp);
    const key = `${s.leader.id}-${id}`;
    const existing = this.fetchers.get(key);
    if (existing !== undefined && existing.leader.host === s.leader.host && existing.leader.port === s.leader.port) return existing;
    const fetcher = new ReplicaFetcherThread(id, s.leader, this.config, this.localLog, this.clock, this.quota);
    this.fetchers.set(key, fetcher);
    fetcher.start();
    if (existing !== undefined) {
      // The leader came back on another address: its other partitions move over where they were.
      const moved = existing.partitionStates().map((m) => ({ ...m, leader: s.leader }));
      for (const m of moved) this.assigned.set(tpString(m.tp), fetcher);
      await existing.shutdown();
      fetcher.addPartitions(moved);
    }
    return fetcher;
  }
}
