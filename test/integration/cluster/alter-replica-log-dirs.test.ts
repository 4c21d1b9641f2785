import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { NetworkClient } from '../../../src/client/network-client';
import { AlterReplicaLogDirsApi } from '../../../src/protocol/apis/alter-replica-log-dirs';
import { DescribeLogDirsApi, DescribeLogDirsResult } from '../../../src/protocol/apis/describe-log-dirs';

interface Acked {
  partition: number;
  offset: number;
  value: string;
}

/** Where broker 0 holds each replica of `topic`: [dir, partition, isFuture] triples. */
function placements(results: readonly DescribeLogDirsResult[], topic: string): string[] {
  const out: string[] = [];
  for (const r of results) for (const t of r.topics) if (t.name === topic) for (const p of t.partitions) out.push(`${r.logDir}|${p.partitionIndex}|${p.isFutureKey}`);
  return out.sort();
}

describe('AlterReplicaLogDirs: moving replicas between the two log dirs of broker 0', () => {
  let cluster: TestCluster;
  let client: NetworkClient;
  const dirs = [path.resolve(tmpDir('alter-dirs-a-')), path.resolve(tmpDir('alter-dirs-b-'))];
  const kafka = (): Kafka => new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'alter-dirs', logLevel: logLevel.NOTHING });

  const describe0 = async (): Promise<DescribeLogDirsResult[]> => (await client.request(0, DescribeLogDirsApi, { topics: null })).results;
  const dirOf = async (topic: string, partition: number): Promise<string> => {
    const found = placements(await describe0(), topic).find((p) => p.endsWith(`|${partition}|false`));
    return (found ?? '').split('|')[0] as string;
  };
  const other = (dir: string): string => (dir === dirs[0] ? (dirs[1] as string) : (dirs[0] as string));
  const alter = async (moves: { path: string; topic: string; partitions: number[] }[]): Promise<string[]> => {
    const r = await client.request(0, AlterReplicaLogDirsApi, { dirs: moves.map((m) => ({ path: m.path, topics: [{ name: m.topic, partitions: m.partitions }] })) });
    return r.results.flatMap((t) => t.partitions.map((p) => `${t.topicName}-${p.partitionIndex}:${p.errorCode}`)).sort();
  };

  async function consumeAll(topic: string, expected: number): Promise<Acked[]> {
    const consumer = kafka().consumer({ groupId: `check-${topic}-${Date.now()}` });
    const seen: Acked[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push({ partition, offset: Number(message.offset), value: message.value?.toString() ?? '' }) });
    try {
      await waitUntil(() => seen.length >= expected, { timeoutMs: 30000, message: `${expected} records of ${topic} consumed` });
    } finally {
      await consumer.disconnect();
    }
    return seen;
  }

  function expectEveryAckedRecord(acked: readonly Acked[], seen: readonly Acked[]): void {
    const byPosition = new Map(seen.map((s) => [`${s.partition}@${s.offset}`, s.value]));
    const missing = acked.filter((a) => byPosition.get(`${a.partition}@${a.offset}`) !== a.value);
    expect(missing).toEqual([]);
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 2, logDirs: { 0: dirs }, props: { 'auto.leader.rebalance.enable': 'false', 'log.segment.delete.delay.ms': '1000' } });
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    await client.refreshMetadata();
  }, 120000);
  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it('moves a led and a followed replica to the other dir while kafkajs produces, losing nothing', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'moving', '--replica-assignment', '0:1,1:0', '--config', 'segment.bytes=65536'])).code).toBe(0);
    await cluster.waitForLeaders('moving', 2);
    const producer = kafka().producer();
    await producer.connect();
    const acked: Acked[] = [];
    let producing = true;
    let n = 0;
    const produce = async (): Promise<void> => {
      while (producing) {
        for (const partition of [0, 1]) {
          const messages = Array.from({ length: 50 }, () => ({ value: `v-${n++}-${'x'.repeat(200)}` }));
          const [meta] = await producer.send({ topic: 'moving', acks: -1, messages: messages.map((m) => ({ ...m, partition })) });
          messages.forEach((m, i) => acked.push({ partition, offset: Number(meta?.baseOffset) + i, value: m.value }));
        }
      }
    };
    const producing$ = produce();
    await waitUntil(() => acked.length >= 4000, { timeoutMs: 30000, message: 'some records produced before the move' });
    const from0 = await dirOf('moving', 0);
    const from1 = await dirOf('moving', 1);
    expect(await alter([
      { path: other(from0), topic: 'moving', partitions: [0] },
      { path: other(from1), topic: 'moving', partitions: [1] },
    ])).toEqual(['moving-0:0', 'moving-1:0']);
    await waitUntil(
      async () => JSON.stringify(placements(await describe0(), 'moving')) === JSON.stringify([`${other(from0)}|0|false`, `${other(from1)}|1|false`].sort()),
      { timeoutMs: 90000, message: 'both replicas in their new dir only' },
    );
    const movedAt = acked.length;
    await waitUntil(() => acked.length >= movedAt + 500, { timeoutMs: 20000, message: 'produce goes on after the swap' });
    producing = false;
    await producing$;
    await producer.disconnect();
    expect(fs.readdirSync(from0).some((d) => d === 'moving-0')).toBe(false);
    expect(fs.existsSync(path.join(other(from0), 'moving-0'))).toBe(true);
    const server = cluster.broker(0).readLog();
    expect(server).toContain('The current replica is successfully replaced with the future replica for moving-0');
    expect(server).toContain('The current replica is successfully replaced with the future replica for moving-1');
    expect(server).toMatch(/Created log for partition moving-0 in \S+\/moving-0\.[0-9a-f]{32}-future/);
    // The old directory goes after log.segment.delete.delay.ms.
    await waitUntil(() => !fs.readdirSync(from0).some((d) => d.startsWith('moving-0.')), { timeoutMs: 20000, message: 'the -delete dir removed' });
    expectEveryAckedRecord(acked, await consumeAll('moving', acked.length));
  }, 180000);

  it('resumes a move found in a -future dir at restart', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'resumed', '--replica-assignment', '0'])).code).toBe(0);
    await cluster.waitForLeaders('resumed', 1);
    const producer = kafka().producer();
    await producer.connect();
    const acked: Acked[] = [];
    const send = async (count: number): Promise<void> => {
      for (let i = 0; i < count; i += 100) {
        const messages = Array.from({ length: 100 }, (_, j) => ({ value: `r-${acked.length + j}`, partition: 0 }));
        const [meta] = await producer.send({ topic: 'resumed', acks: -1, messages });
        messages.forEach((m, j) => acked.push({ partition: 0, offset: Number(meta?.baseOffset) + j, value: m.value }));
      }
    };
    await send(1000);
    await producer.disconnect();
    const from = await dirOf('resumed', 0);
    await cluster.broker(0).child.stop({ signal: 'SIGTERM', graceMs: 30000 });
    // A move interrupted by the stop: the future replica has the first segment's bytes only up to a batch boundary
    // (here: all of it; the mover copies what the current log got since).
    fs.cpSync(path.join(from, 'resumed-0'), path.join(other(from), `resumed-0.${'a'.repeat(32)}-future`), { recursive: true });
    await cluster.startBroker(0);
    await cluster.waitForBrokerInMetadata(0);
    client.close();
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    await client.refreshMetadata();
    const again = kafka().producer();
    await again.connect();
    await waitUntil(async () => JSON.stringify(placements(await describe0(), 'resumed')) === JSON.stringify([`${other(from)}|0|false`]), { timeoutMs: 40000, message: 'the resumed move to finish' });
    await again.disconnect();
    expect(cluster.broker(0).readLog()).toContain('The current replica is successfully replaced with the future replica for resumed-0');
    expectEveryAckedRecord(acked, await consumeAll('resumed', acked.length));
  }, 180000);

  it('answers Kafka\'s errors per partition', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'elsewhere', '--replica-assignment', '1'])).code).toBe(0);
    await cluster.waitForLeaders('elsewhere', 1);
    await waitUntil(async () => (await dirOf('moving', 0)) !== '', { timeoutMs: 10000, message: 'moving-0 described' });
    const here = await dirOf('moving', 0);
    const longTopic = 't'.repeat(240);
    expect(await alter([
      { path: '/no/such/dir', topic: 'moving', partitions: [0] },
      { path: `${here}/`, topic: 'moving', partitions: [1] },
    ])).toEqual(['moving-0:57', 'moving-1:57']);
    expect(await alter([{ path: here, topic: 'moving', partitions: [0] }])).toEqual(['moving-0:0']);
    expect(await alter([{ path: here, topic: 'elsewhere', partitions: [0] }])).toEqual(['elsewhere-0:9']);
    expect(await alter([{ path: here, topic: 'no-such-topic', partitions: [0] }])).toEqual(['no-such-topic-0:3']);
    expect(await alter([{ path: here, topic: longTopic, partitions: [0] }])).toEqual([`${longTopic}-0:17`]);
    const server = cluster.broker(0).readLog();
    expect(server).toContain('Unable to alter log dirs for moving-0');
    expect(server).toContain('Log dir /no/such/dir is not found in the config.');
  }, 60000);
});
