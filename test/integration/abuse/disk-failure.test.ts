import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel, Producer } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { NetworkClient } from '../../../src/client/network-client';
import { PartitionConsumer } from '../../../src/client/partition-consumer';
import { ErrorCode } from '../../../src/common/error-codes';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { keepLogs, topicsTool } from '../replication/replication-helpers';

/**
 * Disk failures on a real 3-broker cluster, as Kafka 2.x handles them. Broker 0 has two log dirs, the second on a
 * small tmpfs; broker 1 has one log dir, on a tmpfs of its own; broker 2 an ordinary one.
 *
 * - EMFILE (broker 2's descriptor limit lowered with prlimit): the produces that need a new file fail with
 *   KAFKA_STORAGE_ERROR, the log dir stays online, everything works again once descriptors are available.
 * - ENOSPC on broker 0's tmpfs while an acks=all kafkajs producer runs: the dir goes offline, the broker writes
 *   /log_dir_event_notification/log_dir_event_<seq>, the controller moves the dir's leaderships to the other ISR
 *   members and deletes the notification; the producer carries on and no acknowledged record is lost; broker 0
 *   answers KAFKA_STORAGE_ERROR for the failed replicas and keeps serving its other dir.
 * - ENOSPC on broker 1's only dir: it halts (exit status 1) and its partitions fail over.
 *
 * Needs root (mount -t tmpfs) and prlimit.
 */

const MIB = 1 << 20;
const mounts: string[] = [];

function mountTmpfs(sizeMiB: number): string {
  const dir = tmpDir('kafka-ts-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}

function unmountAll(): void {
  for (const dir of mounts.splice(0)) {
    try {
      execFileSync('umount', [dir]);
    } catch {
      execFileSync('umount', ['-l', dir]);
    }
  }
}

/** Fills the file system holding `dir` to the last byte. */
function fill(dir: string): void {
  const fd = fs.openSync(path.join(dir, 'filler'), 'w');
  try {
    for (const chunk of [Buffer.alloc(MIB, 0x61), Buffer.alloc(512, 0x61), Buffer.alloc(1, 0x61)]) {
      try {
        for (;;) if (fs.writeSync(fd, chunk) === 0) break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

function batch(values: string[]): Buffer {
  const b = new RecordBatchBuilder();
  for (const v of values) b.append({ value: Buffer.from(v), timestamp: Date.now() });
  return b.build();
}

/**
 * acks=all kafkajs sends, one record each, a few in flight, round-robin over `partitions`; what was acknowledged
 * (and what failed even after kafkajs's retries) is kept per partition.
 */
class ProducerLoop {
  readonly acked = new Map<number, Set<string>>();
  readonly failures: string[] = [];
  private running = true;
  private seq = 0;
  private readonly done: Promise<unknown>;

  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
    private readonly partitions: number[],
    concurrency = 6,
  ) {
    for (const p of partitions) this.acked.set(p, new Set());
    this.done = Promise.all(Array.from({ length: concurrency }, () => this.worker()));
  }

  count(partition: number): number {
    return this.acked.get(partition)?.size ?? 0;
  }

  total(): number {
    return this.partitions.reduce((n, p) => n + this.count(p), 0);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private async worker(): Promise<void> {
    while (this.running) {
      const seq = this.seq++;
      const partition = this.partitions[seq % this.partitions.length] as number;
      const value = `${this.topic}-${partition}-${seq}`;
      try {
        await this.producer.send({ topic: this.topic, acks: -1, timeout: 10000, messages: [{ partition, value }] });
        this.acked.get(partition)?.add(value);
      } catch (err) {
        this.failures.push(`${value}: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}

describe('disk failures, Kafka 2.x style', () => {
  let cluster: TestCluster;
  let jbodDirs: string[];
  let broker1Dir: string;
  let broker0Tmpfs: string;
  let broker1Tmpfs: string;
  let kafka: Kafka;
  const connections: BrokerConnection[] = [];
  const producers: Producer[] = [];

  beforeAll(async () => {
    broker0Tmpfs = mountTmpfs(12);
    broker1Tmpfs = mountTmpfs(48);
    jbodDirs = [tmpDir('broker-0-data-'), path.join(broker0Tmpfs, 'logs')];
    broker1Dir = path.join(broker1Tmpfs, 'logs');
    cluster = await TestCluster.start({
      brokers: 3,
      props: { 'min.insync.replicas': '2', 'replica.lag.time.max.ms': '10000', 'auto.leader.rebalance.enable': 'false' },
      logDirs: { 0: jbodDirs, 1: [broker1Dir] },
    });
    kafka = new Kafka({ clientId: 'disk-failure', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
  }, 120000);

  afterAll(async () => {
    for (const p of producers) await p.disconnect().catch(() => undefined);
    for (const c of connections) c.close();
    if (cluster !== undefined) keepLogs(cluster, 'disk-failure');
    try {
      await cluster?.close();
    } finally {
      unmountAll();
    }
  });

  async function connect(brokerId: number): Promise<BrokerConnection> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerId).port, requestTimeoutMs: 20000 });
    connections.push(c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  async function producer(): Promise<Producer> {
    const p = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
    producers.push(p);
    await p.connect();
    return p;
  }

  async function createTopic(topic: string, assignment: string, ...config: string[]): Promise<number> {
    const partitions = assignment.split(',').length;
    const created = await topicsTool(cluster, '--create', '--topic', topic, '--replica-assignment', assignment, ...config.flatMap((c) => ['--config', c]));
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(topic, partitions);
    const replicas = assignment.split(',').map((r) => r.split(':').length);
    await waitUntil(
      async () => {
        for (let p = 0; p < partitions; p++) if (((await cluster.partitionState(topic, p))?.isr.length ?? 0) < (replicas[p] as number)) return false;
        return true;
      },
      { timeoutMs: 30000, message: `full ISRs for ${topic}` },
    );
    return partitions;
  }

  async function logDirEventStat(): Promise<{ cversion: number; children: string[] }> {
    const root = `${cluster.chroot}/log_dir_event_notification`;
    const stat = await cluster.zk.exists(root);
    return { cversion: stat?.cversion ?? -1, children: (await cluster.zk.getChildren(root)) ?? [] };
  }

  /** Every acknowledged value is in its partition, read back from the current leaders up to the high watermark. */
  async function expectNothingLost(topic: string, loop: ProducerLoop): Promise<void> {
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      const consumer = new PartitionConsumer(client, { maxWaitMs: 200 });
      const tps = [...loop.acked.keys()].map((partition) => ({ topic, partition }));
      const ends = new Map<number, number>();
      for (const tp of tps) ends.set(tp.partition, await consumer.listOffset(tp, -1));
      await consumer.assign(tps, 'earliest');
      const consumed = new Map<number, Set<string>>(tps.map((tp) => [tp.partition, new Set<string>()]));
      await waitUntil(
        async () => {
          for (const r of await consumer.poll()) consumed.get(r.partition)?.add(r.value?.toString() ?? '');
          return tps.every((tp) => (consumer.position(tp) ?? 0) >= (ends.get(tp.partition) ?? 0));
        },
        { timeoutMs: 60000, message: `consuming ${topic} up to the high watermarks` },
      );
      for (const [partition, acked] of loop.acked) {
        const missing = [...acked].filter((v) => !consumed.get(partition)?.has(v));
        expect({ partition, missing }).toEqual({ partition, missing: [] });
      }
    } finally {
      client.close();
    }
  }

  it('EMFILE: requests that need a new file fail, the log dir stays online, and it all works again afterwards', async () => {
    const topic = 'emfile';
    await createTopic(topic, '2', 'segment.bytes=1024');
    const conn = await connect(2);
    const produce = async (value: string): Promise<number> => {
      const r = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch([value.padEnd(400, '.')]) }] }] });
      return r.responses[0]?.partitionResponses[0]?.errorCode ?? -1;
    };
    expect(await produce('before')).toBe(0);
    const before = await logDirEventStat();
    const state = await cluster.partitionState(topic, 0);
    const pid = cluster.broker(2).pid;
    const limits = execFileSync('prlimit', ['--pid', String(pid), '--nofile', '--output=SOFT,HARD', '--noheadings', '--raw']).toString().trim().split(/\s+/);
    const fds = new Set(fs.readdirSync(`/proc/${pid}/fd`).map(Number));
    let lowestFree = 0;
    while (fds.has(lowestFree)) lowestFree++;
    const codes: number[] = [];
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${lowestFree}:${limits[1]}`]);
    try {
      for (let i = 0; i < 8; i++) codes.push(await produce(`limited-${i}`));
      // The periodic checkpoints hit EMFILE too (every 5 s): they must not take the dir offline either.
      await new Promise((r) => setTimeout(r, 6000));
    } finally {
      execFileSync('prlimit', ['--pid', String(pid), `--nofile=${limits[0]}:${limits[1]}`]);
    }
    expect(codes).toContain(ErrorCode.KAFKA_STORAGE_ERROR.code);
    for (let i = 0; i < 5; i++) expect(await produce(`after-${i}`)).toBe(0);
    const log = cluster.broker(2).readLog();
    expect(log).toMatch(/EMFILE is a shortage of this process or host, not a failure of the log dir, which stays online/);
    expect(log).not.toMatch(/Stopping serving replicas in dir/);
    expect(await logDirEventStat()).toEqual(before);
    expect(await cluster.partitionState(topic, 0)).toEqual(state);
    // What was acknowledged is there, in order, with no hole.
    const fetch = await conn.send(FetchApi, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [],
      rackId: '',
    });
    const part = fetch.responses[0]?.partitionResponses[0];
    expect(part?.errorCode).toBe(0);
    const okCount = 1 + codes.filter((c) => c === 0).length + 5;
    expect(part?.highWatermark).toBe(okCount);
  }, 120000);

  it('ENOSPC on one of two log dirs: its leaders move to the other ISR members, nothing acknowledged is lost, the broker serves its other dir', async () => {
    const topic = 'jbod';
    // Broker 0 leads partitions 0-3 and follows 4-5; its six replicas alternate between its two dirs.
    const partitions = await createTopic(topic, '0:1:2,0:2:1,0:1:2,0:2:1,1:0:2,2:0:1');
    const onTmpfs = [...Array(partitions).keys()].filter((p) => fs.existsSync(path.join(jbodDirs[1] as string, `${topic}-${p}`)));
    const onDisk = [...Array(partitions).keys()].filter((p) => fs.existsSync(path.join(jbodDirs[0] as string, `${topic}-${p}`)));
    const ledOnTmpfs = onTmpfs.filter((p) => p < 4);
    const ledOnDisk = onDisk.filter((p) => p < 4);
    expect(ledOnTmpfs.length).toBeGreaterThan(0);
    expect(ledOnDisk.length).toBeGreaterThan(0);
    const isrBefore = new Map<number, number[]>();
    for (const p of ledOnTmpfs) isrBefore.set(p, (await cluster.partitionState(topic, p))?.isr ?? []);
    const eventsBefore = await logDirEventStat();

    const loop = new ProducerLoop(await producer(), topic, [...Array(partitions).keys()]);
    await waitUntil(() => [...Array(partitions).keys()].every((p) => loop.count(p) >= 30), { timeoutMs: 60000, message: 'acknowledged records on every partition' });

    const filledAt = Date.now();
    fill(broker0Tmpfs);
    const failedDir = path.resolve(jbodDirs[1] as string);
    await cluster.broker(0).child.waitForLine(new RegExp(`Stopped serving replicas in dir ${failedDir}`), { timeoutMs: 30000 });
    // New leaders for the failed dir's partitions, from the rest of their ISR, within seconds.
    await waitUntil(
      async () => {
        for (const p of ledOnTmpfs) {
          const s = await cluster.partitionState(topic, p);
          if (s === null || s.leader < 0 || s.leader === 0 || !(isrBefore.get(p) ?? []).includes(s.leader) || s.isr.includes(0)) return false;
        }
        return true;
      },
      { timeoutMs: 20000, message: `new leaders for ${ledOnTmpfs.join(',')}` },
    );
    const failoverMs = Date.now() - filledAt;
    expect(failoverMs).toBeLessThan(20000);
    // The notification was written (the sequence moved) and processed (deleted).
    await waitUntil(
      async () => {
        const now = await logDirEventStat();
        return now.cversion >= eventsBefore.cversion + 2 && now.children.length === 0;
      },
      { timeoutMs: 20000, message: 'the log dir event notification to be written and deleted' },
    );
    const controller = (await cluster.controllerId()) as number;
    expect(cluster.broker(controller).readLog('controller.log')).toMatch(/Handling log directory failure for brokers 0/);
    expect(cluster.broker(controller).readLog('state-change.log')).toMatch(/Mark replicas .* on broker 0 as offline/);
    const brokerLog = cluster.broker(0).readLog();
    expect(brokerLog).toMatch(new RegExp(`Stopping serving replicas in dir ${failedDir}`));
    expect(brokerLog).toMatch(new RegExp(`Broker 0 stopped fetcher for partitions .* because they are in the failed log directory ${failedDir}\\.`));
    expect(brokerLog).toMatch(new RegExp(`Stopping serving logs in dir ${failedDir}`));

    // Broker 0 answers KAFKA_STORAGE_ERROR (or NOT_LEADER_OR_FOLLOWER) for the failed replicas...
    const conn = await connect(0);
    const accepted = [ErrorCode.KAFKA_STORAGE_ERROR.code, ErrorCode.NOT_LEADER_OR_FOLLOWER.code];
    for (const p of onTmpfs) {
      const produced = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: p, records: batch(['probe']) }] }] });
      expect(accepted).toContain(produced.responses[0]?.partitionResponses[0]?.errorCode);
      const fetched = await conn.send(FetchApi, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition: p, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
        rackId: '',
      });
      expect(accepted).toContain(fetched.responses[0]?.partitionResponses[0]?.errorCode);
    }
    // ...every broker's metadata lists broker 0's replicas there as offline...
    const md = await conn.send(MetadataApi, { topics: [{ name: topic }], allowAutoTopicCreation: false }, { version: 5 });
    for (const p of onTmpfs) expect(md.topics[0]?.partitions.find((x) => x.partitionIndex === p)?.offlineReplicas).toEqual([0]);
    for (const p of onDisk) expect(md.topics[0]?.partitions.find((x) => x.partitionIndex === p)?.offlineReplicas).toEqual([]);
    // ...and it is still up, leading the partitions of its other dir.
    expect(cluster.broker(0).child.isRunning()).toBe(true);
    for (const p of ledOnDisk) expect((await cluster.partitionState(topic, p))?.leader).toBe(0);

    // The producer carries on everywhere.
    const counts = [...Array(partitions).keys()].map((p) => loop.count(p));
    await waitUntil(() => counts.every((c, p) => loop.count(p) >= c + 30), { timeoutMs: 60000, message: 'acknowledged records on every partition after the failover' });
    await loop.stop();
    expect(loop.failures).toEqual([]);
    await expectNothingLost(topic, loop);
  }, 240000);

  it('after a restart, the failed dir serves again once it is usable: its replicas catch up and rejoin the ISR', async () => {
    const topic = 'jbod';
    const onTmpfs = [...Array(6).keys()].filter((p) => fs.existsSync(path.join(jbodDirs[1] as string, `${topic}-${p}`)));
    fs.rmSync(path.join(broker0Tmpfs, 'filler'));
    const logBefore = cluster.broker(0).readLog().length;
    const exit = await cluster.broker(0).child.stop({ graceMs: 30000 });
    expect(exit.code).toBe(0);
    await cluster.startBroker(0);
    await waitUntil(
      async () => {
        for (const p of onTmpfs) if (!((await cluster.partitionState(topic, p))?.isr ?? []).includes(0)) return false;
        return true;
      },
      { timeoutMs: 60000, message: `broker 0 back in the ISR of ${onTmpfs.join(',')}` },
    );
    expect(cluster.broker(0).readLog().slice(logBefore)).not.toMatch(/Stopping serving replicas|Failed to create or validate data directory/);
  }, 120000);

  it('ENOSPC on the only log dir: the broker halts with status 1 and its partitions fail over', async () => {
    const topic = 'single';
    const partitions = await createTopic(topic, '1:2:0,1:0:2');
    const loop = new ProducerLoop(await producer(), topic, [...Array(partitions).keys()]);
    await waitUntil(() => loop.count(0) >= 30 && loop.count(1) >= 30, { timeoutMs: 60000, message: 'acknowledged records before the failure' });
    fill(broker1Tmpfs);
    const exit = await Promise.race([cluster.broker(1).child.exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 30000))]);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(cluster.broker(1).readLog()).toMatch(new RegExp(`Shutdown broker because all log dirs in ${path.resolve(broker1Dir)} have failed`));
    await waitUntil(
      async () => {
        for (let p = 0; p < partitions; p++) {
          const s = await cluster.partitionState(topic, p);
          if (s === null || s.leader < 0 || s.leader === 1) return false;
        }
        return true;
      },
      { timeoutMs: 30000, message: `new leaders for ${topic} after broker 1 halted` },
    );
    const counts = [0, 1].map((p) => loop.count(p));
    await waitUntil(() => counts.every((c, p) => loop.count(p) >= c + 30), { timeoutMs: 60000, message: 'acknowledged records after the failover' });
    await loop.stop();
    expect(loop.failures).toEqual([]);
    await expectNothingLost(topic, loop);
  }, 180000);
});
