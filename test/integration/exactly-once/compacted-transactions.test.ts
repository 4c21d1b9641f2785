import { Kafka, logLevel, Producer } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { runTool } from '../../helpers/run-tool';
import { runChild } from '../protocol/run-child';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/*
 * The log cleaner on a compacted topic holding transactions (one broker, a 3-node ZooKeeper ensemble): once the
 * cleaner has run, read_uncommitted readers no longer get the aborted transaction's data, read_committed ones
 * still get every committed record, and the COMMIT/ABORT markers are still in the log (delete.retention.ms, a
 * day by default, has not passed).
 */
const PROPS = {
  'transaction.state.log.num.partitions': '1',
  'transaction.state.log.replication.factor': '1',
  'transaction.state.log.min.isr': '1',
  'offsets.topic.num.partitions': '1',
  'offsets.topic.replication.factor': '1',
};

describe('log cleaner and transactions', () => {
  let cluster: TestCluster;
  let producer: Producer | undefined;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1, props: PROPS });
  }, 120000);

  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await cluster?.close();
  });

  /** Every batch of the partition, read_uncommitted, one fetch per segment. */
  async function batchesOf(topic: string): Promise<RecordBatch[]> {
    const [host, port] = cluster.bootstrap.split(',')[0]!.split(':') as [string, string];
    const c = new BrokerConnection({ host, port: Number(port) });
    try {
      const out: RecordBatch[] = [];
      for (let offset = 0; ; ) {
        const r = await c.send(
          FetchApi,
          {
            replicaId: -1,
            maxWaitMs: 0,
            minBytes: 1,
            maxBytes: 1 << 20,
            isolationLevel: 0,
            sessionId: 0,
            sessionEpoch: -1,
            topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: offset, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
            forgottenTopicsData: [],
            rackId: '',
          },
          { version: 11 },
        );
        const part = r.responses[0]!.partitionResponses[0]!;
        if (part.errorCode !== 0) throw new Error(`Fetch error ${part.errorCode}`);
        const found = part.recordSet === null ? [] : batchesIn(Buffer.isBuffer(part.recordSet) ? part.recordSet : Buffer.concat(part.recordSet));
        if (found.length === 0) return out;
        for (const b of found) out.push(new RecordBatch(Buffer.from(b.bytes())));
        offset = found[found.length - 1]!.nextOffset;
      }
    } finally {
      c.close();
    }
  }

  const kcat = async (topic: string, level: string): Promise<string[]> => {
    const r = await runChild('kcat', ['-C', '-b', cluster.bootstrap, '-t', topic, '-p', '0', '-o', 'beginning', '-e', '-q', '-f', '%k=%s\n', '-X', `isolation.level=${level}`], { timeoutMs: 30000 });
    if (r.code !== 0) throw new Error(`kcat failed: ${r.stderr}`);
    return r.stdout.split('\n').filter((l) => l !== '');
  };

  it('removes an aborted transaction’s data, keeps committed data and both markers', async () => {
    const topic = 'compacted-txn';
    // One batch per segment (a marker is 78 bytes, these batches under 100), so all but the last are cleanable.
    const created = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--replica-assignment', '0', '--config', 'cleanup.policy=compact', '--config', 'segment.bytes=120', '--config', 'min.cleanable.dirty.ratio=0.01']);
    if (created.code !== 0) throw new Error(`kafka-topics failed: ${created.output}`);
    await cluster.waitForLeaders(topic, 1);
    const kafka = new Kafka({ clientId: 'compacted-txn', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
    producer = kafka.producer({ transactionalId: 'compacted-txn-1', idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const txn = async (messages: Array<[string, string]>, outcome: 'commit' | 'abort'): Promise<void> => {
      const t = await producer!.transaction();
      await t.send({ topic, messages: messages.map(([key, value]) => ({ key, value })) });
      await (outcome === 'commit' ? t.commit() : t.abort());
    };
    await txn([['k1', 'c1'], ['k2', 'c2']], 'commit'); // 0-1, COMMIT 2
    await txn([['k1', 'a1'], ['k3', 'a3']], 'abort'); // 3-4, ABORT 5
    await txn([['k4', 'c4']], 'commit'); // 6, COMMIT 7
    await txn([['k5', 'c5']], 'commit'); // 8, COMMIT 9 (the active segment)

    // The cleaner's first pass comes 30 s after start-up (Kafka's InitialTaskDelayMs); a dynamic change of
    // log.cleaner.backoff.ms restarts it at once, then every 200 ms.
    const altered = await runTool('kafka-configs', ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-default', '--alter', '--add-config', 'log.cleaner.backoff.ms=200']);
    if (altered.code !== 0) throw new Error(`kafka-configs failed: ${altered.output}`);
    await waitUntil(async () => ((await batchesOf(topic)).some((b) => b.baseOffset === 3) ? undefined : true), { timeoutMs: 20000, message: 'the aborted batch cleaned away' });
    expect(await kcat(topic, 'read_uncommitted')).toEqual(['k1=c1', 'k2=c2', 'k4=c4', 'k5=c5']);
    expect(await kcat(topic, 'read_committed')).toEqual(['k1=c1', 'k2=c2', 'k4=c4', 'k5=c5']);
    const markers = (await batchesOf(topic)).filter((b) => b.isControlBatch).map((b) => [b.baseOffset, b.records()[0]!.key!.readInt16BE(2)]);
    expect(markers).toEqual([
      [2, 1],
      [5, 0],
      [7, 1],
      [9, 1],
    ]);
  }, 60000);
});
