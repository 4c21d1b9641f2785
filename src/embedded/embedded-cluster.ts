import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ClusterAdmin } from './cluster-admin';
import { EmbeddedProcess, describeExit } from './embedded-process';
import { startEmbeddedZooKeeper } from './embedded-zookeeper';
import { freePorts } from './network/free-ports';
import { Reaper } from './reaper';
import { waitFor } from './wait-for';

export type ConfigValue = string | number | boolean;

export interface StartClusterOptions {
  /** How many brokers, ids 0..n-1 (default 1). */
  brokers?: number;
  /** server.properties for every broker, over the embedded defaults (see README). */
  brokerConfig?: Readonly<Record<string, ConfigValue>>;
  /** 'embedded' (default): a standalone ZooKeeper of its own. Or the zookeeper.connect of a running ensemble. */
  zookeeper?: 'embedded' | string;
  /** How long start-up, a restart or a topic's leaders may take (default 60000 ms). */
  timeoutMs?: number;
}

export interface CreateTopicOptions {
  /** Default 1. */
  partitions?: number;
  /** Default: the number of brokers, at most 3. */
  replicationFactor?: number;
  /** Topic configs (cleanup.policy, min.insync.replicas, ...). */
  config?: Readonly<Record<string, ConfigValue>>;
}

const HOST = '127.0.0.1';
const STARTED = /\[KafkaServer id=\d+\] started \(kafka\.server\.KafkaServer\)/;

interface Broker {
  readonly id: number;
  readonly port: number;
  readonly dir: string;
  process: EmbeddedProcess | undefined;
}

/** Where this package lives, compiled (dist/src/embedded) or run from source (src/embedded). */
const COMPILED = __filename.endsWith('.js');
const PACKAGE_ROOT = path.resolve(__dirname, COMPILED ? '../../..' : '../..');

/**
 * The broker's V8 heap options, as bin/kafka-server-start.ts sets them when KAFKA_NODE_HEAP_OPTS is unset (its
 * shell line cannot import this). The initial old space leaves room for the garbage of a busy broker: V8 counts
 * Buffer memory allocated since the last full collection against it, so at 64 MiB a broker at a million records/s
 * ran a full collection every 100-150 ms (docs/benchmarks.md, 2026-12-06).
 */
function brokerHeapOptions(): string[] {
  return (process.env['KAFKA_NODE_HEAP_OPTS'] ?? '--max-old-space-size=1024 --initial-old-space-size=128').split(' ').filter(Boolean);
}

/**
 * A real kafka-ts cluster for tests: ZooKeeper and N broker processes (bin/kafka-server-start, as operators start
 * them) on free ports of 127.0.0.1, all data in one temp dir. Nothing outlives it: stop() ends every process and
 * removes the dir, and if the process that started it dies first, the parent-death signal and the Reaper do.
 */
export class EmbeddedCluster {
  private stopped = false;

  private constructor(
    private readonly baseDir: string,
    private readonly reaper: Reaper,
    private readonly admin: ClusterAdmin,
    private readonly brokers: Map<number, Broker>,
    private readonly zookeeper: EmbeddedProcess | undefined,
    /** zookeeper.connect of the brokers. */
    readonly zookeeperConnect: string,
    private readonly brokerConfig: Readonly<Record<string, ConfigValue>>,
    private readonly timeoutMs: number,
  ) {}

  static async start(options: StartClusterOptions = {}): Promise<EmbeddedCluster> {
    const count = options.brokers ?? 1;
    if (!Number.isInteger(count) || count < 1) throw new Error(`startCluster: brokers must be a positive integer, got ${count}`);
    const external = options.zookeeper !== undefined && options.zookeeper !== 'embedded' ? options.zookeeper : undefined;
    if (external !== undefined && external.trim() === '') throw new Error("startCluster: zookeeper must be 'embedded' or a connect string");
    const ports = await freePorts(count + (external === undefined ? 1 : 0));
    const reaper = Reaper.start();
    const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-ts-cluster-'));
    reaper.watchDir(baseDir);
    const brokers = new Map<number, Broker>();
    for (let id = 0; id < count; id++) brokers.set(id, { id, port: ports[id] as number, dir: path.join(baseDir, `broker-${id}`), process: undefined });
    let zookeeper: EmbeddedProcess | undefined;
    let zookeeperConnect = external;
    if (external === undefined) {
      const zkPort = ports[count] as number;
      const zkDir = path.join(baseDir, 'zookeeper');
      fs.mkdirSync(zkDir);
      try {
        // Throws when ZooKeeper or Java is not installed, with the command that installs them.
        zookeeper = startEmbeddedZooKeeper(zkDir, HOST, zkPort);
      } catch (err) {
        // The watchdog removes the dir as it exits.
        reaper.close();
        throw err;
      }
      reaper.watchPid(zookeeper.pid);
      zookeeperConnect = `${HOST}:${zkPort}`;
    }
    const cluster = new EmbeddedCluster(baseDir, reaper, new ClusterAdmin(HOST), brokers, zookeeper, zookeeperConnect as string, options.brokerConfig ?? {}, options.timeoutMs ?? 60000);
    try {
      // Brokers need not wait for ZooKeeper: like Kafka's, they retry until zookeeper.connection.timeout.ms.
      await Promise.all([...brokers.keys()].map((id) => cluster.startBroker(id)));
      await cluster.waitForMetadata();
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** bootstrap.servers for clients: every broker, running or not (clients skip the ones that are down). */
  get bootstrapServers(): string {
    return [...this.brokers.values()].map((b) => `${HOST}:${b.port}`).join(',');
  }

  /** The broker ids, 0..n-1. */
  get brokerIds(): number[] {
    return [...this.brokers.keys()];
  }

  /** Creates a topic through the controller and resolves once every partition has a leader known to every running broker. */
  async createTopic(name: string, options: CreateTopicOptions = {}): Promise<void> {
    const spec = { partitions: options.partitions ?? 1, replicationFactor: options.replicationFactor ?? Math.min(this.brokers.size, 3), config: options.config ?? {} };
    const controller = await waitFor(async () => {
      const md = await this.admin.metadata(this.anyRunningBroker().port);
      return md.controllerId >= 0 ? this.brokers.get(md.controllerId) : undefined;
    }, 'a controller', this.timeoutMs);
    await this.admin.createTopic(controller.port, name, spec, this.timeoutMs);
    await waitFor(
      async () => {
        for (const broker of this.running()) {
          const topic = (await this.admin.metadata(broker.port, [name])).topics.find((t) => t.name === name);
          if (topic === undefined || topic.errorCode !== 0 || topic.partitions.length !== spec.partitions || topic.partitions.some((p) => p.leaderId < 0)) return false;
        }
        return true;
      },
      `leaders for the ${spec.partitions} partition(s) of ${name} on every running broker`,
      this.timeoutMs,
    );
  }

  /** Sends `signal` (default SIGKILL: a crash) to broker `id` and resolves once it has exited. */
  async killBroker(id: number, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const broker = this.broker(id);
    const proc = broker.process;
    if (proc === undefined || !proc.isRunning()) return;
    await proc.stop(signal, this.timeoutMs);
    this.reaper.forgetPid(proc.pid);
  }

  /**
   * Starts broker `id` again on its port and with its log dirs (stopping it first with SIGTERM, a controlled
   * shutdown, if it is running), and resolves once every running broker sees it in its metadata.
   */
  async restartBroker(id: number): Promise<void> {
    await this.killBroker(id, 'SIGTERM');
    await this.startBroker(id);
    await this.waitForMetadata();
  }

  /** Whether broker `id` is running. */
  isRunning(id: number): boolean {
    return this.broker(id).process?.isRunning() ?? false;
  }

  /** The pids of every process the cluster runs (ZooKeeper, the brokers, the watchdog), for checks that none is left. */
  get pids(): number[] {
    const servers = [this.zookeeper, ...[...this.brokers.values()].map((b) => b.process)].filter((p): p is EmbeddedProcess => p?.isRunning() === true);
    return [...servers.map((p) => p.pid), this.reaper.pid];
  }

  /** The temp dir holding every server's data and logs (gone after stop()). */
  get dataDir(): string {
    return this.baseDir;
  }

  /** The pid of broker `id`, while it runs. */
  brokerPid(id: number): number | undefined {
    const proc = this.broker(id).process;
    return proc?.isRunning() ? proc.pid : undefined;
  }

  /** Broker `id`'s server.log (Kafka's layout), with what it wrote to stdout and stderr after it. */
  brokerLogs(id: number): string {
    const broker = this.broker(id);
    return [path.join(broker.dir, 'logs', 'server.log'), path.join(broker.dir, 'logs', 'kafkaServer.out')]
      .filter((f) => fs.existsSync(f))
      .map((f) => fs.readFileSync(f, 'utf8'))
      .join('');
  }

  /**
   * Kills every broker and ZooKeeper (SIGKILL) and removes the temp dir; idempotent. No controlled shutdown:
   * the data is thrown away, and the last broker's shutdown alone would cost seconds per test file. A test that
   * wants a clean shutdown asks for it with killBroker(id, 'SIGTERM') first.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await Promise.all([...this.brokers.values()].map((b) => b.process?.stop('SIGKILL')));
    await this.zookeeper?.stop('SIGKILL');
    fs.rmSync(this.baseDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    for (const b of this.brokers.values()) if (b.process) this.reaper.forgetPid(b.process.pid);
    if (this.zookeeper) this.reaper.forgetPid(this.zookeeper.pid);
    this.reaper.forgetDir(this.baseDir);
    this.reaper.close();
  }

  private async startBroker(id: number): Promise<void> {
    if (this.stopped) throw new Error('the cluster is stopped');
    const broker = this.broker(id);
    const dataDir = path.join(broker.dir, 'data');
    const logDir = path.join(broker.dir, 'logs');
    fs.mkdirSync(dataDir, { recursive: true });
    fs.mkdirSync(logDir, { recursive: true });
    const replicas = String(Math.min(this.brokers.size, 3));
    const props: Record<string, ConfigValue> = {
      'broker.id': id,
      listeners: `PLAINTEXT://${HOST}:${broker.port}`,
      'log.dirs': dataDir,
      'zookeeper.connect': this.zookeeperConnect,
      'zookeeper.session.timeout.ms': 6000,
      // Long enough for a JVM ZooKeeper started at the same moment on a busy machine.
      'zookeeper.connection.timeout.ms': 30000,
      // The internal topics fit the cluster (Kafka's defaults want 3 brokers) and stay small, as in Kafka's own test harness.
      'offsets.topic.replication.factor': replicas,
      'offsets.topic.num.partitions': 5,
      'transaction.state.log.replication.factor': replicas,
      'transaction.state.log.min.isr': Math.min(this.brokers.size, 2),
      'transaction.state.log.num.partitions': 5,
      'group.initial.rebalance.delay.ms': 0,
      ...this.brokerConfig,
    };
    const propertiesFile = path.join(broker.dir, 'server.properties');
    fs.writeFileSync(propertiesFile, Object.entries(props).map(([k, v]) => `${k}=${String(v)}\n`).join(''));
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_DIR: logDir, KAFKA_LOG4J_OPTS: `-Dlog4j.configuration=file:${path.join(PACKAGE_ROOT, 'config', 'log4j.properties')}` };
    const [command, args] = COMPILED
      ? [process.execPath, [...brokerHeapOptions(), path.join(PACKAGE_ROOT, 'dist', 'bin', 'kafka-server-start.js'), propertiesFile]]
      : [path.join(PACKAGE_ROOT, 'bin', 'kafka-server-start.ts'), [propertiesFile]];
    const proc = EmbeddedProcess.start(`broker ${id}`, command, args, { env, outputFile: path.join(logDir, 'kafkaServer.out') });
    broker.process = proc;
    this.reaper.watchPid(proc.pid);
    await proc.waitForLine(STARTED, this.timeoutMs);
    void proc.exited.then((exit) => {
      if (!this.stopped && exit.signal === null && exit.code !== 0) this.lastUnexpectedExit = `broker ${id} exited (${describeExit(exit)})`;
    });
  }

  /** Set when a broker died on its own, for the error of a later wait. */
  private lastUnexpectedExit: string | undefined;

  /**
   * Until every running broker names the controller and every running broker: as in Kafka, a broker knows
   * neither before the controller's first UpdateMetadata, and clients such as kafkajs' admin fail on that.
   */
  private async waitForMetadata(): Promise<void> {
    const running = this.running();
    await waitFor(
      async () => {
        for (const broker of running) {
          const md = await this.admin.metadata(broker.port);
          if (md.controllerId < 0 || !running.every((r) => md.brokers.some((b) => b.nodeId === r.id))) return false;
        }
        return true;
      },
      `every broker to know the controller and every running broker${this.lastUnexpectedExit ? ` (${this.lastUnexpectedExit})` : ''}`,
      this.timeoutMs,
    );
  }

  private running(): Broker[] {
    return [...this.brokers.values()].filter((b) => b.process?.isRunning());
  }

  private anyRunningBroker(): Broker {
    const broker = this.running()[0];
    if (broker === undefined) throw new Error('no broker is running');
    return broker;
  }

  private broker(id: number): Broker {
    const broker = this.brokers.get(id);
    if (broker === undefined) throw new Error(`no broker ${id}: the cluster has brokers ${this.brokerIds.join(', ')}`);
    return broker;
  }
}
