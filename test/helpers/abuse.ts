/*
 * The abuse suite's harness (issue 12): a real 3-broker cluster on a real ZooKeeper ensemble, raw frames sent at
 * the wire level, each broker's resident memory read from /proc, and the health check every abuse case ends with:
 * every broker alive and answering, a kafkajs producer (acks=-1) still acknowledged, and everything acknowledged on
 * the topic so far consumed back. docs/reliability.md lists the cases and their memory bounds.
 */
import { BrokerConnection } from '../../src/client/broker-connection';
import { AlterClientQuotasApi } from '../../src/protocol/apis/alter-client-quotas';
import { DescribeClientQuotasApi } from '../../src/protocol/apis/describe-client-quotas';
import fs from 'node:fs';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { BrokerProcess } from './broker-process';
import { RawConnection, requestFrame } from './raw-connection';
import { TestCluster } from './test-cluster';

export { RawConnection, requestFrame } from './raw-connection';

export const MiB = 1024 * 1024;

/** Broker settings of the abuse cluster; Kafka's defaults otherwise (socket.request.max.bytes 100 MiB, ...). */
export const ABUSE_BROKER_PROPS: Readonly<Record<string, string>> = {
  'offsets.topic.replication.factor': '3',
  'offsets.topic.num.partitions': '6',
  'default.replication.factor': '3',
  'min.insync.replicas': '2',
  'unclean.leader.election.enable': 'false',
};

/** A 3-broker cluster (ids 0-2) on a fresh 3-node ZooKeeper ensemble. */
export async function startAbuseCluster(props: Record<string, string> = {}): Promise<TestCluster> {
  const cluster = await TestCluster.start({ brokers: 3, props: { ...ABUSE_BROKER_PROPS, ...props } });
  // Until the controller's UpdateMetadata has reached every broker, Metadata answers list no controller (-1).
  for (const id of cluster.brokers.keys()) await cluster.waitForBrokerInMetadata(id);
  return cluster;
}

/**
 * Resident set size of the broker's process in bytes (VmRSS of /proc/<pid>/status), or -1 if it has exited.
 * bin/kafka-server-start.ts execs node (and setpriv execs it), so the child's pid is the broker's node process.
 */
export function brokerRss(broker: BrokerProcess): number {
  if (!broker.child.isRunning()) return -1;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${broker.pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : -1;
  } catch {
    return -1;
  }
}

export function mib(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}

/** Samples every broker's RSS on an interval and keeps the maximum (and the first sample) per broker. */
export class RssSampler {
  readonly first = new Map<number, number>();
  readonly max = new Map<number, number>();
  readonly last = new Map<number, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly brokers: () => Iterable<BrokerProcess>,
    private readonly intervalMs = 200,
  ) {}

  sample(): void {
    for (const b of this.brokers()) {
      const rss = brokerRss(b);
      if (rss < 0) continue;
      if (!this.first.has(b.brokerId)) this.first.set(b.brokerId, rss);
      this.last.set(b.brokerId, rss);
      if (rss > (this.max.get(b.brokerId) ?? 0)) this.max.set(b.brokerId, rss);
    }
  }

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }

  /** `0=141.2 MiB 1=139.0 MiB 2=150.3 MiB` */
  describeMax(): string {
    return [...this.max.entries()].sort((a, b) => a[0] - b[0]).map(([id, v]) => `${id}=${mib(v)}`).join(' ');
  }
}

/** Opens a raw connection to a broker. */
export function rawConnect(broker: BrokerProcess): Promise<RawConnection> {
  return RawConnection.open(broker.port);
}

/** Opens a connection to `broker`, writes every frame (size-prefixed) in one write, and returns the connection. */
export async function sendFrames(broker: BrokerProcess, frames: readonly Buffer[]): Promise<RawConnection> {
  const c = await rawConnect(broker);
  c.send(...frames);
  return c;
}

export const API_VERSIONS_V0 = (correlationId: number): Buffer => requestFrame(18, 0, correlationId, Buffer.alloc(0));
/** Metadata v1 with a null topic array: every topic. */
export const METADATA_V1_ALL = (correlationId: number): Buffer => requestFrame(3, 1, correlationId, Buffer.from([0xff, 0xff, 0xff, 0xff]));

export interface ProbeResult {
  alive: boolean;
  /** Round trip of ApiVersions v0 then Metadata v1 on a fresh connection, ms. */
  ms: number;
  error?: string;
}

/** The broker's process is running and it answers ApiVersions and Metadata on a new connection within `timeoutMs`. */
export async function probeBroker(broker: BrokerProcess, timeoutMs = 10000): Promise<ProbeResult> {
  const t0 = Date.now();
  if (!broker.child.isRunning()) return { alive: false, ms: 0, error: `process exited (${JSON.stringify(broker.child.exit())})` };
  let c: RawConnection | undefined;
  try {
    c = await withTimeout(rawConnect(broker), timeoutMs, 'connect');
    c.send(API_VERSIONS_V0(0x7ff00001));
    const av = await c.response(0x7ff00001, Math.max(1, timeoutMs - (Date.now() - t0)));
    if (av === undefined || av.readInt16BE(4) !== 0) return { alive: false, ms: Date.now() - t0, error: c.closed ? 'ApiVersions: connection closed' : 'ApiVersions: no answer' };
    c.send(METADATA_V1_ALL(0x7ff00002));
    const md = await c.response(0x7ff00002, Math.max(1, timeoutMs - (Date.now() - t0)));
    if (md === undefined) return { alive: false, ms: Date.now() - t0, error: c.closed ? 'Metadata: connection closed' : 'Metadata: no answer' };
    return { alive: true, ms: Date.now() - t0 };
  } catch (e) {
    return { alive: false, ms: Date.now() - t0, error: (e as Error).message };
  } finally {
    c?.close();
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e as Error);
      },
    );
  });
}

export function kafka(cluster: TestCluster, clientId = 'abuse'): Kafka {
  return new Kafka({ clientId, brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 }, connectionTimeout: 5000, requestTimeout: 30000 });
}

/** Creates a topic (replication factor 3 and min.insync.replicas 2 unless told) and waits for its leaders. */
export async function createTopic(cluster: TestCluster, topic: string, partitions = 3, configs: Record<string, string> = {}, replicationFactor = 3): Promise<void> {
  const admin = kafka(cluster, 'abuse-admin').admin();
  await admin.connect();
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: partitions, replicationFactor, configEntries: Object.entries({ 'min.insync.replicas': '2', ...configs }).map(([name, value]) => ({ name, value })) }],
    });
  } finally {
    await admin.disconnect();
  }
  await cluster.waitForLeaders(topic, partitions);
}

/** Every value acknowledged (acks=-1) per topic, to check that nothing acknowledged is lost. */
export class AckLedger {
  private readonly acked = new Map<string, Set<string>>();
  attempted = 0;
  failed = 0;
  /** The last send's error, for the message when a health check cannot produce. */
  lastError: unknown;

  record(topic: string, values: readonly string[]): void {
    let set = this.acked.get(topic);
    if (set === undefined) this.acked.set(topic, (set = new Set()));
    for (const v of values) set.add(v);
  }

  ackedOn(topic: string): ReadonlySet<string> {
    return this.acked.get(topic) ?? new Set();
  }

  /** Sends `values` with acks=-1 and records them if (and only if) the broker acknowledged them. */
  async send(producer: Producer, topic: string, values: readonly string[]): Promise<boolean> {
    this.attempted += values.length;
    try {
      await producer.send({ topic, acks: -1, timeout: 30000, messages: values.map((value, i) => ({ key: `${i}`, value })) });
      this.record(topic, values);
      return true;
    } catch (e) {
      this.failed += values.length;
      this.lastError = e;
      return false;
    }
  }
}

/** Produces small acks=-1 batches on an interval while abuse goes on, recording what was acknowledged. */
export class BackgroundProducer {
  private producer: Producer | undefined;
  private running = false;
  private loop: Promise<void> | undefined;
  batches = 0;
  failedBatches = 0;

  constructor(
    private readonly cluster: TestCluster,
    private readonly topic: string,
    private readonly ledger: AckLedger,
    private readonly intervalMs = 200,
    private readonly batchSize = 10,
  ) {}

  async start(): Promise<void> {
    this.producer = kafka(this.cluster, 'abuse-background').producer({ allowAutoTopicCreation: false });
    await this.producer.connect();
    this.running = true;
    let n = 0;
    this.loop = (async () => {
      while (this.running) {
        const tag = `bg-${Date.now()}-${n++}`;
        const ok = await this.ledger.send(this.producer as Producer, this.topic, Array.from({ length: this.batchSize }, (_, i) => `${tag}-${i}`));
        this.batches++;
        if (!ok) this.failedBatches++;
        await new Promise((r) => setTimeout(r, this.intervalMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
    await this.producer?.disconnect();
  }
}

export interface HealthReport {
  probes: Map<number, ProbeResult>;
  produced: number;
  acked: number;
  consumed: number;
  missing: string[];
  ms: number;
}

/**
 * The end of every abuse case: every broker alive and answering ApiVersions + Metadata, a kafkajs producer
 * (acks=-1) gets `records` new records acknowledged on `topic`, and a fresh kafkajs consumer reads back every
 * value the ledger holds for that topic (acknowledged before, during and now). Throws with the details otherwise.
 */
export async function assertHealthy(cluster: TestCluster, topic: string, ledger = new AckLedger(), records = 100): Promise<HealthReport> {
  const t0 = Date.now();
  const probes = new Map<number, ProbeResult>();
  for (const b of cluster.brokers.values()) probes.set(b.brokerId, await probeBroker(b));
  const dead = [...probes.entries()].filter(([, p]) => !p.alive);
  if (dead.length > 0) {
    const detail = dead.map(([id, p]) => `broker ${id}: ${p.error}\n${cluster.broker(id).child.tail(40)}`).join('\n');
    throw new Error(`not every broker is alive: ${detail}`);
  }
  const k = kafka(cluster, 'abuse-health');
  const producer = k.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const tag = `health-${Date.now()}`;
  const values = Array.from({ length: records }, (_, i) => `${tag}-${i}`);
  let ok = false;
  try {
    for (let i = 0; i < records; i += 50) ok = (await ledger.send(producer, topic, values.slice(i, i + 50))) || ok;
  } finally {
    await producer.disconnect();
  }
  if (!ok) throw new Error(`kafkajs could not produce (acks=-1) to ${topic} after the abuse: ${describeError(ledger.lastError)}`);
  const expected = ledger.ackedOn(topic);
  const seen = new Set<string>();
  const consumer = k.consumer({ groupId: `abuse-check-${Date.now()}-${Math.floor(Math.random() * 1e9)}`, sessionTimeout: 10000, rebalanceTimeout: 10000, heartbeatInterval: 1000 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (done = resolve));
    const remaining = new Set(expected);
    await consumer.run({
      eachMessage: async ({ message }) => {
        const v = message.value?.toString() ?? '';
        seen.add(v);
        remaining.delete(v);
        if (remaining.size === 0) done();
      },
    });
    if (remaining.size === 0) done();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, 60000)))]);
    clearTimeout(timer);
  } finally {
    await consumer.disconnect();
  }
  const missing = [...expected].filter((e) => !seen.has(e));
  const report: HealthReport = { probes, produced: ledger.attempted, acked: expected.size, consumed: seen.size, missing, ms: Date.now() - t0 };
  if (missing.length > 0) throw new Error(`${missing.length} of ${expected.size} acknowledged records on ${topic} were not consumed back, e.g. ${missing.slice(0, 5).join(', ')}`);
  return report;
}

/**
 * ERROR and WARN lines a broker wrote (its stdout.txt: every log4j category), grouped after replacing numbers,
 * with the first line of an attached stack ("TypeError: ..."), most frequent first. Shows handler exceptions a fuzz
 * run provoked without killing anything (each one is a request answered UNKNOWN_SERVER_ERROR or a closed connection).
 */
export function logProblems(broker: BrokerProcess, limit = 30): { count: number; line: string }[] {
  const file = `${broker.logDir}/stdout.txt`;
  if (!fs.existsSync(file)) return [];
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const counts = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i] as string;
    const m = /^\[[^\]]+\] (ERROR|WARN) (.*)$/.exec(l);
    if (!m) continue;
    // The cause is the first "XxxError: ..." line of the stack; a message may span lines (a fuzzed name with \n).
    let cause = '';
    for (let j = i + 1; j < Math.min(lines.length, i + 6); j++) {
      const next = lines[j] as string;
      if (/^\[[^\]]+\] [A-Z]+ /.test(next)) break;
      if (/^\w*(Error|Exception)\b/.test(next)) {
        cause = ` <- ${next.slice(0, 160)}`;
        break;
      }
    }
    const key = `${m[1]} ${(m[2] as string).replace(/\/127\.0\.0\.1:?\d*/g, '/ADDR').replace(/\d+/g, 'N').slice(0, 220)}${cause.replace(/\d+/g, 'N')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, limit).map(([line, count]) => ({ count, line }));
}

export interface RssDuring<T> {
  result: T;
  before: number;
  max: number;
  after: number;
}

/** Runs `fn` while sampling one broker's RSS every `intervalMs`; before/after are single samples around it. */
export async function rssDuring<T>(broker: BrokerProcess, fn: () => Promise<T>, intervalMs = 50): Promise<RssDuring<T>> {
  const before = brokerRss(broker);
  let max = before;
  const timer = setInterval(() => (max = Math.max(max, brokerRss(broker))), intervalMs);
  try {
    const result = await fn();
    max = Math.max(max, brokerRss(broker));
    return { result, before, max, after: brokerRss(broker) };
  } finally {
    clearInterval(timer);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** DescribeClientQuotas of every entity, then AlterClientQuotas removing each value found. */
export async function removeAllClientQuotas(cluster: TestCluster): Promise<void> {
  const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(0).port, clientId: 'fuzz-cleanup', requestTimeoutMs: 30000 });
  await conn.connect();
  try {
    const described = await conn.send(DescribeClientQuotasApi, { components: [], strict: false });
    const entries = (described.entries ?? []).map((e) => ({ entity: e.entity, ops: e.values.map((v) => ({ key: v.key, value: 0, remove: true })) }));
    if (entries.length > 0) await conn.send(AlterClientQuotasApi, { entries, validateOnly: false });
  } finally {
    conn.close();
  }
}

/** An error with kafkajs' nested causes and per-partition errors, on one line. */
function describeError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const extra = e as Error & { type?: string; cause?: unknown; errors?: unknown[] };
  const parts = [`${e.name}${extra.type !== undefined ? ` ${extra.type}` : ''}: ${e.message}`];
  if (Array.isArray(extra.errors)) parts.push(`[${extra.errors.map(describeError).join('; ')}]`);
  if (extra.cause !== undefined) parts.push(`caused by ${describeError(extra.cause)}`);
  return parts.join(' ');
}
