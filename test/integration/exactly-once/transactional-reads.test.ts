import * as path from 'node:path';
import { Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { ListOffsetsApi } from '../../../src/protocol/apis/list-offsets';
import { runTool } from '../../helpers/run-tool';
import { runChild } from '../protocol/run-child';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/*
 * Transactional reads on one broker (a 3-node ZooKeeper ensemble): an aborted transaction of kafkajs 2.2.4's
 * transactional producer is invisible to a read_committed consumer (kafkajs, librdkafka through kcat, and
 * kafka-console-consumer with isolation.level=read_committed) and visible to a read_uncommitted one, its .txnindex
 * is what kafka-dump-log prints, and an open transaction holds
 * the last stable offset (ListOffsets read_committed, Fetch read_committed) below the high watermark until it
 * commits.
 */
const PROPS = {
  'transaction.state.log.num.partitions': '2',
  'transaction.state.log.replication.factor': '1',
  'transaction.state.log.min.isr': '1',
  'offsets.topic.num.partitions': '2',
  'offsets.topic.replication.factor': '1',
};

describe('transactional reads: LSO, .txnindex, read_committed', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const producers: Producer[] = [];
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1, props: PROPS });
    kafka = new Kafka({ clientId: 'txn-reads', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
  }, 120000);

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    for (const p of producers) await p.disconnect().catch(() => undefined);
    await cluster?.close();
  });

  async function createTopic(topic: string): Promise<void> {
    const r = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--replica-assignment', '0']);
    if (r.code !== 0) throw new Error(`kafka-topics failed: ${r.output}`);
    await cluster.waitForLeaders(topic, 1);
  }

  async function transactionalProducer(transactionalId: string): Promise<Producer> {
    const p = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
    producers.push(p);
    await p.connect();
    return p;
  }

  async function send(p: Producer, topic: string, values: string[], outcome: 'commit' | 'abort'): Promise<void> {
    const t = await p.transaction();
    await t.send({ topic, messages: values.map((value) => ({ value })) });
    await (outcome === 'commit' ? t.commit() : t.abort());
  }

  /** Values a kafkajs consumer reads from `topic` until it has seen `last`, in offset order. */
  async function consume(topic: string, readUncommitted: boolean, last: string): Promise<string[]> {
    const c = kafka.consumer({ groupId: `g-${topic}-${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 200 });
    consumers.push(c);
    await c.connect();
    await c.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    await c.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? '') });
    await waitUntil(() => seen.includes(last) || undefined, { timeoutMs: 30000, message: `${last} read by the ${readUncommitted ? 'read_uncommitted' : 'read_committed'} consumer` });
    await c.disconnect();
    return seen;
  }

  async function withConnection<T>(fn: (c: BrokerConnection) => Promise<T>): Promise<T> {
    const [host, port] = cluster.bootstrap.split(',')[0]!.split(':') as [string, string];
    const c = new BrokerConnection({ host, port: Number(port) });
    try {
      return await fn(c);
    } finally {
      c.close();
    }
  }

  async function latestOffset(topic: string, isolationLevel: 0 | 1): Promise<number> {
    return withConnection(async (c) => {
      const r = await c.send(ListOffsetsApi, { replicaId: -1, isolationLevel, topics: [{ name: topic, partitions: [{ partitionIndex: 0, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 5 });
      const p = r.topics[0]!.partitions[0]!;
      if (p.errorCode !== 0) throw new Error(`ListOffsets error ${p.errorCode}`);
      return p.offset;
    });
  }

  it('hides an aborted transaction from read_committed (kafkajs, kcat) but not from read_uncommitted; .txnindex as Kafka prints it', async () => {
    const topic = 'txr-abort';
    await createTopic(topic);
    const p = await transactionalProducer('txr-1');
    await send(p, topic, ['c1', 'c2'], 'commit');
    await send(p, topic, ['a1', 'a2'], 'abort');
    await send(p, topic, ['c3'], 'commit');

    expect(await consume(topic, false, 'c3')).toEqual(['c1', 'c2', 'c3']);
    expect(await consume(topic, true, 'c3')).toEqual(['c1', 'c2', 'a1', 'a2', 'c3']);

    const kcat = (level: string): Promise<string> =>
      runChild('kcat', ['-C', '-b', cluster.bootstrap, '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%s\n', '-X', `isolation.level=${level}`], { timeoutMs: 30000 }).then((r) => {
        if (r.code !== 0) throw new Error(`kcat failed: ${r.stderr}`);
        return r.stdout;
      });
    expect((await kcat('read_committed')).trim().split('\n')).toEqual(['c1', 'c2', 'c3']);
    expect((await kcat('read_uncommitted')).trim().split('\n')).toEqual(['c1', 'c2', 'a1', 'a2', 'c3']);

    // The project's own consumer: kafka-console-consumer with isolation.level=read_committed.
    const own = await runTool('kafka-console-consumer', ['--bootstrap-server', cluster.bootstrap, '--topic', topic, '--partition', '0', '--offset', 'earliest', '--max-messages', '3', '--consumer-property', 'isolation.level=read_committed']);
    expect(own.code).toBe(0);
    expect(own.output.split('\n').filter((l) => /^[ac]\d$/.test(l))).toEqual(['c1', 'c2', 'c3']);

    // Offsets: c1 0, c2 1, commit 2, a1 3, a2 4, abort 5 (LSO then 6), c3 6, commit 7.
    const index = path.join(cluster.broker(0).logDirs[0]!, `${topic}-0`, '00000000000000000000.txnindex');
    const dump = await runTool('kafka-dump-log', ['--files', index]);
    expect(dump.output).toMatch(/version: 0 producerId: \d+ firstOffset: 3 lastOffset: 5 lastStableOffset: 6/);
  });

  it('holds read_committed readers at the LSO while a transaction is open, then releases them at commit', async () => {
    const topic = 'txr-open';
    await createTopic(topic);
    const plain = kafka.producer();
    producers.push(plain);
    await plain.connect();
    await plain.send({ topic, messages: [{ value: 'p0' }, { value: 'p1' }] }); // 0, 1
    const p = await transactionalProducer('txr-2');
    const t = await p.transaction();
    await t.send({ topic, messages: [{ value: 'o1' }, { value: 'o2' }] }); // 2, 3: open
    await plain.send({ topic, messages: [{ value: 'p2' }] }); // 4

    await waitUntil(async () => ((await latestOffset(topic, 0)) === 5 ? true : undefined), { timeoutMs: 20000, message: 'HW 5' });
    expect(await latestOffset(topic, 1)).toBe(2);
    const fetched = await withConnection((c) =>
      c.send(
        FetchApi,
        {
          replicaId: -1,
          maxWaitMs: 0,
          minBytes: 1,
          maxBytes: 1 << 20,
          isolationLevel: 1,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
          forgottenTopicsData: [],
          rackId: '',
        },
        { version: 11 },
      ),
    );
    const part = fetched.responses[0]!.partitionResponses[0]!;
    expect([part.highWatermark, part.lastStableOffset]).toEqual([5, 2]);
    expect(part.abortedTransactions).toEqual([]);

    await t.commit(); // marker 5
    await waitUntil(async () => ((await latestOffset(topic, 1)) === 6 ? true : undefined), { timeoutMs: 20000, message: 'LSO 6 after the commit' });
    expect(await latestOffset(topic, 0)).toBe(6);
    expect(await consume(topic, false, 'p2')).toEqual(['p0', 'p1', 'o1', 'o2', 'p2']);
  });
});
