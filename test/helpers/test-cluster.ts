import { BrokerProcess } from './broker-process';
import { waitUntil } from './wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from './zk-ensemble';
import { inspectZk, readJson } from './zk-inspect';
import { ZkClient } from '../../src/zk/zk-client';
import { BrokerConnection } from '../../src/client/broker-connection';
import { MetadataApi, MetadataResponse } from '../../src/protocol/apis/metadata';

export interface TestClusterOptions {
  brokers: number;
  /** Properties for every broker. */
  props?: Record<string, string>;
  /** A running ensemble to use (with a fresh chroot); a new 3-node one otherwise. */
  ensemble?: ZkEnsemble;
  /** log.dirs of some brokers by id (two dirs, one on a small tmpfs, say); a fresh temp dir for the others. */
  logDirs?: Record<number, string[]>;
  /** The chroot to use (so that a test can write znodes, ACLs say, before the brokers start); a fresh one otherwise. */
  chroot?: string;
  /** Properties of some brokers by id, over `props` (a metrics port each, say). */
  brokerProps?: Record<number, Record<string, string>>;
}

/**
 * A real cluster for a test: a 3-node ZooKeeper ensemble (or a chroot in a shared one) and broker processes
 * started with bin/kafka-server-start.ts, ids 0..n-1. `waitForController()` and friends read ZooKeeper.
 */
export class TestCluster {
  readonly brokers = new Map<number, BrokerProcess>();

  private constructor(
    readonly ensemble: ZkEnsemble,
    private readonly ownsEnsemble: boolean,
    readonly zkConnect: string,
    readonly zk: ZkClient,
    private readonly props: Record<string, string>,
    private readonly logDirsById: Record<number, string[]> = {},
  ) {}

  static async start(options: TestClusterOptions): Promise<TestCluster> {
    const ensemble = options.ensemble ?? (await startZkEnsemble({ size: 3 }));
    const zkConnect = ensemble.connectStringWithChroot(options.chroot ?? uniqueChroot('cluster'));
    const cluster = new TestCluster(ensemble, options.ensemble === undefined, zkConnect, await inspectZk(ensemble.connectString), options.props ?? {}, options.logDirs);
    await Promise.all(Array.from({ length: options.brokers }, (_, id) => cluster.startBroker(id, options.brokerProps?.[id])));
    await cluster.waitForController();
    await cluster.waitForMetadataReady();
    return cluster;
  }

  get chroot(): string {
    return this.zkConnect.slice(this.zkConnect.indexOf('/'));
  }

  async startBroker(id: number, extra: Record<string, string> = {}): Promise<BrokerProcess> {
    const previous = this.brokers.get(id);
    const logDirs = previous?.logDirs ?? this.logDirsById[id];
    const broker = await BrokerProcess.start({
      brokerId: id,
      zkConnect: this.zkConnect,
      props: { ...this.props, ...extra },
      ...(logDirs !== undefined ? { logDirs } : {}),
      ...(previous ? { logDir: previous.logDir, port: previous.port } : {}),
    });
    this.brokers.set(id, broker);
    return broker;
  }

  broker(id: number): BrokerProcess {
    const b = this.brokers.get(id);
    if (b === undefined) throw new Error(`no broker ${id}`);
    return b;
  }

  get bootstrap(): string {
    return [...this.brokers.values()].filter((b) => b.child.isRunning()).map((b) => `127.0.0.1:${b.port}`).join(',');
  }

  async controllerId(): Promise<number | undefined> {
    const node = await readJson(this.zk, `${this.chroot}/controller`);
    return node === null ? undefined : Number(node['brokerid']);
  }

  async controllerEpoch(): Promise<number> {
    const node = await this.zk.getData(`${this.chroot}/controller_epoch`);
    return Number(node?.data?.toString() ?? -1);
  }

  async waitForController(timeoutMs = 30000): Promise<number> {
    return waitUntil(() => this.controllerId(), { timeoutMs, message: 'a controller to be elected' });
  }

  async partitionState(topic: string, partition: number): Promise<{ leader: number; leader_epoch: number; isr: number[] } | null> {
    return (await readJson(this.zk, `${this.chroot}/brokers/topics/${topic}/partitions/${partition}/state`)) as never;
  }

  /**
   * Waits until every partition of `topic` has a leader in ZooKeeper whose own Metadata names it leader, and
   * returns the leaders. ZooKeeper alone is not enough: the controller writes the state before the leader has
   * applied its LeaderAndIsr, and a produce in between gets UNKNOWN_TOPIC_OR_PARTITION. The controller sends a
   * broker its UpdateMetadata after its LeaderAndIsr, so the leader's Metadata covers both.
   */
  async waitForLeaders(topic: string, partitions: number, timeoutMs = 30000): Promise<number[]> {
    return waitUntil(
      async () => {
        const leaders: number[] = [];
        for (let p = 0; p < partitions; p++) {
          const s = await this.partitionState(topic, p);
          if (s === null || s.leader < 0) return undefined;
          leaders.push(s.leader);
        }
        for (const id of new Set(leaders)) {
          const b = this.brokers.get(id);
          if (b === undefined || !b.child.isRunning() || !(await this.metadataShowsLeaders(b.port, topic, leaders))) return undefined;
        }
        return leaders;
      },
      { timeoutMs, message: `leaders for all ${partitions} partitions of ${topic}, in ZooKeeper and in their own Metadata` },
    );
  }

  private async metadataShowsLeaders(port: number, topic: string, leaders: readonly number[]): Promise<boolean> {
    const conn = new BrokerConnection({ host: '127.0.0.1', port });
    try {
      await conn.connect();
      const md = await conn.send(MetadataApi, { topics: [{ name: topic }], allowAutoTopicCreation: false }, { version: 1 });
      const t = md.topics.find((x) => x.name === topic);
      return t !== undefined && leaders.every((leader, p) => t.partitions.some((x) => x.partitionIndex === p && x.leaderId === leader));
    } finally {
      conn.close();
    }
  }

  /**
   * Waits until the controller has processed a broker's (re)registration: every live broker's metadata, which
   * only the controller's UpdateMetadata fills, lists it. Topic creation right after a restart needs this.
   */
  async waitForBrokerInMetadata(brokerId: number, timeoutMs = 30000): Promise<void> {
    await waitUntil(() => this.everyMetadata((md) => md.brokers.some((x) => x.nodeId === brokerId)), { timeoutMs, message: `every broker to see broker ${brokerId} in its metadata` });
  }

  /**
   * Waits until every running broker answers Metadata with the controller and every running broker in it. As in
   * Kafka, a broker knows neither before the controller's first UpdateMetadata reaches it (controller id -1), and
   * clients such as kafkajs' admin fail on that instead of waiting; Kafka users wait for this the same way.
   */
  async waitForMetadataReady(timeoutMs = 30000): Promise<void> {
    const running = [...this.brokers.values()].filter((b) => b.child.isRunning());
    await waitUntil(() => this.everyMetadata((md) => md.controllerId >= 0 && running.every((r) => md.brokers.some((x) => x.nodeId === r.brokerId))), {
      timeoutMs,
      message: 'every broker to know the controller and every live broker',
    });
  }

  /**
   * Waits until every running broker's Metadata names `controllerId` as the controller. After an election the
   * brokers learn the new controller from its UpdateMetadata; until then a client asking them (kafkajs' admin
   * does) sends CreateTopics to the old one and gets NOT_CONTROLLER per topic, which kafkajs does not retry.
   */
  async waitForControllerInMetadata(controllerId: number, timeoutMs = 30000): Promise<void> {
    await waitUntil(() => this.everyMetadata((md) => md.controllerId === controllerId), { timeoutMs, message: `every broker to name broker ${controllerId} as the controller` });
  }

  /** Whether every running broker's Metadata (v1, no topics) passes `check`. */
  private async everyMetadata(check: (md: MetadataResponse) => boolean): Promise<boolean> {
    for (const b of this.brokers.values()) {
      if (!b.child.isRunning()) continue;
      const conn = new BrokerConnection({ host: '127.0.0.1', port: b.port });
      try {
        await conn.connect();
        if (!check(await conn.send(MetadataApi, { topics: [], allowAutoTopicCreation: false }, { version: 1 }))) return false;
      } finally {
        conn.close();
      }
    }
    return true;
  }

  async close(): Promise<void> {
    await Promise.all([...this.brokers.values()].map((b) => b.child.stop({ graceMs: 10000 })));
    if (this.ownsEnsemble) await this.ensemble.close();
  }
}
