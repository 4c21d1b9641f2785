import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';
import { keepLogs, storedBatches, topicsTool } from './replication-helpers';

function batch(values: string[]): Buffer {
  const b = new RecordBatchBuilder();
  for (const v of values) b.append({ value: Buffer.from(v), timestamp: Date.now() });
  return b.build();
}

function allBytes(cluster: TestCluster, broker: number, topic: string): Buffer {
  return Buffer.concat(storedBatches(cluster, broker, topic, 0).map((b) => b.bytes));
}

describe('follower truncation', () => {
  let cluster: TestCluster;
  const connections: BrokerConnection[] = [];

  async function connect(brokerId: number): Promise<BrokerConnection> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerId).port, requestTimeoutMs: 20000 });
    connections.push(c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  async function produce(conn: BrokerConnection, topic: string, acks: number, values: string[]): Promise<{ errorCode: number; baseOffset: number }> {
    const r = await conn.send(ProduceApi, { transactionalId: null, acks, timeoutMs: 10000, topicData: [{ name: topic, partitionData: [{ index: 0, records: batch(values) }] }] });
    const p = r.responses[0]?.partitionResponses[0];
    return { errorCode: p?.errorCode ?? -1, baseOffset: p?.baseOffset ?? -1 };
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'log.retention.check.interval.ms': '1000', 'file.delete.delay.ms': '0' } });
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    for (const id of [0, 1, 2]) cluster?.broker(id).child.signal('SIGCONT');
    if (cluster !== undefined) keepLogs(cluster, 'follower-truncation');
    await cluster?.close();
  });

  it('cuts the uncommitted tail of a crashed leader back to the new leader\'s history (OffsetsForLeaderEpoch)', async () => {
    const topic = 'diverge';
    expect((await topicsTool(cluster, '--create', '--topic', topic, '--partitions', '1', '--replication-factor', '3')).code).toBe(0);
    await cluster.waitForLeaders(topic, 1);
    await waitUntil(async () => (await cluster.partitionState(topic, 0))?.isr.length === 3, { message: 'a full ISR' });
    const oldLeader = (await cluster.partitionState(topic, 0))?.leader as number;
    const followers = [0, 1, 2].filter((b) => b !== oldLeader);
    const conn = await connect(oldLeader);
    for (let i = 0; i < 5; i++) expect((await produce(conn, topic, -1, [`committed-${i}-a`, `committed-${i}-b`])).errorCode).toBe(0);

    // The followers miss what comes next (but perhaps the first record, answering a fetch already waiting); the
    // leader dies with it (acks=1 promised no more than that).
    for (const f of followers) cluster.broker(f).child.signal('SIGSTOP');
    for (let i = 0; i < 3; i++) expect((await produce(conn, topic, 1, [`doomed-${i}`])).errorCode).toBe(0);
    await cluster.broker(oldLeader).child.stop({ signal: 'SIGKILL' });
    for (const f of followers) cluster.broker(f).child.signal('SIGCONT');
    const newLeader = await waitUntil(
      async () => {
        const s = await cluster.partitionState(topic, 0);
        return s !== null && s.leader >= 0 && s.leader !== oldLeader ? s.leader : undefined;
      },
      { timeoutMs: 30000, message: 'a new leader' },
    );
    const leaderConn = await connect(newLeader);
    await waitUntil(async () => (await produce(leaderConn, topic, 1, ['new-era-0'])).errorCode === 0, { timeoutMs: 20000, message: 'the new leader to accept writes' });
    expect((await produce(leaderConn, topic, 1, ['new-era-1', 'new-era-2'])).errorCode).toBe(0);

    await cluster.startBroker(oldLeader);
    await waitUntil(async () => (await cluster.partitionState(topic, 0))?.isr.length === 3, { timeoutMs: 30000, message: `broker ${oldLeader} to rejoin the ISR` });
    await waitUntil(() => allBytes(cluster, oldLeader, topic).equals(allBytes(cluster, newLeader, topic)), { timeoutMs: 20000, message: 'the old leader to hold the new leader\'s log' });
    const values = storedBatches(cluster, oldLeader, topic, 0).length;
    expect(values).toBeGreaterThan(5);
    const text = allBytes(cluster, oldLeader, topic).toString('latin1');
    expect(text).not.toContain('doomed-1');
    expect(text).not.toContain('doomed-2');
    expect(text).toContain('new-era-2');
    expect(cluster.broker(oldLeader).readLog()).toMatch(new RegExp(`\\[Log partition=${topic}-0, dir=[^\\]]+\\] Truncating to offset 1[01]`));
  });

  it('starts a follower over at the leader\'s log start offset when the leader deleted what it needs next', async () => {
    const topic = 'behind';
    expect((await topicsTool(cluster, '--create', '--topic', topic, '--partitions', '1', '--replication-factor', '3', '--config', 'segment.bytes=1024', '--config', 'retention.bytes=1024')).code).toBe(0);
    await cluster.waitForLeaders(topic, 1);
    await waitUntil(async () => (await cluster.partitionState(topic, 0))?.isr.length === 3, { message: 'a full ISR' });
    const leader = (await cluster.partitionState(topic, 0))?.leader as number;
    const lagging = [0, 1, 2].find((b) => b !== leader) as number;
    const conn = await connect(leader);
    expect((await produce(conn, topic, -1, ['first'])).errorCode).toBe(0);
    await cluster.broker(lagging).child.stop({ signal: 'SIGKILL' });
    // Without the stopped follower in the ISR the high watermark moves and retention removes old segments.
    await waitUntil(async () => (await cluster.partitionState(topic, 0))?.isr.length === 2, { timeoutMs: 30000, message: `broker ${lagging} to leave the ISR` });
    const payload = 'x'.repeat(300);
    for (let i = 0; i < 30; i++) expect((await produce(conn, topic, -1, [`${i}-${payload}`])).errorCode).toBe(0);
    // The first retention run comes 30 s after the broker started (Kafka's LogManager.InitialTaskDelayMs).
    await waitUntil(() => (storedBatches(cluster, leader, topic, 0)[0]?.lastOffset ?? 0) > 5, { timeoutMs: 45000, message: 'retention to delete the leader\'s first segments' });

    await cluster.startBroker(lagging);
    await waitUntil(async () => (await cluster.partitionState(topic, 0))?.isr.length === 3, { timeoutMs: 30000, message: `broker ${lagging} to rejoin the ISR` });
    expect(cluster.broker(lagging).readLog()).toMatch(new RegExp(`Reset fetch offset for partition ${topic}-0 from \\d+ to current leader ${leader}'s start offset \\d+`));
    await waitUntil(
      () => {
        const ours = storedBatches(cluster, lagging, topic, 0);
        const theirs = storedBatches(cluster, leader, topic, 0);
        const last = ours[ours.length - 1];
        const same = theirs.find((b) => b.lastOffset === last?.lastOffset);
        return last !== undefined && same !== undefined && same.bytes.equals(last.bytes) && last.lastOffset === theirs[theirs.length - 1]?.lastOffset;
      },
      { timeoutMs: 20000, message: 'the follower to catch up from the leader\'s log start' },
    );
  });
});
