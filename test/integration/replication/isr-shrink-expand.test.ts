import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, ZkEnsemble } from '../../helpers/zk-ensemble';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ErrorCode } from '../../../src/common/error-codes';
import { ListOffsetsApi } from '../../../src/protocol/apis/list-offsets';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';
import { keepLogs, topicsTool } from './replication-helpers';

const TOPIC = 'isr-topic';

function batch(values: string[]): Buffer {
  const b = new RecordBatchBuilder();
  for (const v of values) b.append({ value: Buffer.from(v), timestamp: Date.now() });
  return b.build();
}

describe('ISR shrink and expand on the leader', () => {
  let ensemble: ZkEnsemble;
  let cluster: TestCluster;
  let leader: number;
  let followers: number[];
  const connections: BrokerConnection[] = [];

  async function connect(brokerId: number): Promise<BrokerConnection> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerId).port, requestTimeoutMs: 20000 });
    connections.push(c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  async function produce(conn: BrokerConnection, acks: number, value: string): Promise<number> {
    const r = await conn.send(ProduceApi, { transactionalId: null, acks, timeoutMs: 10000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch([value]) }] }] });
    return r.responses[0]?.partitionResponses[0]?.errorCode ?? -1;
  }

  async function isr(): Promise<number[]> {
    return ((await cluster.partitionState(TOPIC, 0))?.isr ?? []).slice().sort();
  }

  beforeAll(async () => {
    // A long ZooKeeper session keeps a stopped broker registered, so the leader, not the controller, shrinks the
    // ISR (ZooKeeper caps sessions at 20 ticks: 2 s ticks allow 30 s).
    ensemble = await startZkEnsemble({ size: 3, tickTimeMs: 2000 });
    cluster = await TestCluster.start({ brokers: 3, ensemble, props: { 'replica.lag.time.max.ms': '3000', 'min.insync.replicas': '2', 'zookeeper.session.timeout.ms': '30000' } });
    // The controller leads, so stopping the followers never stops the controller.
    leader = await cluster.waitForController();
    followers = [0, 1, 2].filter((b) => b !== leader);
    const created = await topicsTool(cluster, '--create', '--topic', TOPIC, '--replica-assignment', [leader, ...followers].join(':'));
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 1);
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    for (const id of [0, 1, 2]) cluster?.broker(id).child.signal('SIGCONT');
    if (cluster !== undefined) keepLogs(cluster, 'isr-shrink-expand');
    await cluster?.close();
    await ensemble?.close();
  });

  it('drops stopped followers from the ISR, refuses acks=all below min.insync.replicas, and takes them back', async () => {
    const conn = await connect(leader);
    expect(await produce(conn, -1, 'all-in-sync')).toBe(0);
    expect(await isr()).toEqual([0, 1, 2]);

    const [first, second] = followers as [number, number];
    cluster.broker(first).child.signal('SIGSTOP');
    // A follower is out of sync only if the leader has something it lacks.
    expect(await produce(conn, 1, 'first-stopped')).toBe(0);
    await waitUntil(async () => (await isr()).length === 2, { timeoutMs: 20000, message: `follower ${first} to leave the ISR` });
    expect(await isr()).toEqual([leader, second].sort());
    // Two in sync still satisfy min.insync.replicas=2.
    expect(await produce(conn, -1, 'two-in-sync')).toBe(0);

    cluster.broker(second).child.signal('SIGSTOP');
    // Appended while two were in sync; it completes when the stopped follower is dropped, leaving too few.
    expect(await produce(conn, -1, 'second-stopped')).toBe(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code);
    expect(await isr()).toEqual([leader]);
    expect(await produce(conn, -1, 'alone')).toBe(ErrorCode.NOT_ENOUGH_REPLICAS.code);
    expect(await produce(conn, 1, 'acks-one')).toBe(0);
    // A lone leader's high watermark is its log end offset: consumers see everything at once.
    const offsets = async (replicaId: number): Promise<number> => {
      const r = await conn.send(ListOffsetsApi, { replicaId, isolationLevel: 0, topics: [{ name: TOPIC, partitions: [{ partitionIndex: 0, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 2 });
      return r.topics[0]?.partitions[0]?.offset ?? -1;
    };
    expect(await offsets(-1)).toBe(await offsets(second));

    // The change reaches the other brokers' metadata through /isr_change_notification and the controller.
    await waitUntil(
      async () => {
        const md = await conn.send(MetadataApi, { topics: [{ name: TOPIC }], allowAutoTopicCreation: false });
        const p = md.topics.find((t) => t.name === TOPIC)?.partitions[0];
        return p !== undefined && p.isrNodes.length === 1;
      },
      { timeoutMs: 20000, message: 'the metadata to show the shrunk ISR' },
    );

    cluster.broker(first).child.signal('SIGCONT');
    cluster.broker(second).child.signal('SIGCONT');
    await waitUntil(async () => (await isr()).length === 3, { timeoutMs: 20000, message: 'both followers to rejoin the ISR' });
    expect(await produce(conn, -1, 'back-in-sync')).toBe(0);

    const server = cluster.broker(leader).readLog();
    expect(server).toMatch(new RegExp(`\\[Partition ${TOPIC}-0 broker=${leader}\\] Shrinking ISR from [0-9,]+ to [0-9,]+\\. Leader: \\(highWatermark: \\d+, endOffset: \\d+\\)\\. Out of sync replicas: \\(brokerId: ${first}, endOffset: \\d+\\)\\.`));
    expect(server).toMatch(new RegExp(`\\[Partition ${TOPIC}-0 broker=${leader}\\] ISR updated to \\[[0-9,]+\\] and zkVersion updated to \\[\\d+\\]`));
    expect(server).toMatch(new RegExp(`\\[Partition ${TOPIC}-0 broker=${leader}\\] Expanding ISR from [0-9,]+ to [0-9,]+`));
    for (const f of followers) {
      expect(cluster.broker(f).readLog()).toMatch(new RegExp(`\\[ReplicaFetcherManager on broker ${f}\\] Added fetcher to broker ${leader} for partitions Map\\(${TOPIC}-0 -> `));
    }
  });
});
