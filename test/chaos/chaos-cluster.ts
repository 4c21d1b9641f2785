import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SMALL_ZOOKEEPER_JVM_OPTIONS, writeZooKeeperConfig } from '../../src/embedded/zookeeper-config';
import { locateZooKeeper, quorumPeerMainArgs } from '../../src/tools/zookeeper-locator';
import { BIN } from '../helpers/broker-process';
import { spawnChild, TestChild } from '../helpers/child-processes';
import { zkMode } from '../helpers/four-letter-word';
import { removeTmpDir, tmpDir } from '../helpers/tmp-dir';
import { waitUntil } from '../helpers/wait-until';
import { NetnsNetwork } from './netns-network';

export const ZK_PORT = 2181;
export const BROKER_PORT = 9092;

export interface ChaosClusterOptions {
  zkNodes?: number;
  brokers?: number;
  /** Extra broker properties (all brokers). */
  brokerProps?: Record<string, string>;
  /** Per broker id: mount a tmpfs of this size (e.g. '6m') as its log dir. */
  tmpfsLogDir?: Record<number, string>;
}

interface ZkServer {
  myid: number;
  host: string;
  configFile: string;
  logFile: string;
  child?: TestChild;
}

export interface ChaosBroker {
  id: number;
  host: string;
  logDir: string;
  dataDir: string;
  propertiesFile: string;
  tmpfs: boolean;
  child?: TestChild;
}

/**
 * Real ZooKeeper servers (hosts zk1..zkN, 10.218.6.1..) and real broker processes (hosts b1..bN, 10.218.6.11..)
 * each inside its own network namespace of a NetnsNetwork, on the well-known ports (every host has its own
 * address space). close() kills every process by pid, unmounts tmpfs log dirs and deletes the namespaces.
 */
export class ChaosCluster {
  readonly zk: ZkServer[] = [];
  readonly brokers = new Map<number, ChaosBroker>();
  private closed = false;

  private constructor(
    readonly net: NetnsNetwork,
    private readonly baseDir: string,
    private readonly brokerProps: Record<string, string>,
  ) {}

  static async start(options: ChaosClusterOptions = {}): Promise<ChaosCluster> {
    const zkCount = options.zkNodes ?? 3;
    const brokerCount = options.brokers ?? 3;
    const net = NetnsNetwork.create([
      ...Array.from({ length: zkCount }, (_, i) => ({ name: `zk${i + 1}`, octet: i + 1 })),
      ...Array.from({ length: brokerCount }, (_, i) => ({ name: `b${i + 1}`, octet: 11 + i })),
    ]);
    const cluster = new ChaosCluster(net, tmpDir('kafka-ts-chaos-'), options.brokerProps ?? {});
    try {
      cluster.writeZkConfigs(zkCount);
      for (const s of cluster.zk) cluster.spawnZk(s);
      await cluster.waitForZkQuorum(cluster.zk.map((s) => s.myid), 90000);
      for (let id = 1; id <= brokerCount; id++) cluster.prepareBroker(id, options.tmpfsLogDir?.[id]);
      await Promise.all([...cluster.brokers.keys()].map((id) => cluster.startBroker(id)));
    } catch (err) {
      await cluster.close();
      throw err;
    }
    return cluster;
  }

  get zkConnect(): string {
    return this.zk.map((s) => `${this.net.address(s.host)}:${ZK_PORT}`).join(',');
  }

  get bootstrap(): string[] {
    return [...this.brokers.values()].map((b) => `${this.net.address(b.host)}:${BROKER_PORT}`);
  }

  broker(id: number): ChaosBroker {
    const b = this.brokers.get(id);
    if (!b) throw new Error(`no broker ${id}`);
    return b;
  }

  /** Host name of broker `id` (b<id>). */
  brokerHost(id: number): string {
    return this.broker(id).host;
  }

  zkHosts(): string[] {
    return this.zk.map((s) => s.host);
  }

  brokerHosts(): string[] {
    return [...this.brokers.values()].map((b) => b.host);
  }

  /** Resolves when the given servers (myids) agree on exactly one leader. */
  async waitForZkQuorum(myids: number[], timeoutMs = 60000): Promise<void> {
    await waitUntil(
      async () => {
        const modes = await Promise.all(myids.map((id) => zkMode(this.net.address(`zk${id}`), ZK_PORT)));
        return modes.filter((m) => m === 'leader').length === 1 && modes.every((m) => m === 'leader' || m === 'follower');
      },
      { timeoutMs, intervalMs: 300, message: `a ZooKeeper quorum of servers ${myids.join(',')}` },
    );
  }

  async startBroker(id: number): Promise<void> {
    const b = this.broker(id);
    const { command, args } = this.net.execArgs(b.host, BIN('kafka-server-start'), [b.propertiesFile]);
    b.child = spawnChild(command, args, { name: `broker-${id}`, env: { ...process.env, LOG_DIR: b.logDir }, logFile: path.join(b.logDir, 'stdout.txt') });
    await b.child.waitForLine(/\[KafkaServer id=\d+\] started \(kafka\.server\.KafkaServer\)/, { timeoutMs: 120000 });
  }

  async killBroker(id: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.broker(id).child?.stop({ signal, graceMs: 10000 });
  }

  brokerLog(id: number, file = 'server.log'): string {
    const f = path.join(this.broker(id).logDir, file);
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
  }

  /** Copies every broker's and ZooKeeper server's logs into `dir` (kept for a failed or reported run). */
  keepLogs(dir: string): void {
    fs.mkdirSync(dir, { recursive: true });
    for (const b of this.brokers.values()) {
      for (const f of fs.existsSync(b.logDir) ? fs.readdirSync(b.logDir) : []) {
        const src = path.join(b.logDir, f);
        if (fs.statSync(src).isFile()) fs.copyFileSync(src, path.join(dir, `broker-${b.id}-${f}`));
      }
    }
    for (const s of this.zk) if (fs.existsSync(s.logFile)) fs.copyFileSync(s.logFile, path.join(dir, `zookeeper-${s.myid}.out`));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.brokers.values()].map((b) => b.child?.stop({ signal: 'SIGKILL', graceMs: 5000 })));
    await Promise.all(this.zk.map((s) => s.child?.stop({ signal: 'SIGKILL', graceMs: 5000 })));
    for (const b of this.brokers.values()) if (b.tmpfs) execFileSync('umount', ['-l', b.dataDir], { stdio: 'ignore' });
    this.net.destroy();
    removeTmpDir(this.baseDir);
  }

  private writeZkConfigs(count: number): void {
    const servers = Array.from({ length: count }, (_, i) => `server.${i + 1}=${this.net.address(`zk${i + 1}`)}:2888:3888`);
    for (let i = 1; i <= count; i++) {
      const host = `zk${i}`;
      const dir = path.join(this.baseDir, host);
      // initLimit 20 ticks (10 s), not 10: servers here restart and rejoin under injected faults on a loaded machine.
      const { configFile } = writeZooKeeperConfig({ dir, clientAddress: this.net.address(host), clientPort: ZK_PORT, servers, myid: i, initLimit: 20 });
      this.zk.push({ myid: i, host, configFile, logFile: path.join(dir, 'zookeeper.out') });
    }
  }

  spawnZk(s: ZkServer): void {
    const installation = locateZooKeeper();
    const javaArgs = quorumPeerMainArgs(installation, s.configFile, [...SMALL_ZOOKEEPER_JVM_OPTIONS, `-Dzookeeper.log.dir=${path.dirname(s.logFile)}`]);
    const { command, args } = this.net.execArgs(s.host, installation.java, javaArgs);
    s.child = spawnChild(command, args, { name: `zookeeper-${s.myid}`, logFile: s.logFile });
  }

  private prepareBroker(id: number, tmpfsSize: string | undefined): void {
    const host = `b${id}`;
    const logDir = path.join(this.baseDir, `${host}-logs`);
    const dataDir = path.join(this.baseDir, `${host}-data`);
    fs.mkdirSync(logDir, { recursive: true });
    fs.mkdirSync(dataDir, { recursive: true });
    if (tmpfsSize !== undefined) execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${tmpfsSize}`, 'tmpfs', dataDir]);
    const address = this.net.address(host);
    const props: Record<string, string> = {
      'broker.id': String(id),
      listeners: `PLAINTEXT://${address}:${BROKER_PORT}`,
      'log.dirs': dataDir,
      'zookeeper.connect': this.zkConnect,
      'zookeeper.session.timeout.ms': '6000',
      'zookeeper.connection.timeout.ms': '30000',
      'num.partitions': '1',
      'default.replication.factor': '3',
      'offsets.topic.replication.factor': '3',
      'offsets.topic.num.partitions': '3',
      'min.insync.replicas': '2',
      'unclean.leader.election.enable': 'false',
      'replica.lag.time.max.ms': '6000',
      'group.initial.rebalance.delay.ms': '0',
      ...this.brokerProps,
    };
    const propertiesFile = path.join(logDir, 'server.properties');
    fs.writeFileSync(propertiesFile, Object.entries(props).map(([k, v]) => `${k}=${v}\n`).join(''));
    this.brokers.set(id, { id, host, logDir, dataDir, propertiesFile, tmpfs: tmpfsSize !== undefined });
  }
}
