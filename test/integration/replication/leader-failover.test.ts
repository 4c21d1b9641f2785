import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { NetworkClient } from '../../../src/client/network-client';
import { PartitionConsumer } from '../../../src/client/partition-consumer';
import { Producer } from '../../../src/client/producer';
import { committedBytes, keepLogs, storedBatches, topicsTool } from './replication-helpers';

const TOPIC = 'failover';
const CYCLES = 5;

describe('RF=3, min.insync.replicas=2, acks=all across leader crashes', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'min.insync.replicas': '2', 'replica.lag.time.max.ms': '10000' } });
    const created = await topicsTool(cluster, '--create', '--topic', TOPIC, '--partitions', '1', '--replication-factor', '3');
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 1);
  }, 120000);

  afterAll(async () => {
    if (cluster !== undefined) keepLogs(cluster, 'leader-failover');
    await cluster?.close();
  });

  async function fullIsr(): Promise<boolean> {
    return ((await cluster.partitionState(TOPIC, 0))?.isr.length ?? 0) === 3;
  }

  it('loses no acknowledged message while the leader is killed and restarted, and the replicas end byte-identical', async () => {
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1, lingerMs: 2, requestTimeoutMs: 15000, deliveryTimeoutMs: 110000 });
    const acked = new Map<number, string>();
    const failures: string[] = [];
    let next = 0;
    let producing = true;
    const inFlight = new Set<Promise<void>>();
    // Keep up to 20 records outstanding, numbered in send order.
    const loop = (async () => {
      while (producing) {
        if (inFlight.size >= 20) {
          await Promise.race(inFlight);
          continue;
        }
        const value = `message-${next++}`;
        const p = producer.send(TOPIC, null, Buffer.from(value), 0).then(
          (m) => {
            acked.set(m.offset, value);
          },
          (err: Error) => {
            failures.push(`${value}: ${err.message}`);
          },
        );
        const tracked = p.finally(() => inFlight.delete(tracked));
        inFlight.add(tracked);
      }
      await Promise.all(inFlight);
    })();

    const waitForAcks = (n: number, what: string): Promise<boolean> => waitUntil(() => acked.size >= n, { timeoutMs: 60000, message: `${n} acknowledged messages ${what}` });

    await waitUntil(fullIsr, { timeoutMs: 20000, message: 'all replicas in the ISR' });
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      await waitForAcks(acked.size + 200, `before crash ${cycle + 1}`);
      const leader = (await cluster.partitionState(TOPIC, 0))?.leader as number;
      await cluster.broker(leader).child.stop({ signal: 'SIGKILL' });
      await waitUntil(async () => {
        const s = await cluster.partitionState(TOPIC, 0);
        return s !== null && s.leader >= 0 && s.leader !== leader;
      }, { timeoutMs: 30000, message: `a new leader after killing broker ${leader}` });
      await waitForAcks(acked.size + 100, `with broker ${leader} down`);
      await cluster.startBroker(leader);
      await waitUntil(fullIsr, { timeoutMs: 30000, message: `broker ${leader} to rejoin the ISR` });
    }
    await waitForAcks(acked.size + 100, 'after the last restart');
    producing = false;
    await loop;
    await producer.close();
    expect(failures).toEqual([]);

    // Every acknowledged message is at its acknowledged offset; offsets are dense from 0 to the high watermark.
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    const consumer = new PartitionConsumer(client, { maxWaitMs: 200 });
    const tp = { topic: TOPIC, partition: 0 };
    const highWatermark = await consumer.listOffset(tp, -1);
    await consumer.assign([tp], 'earliest');
    const consumed = new Map<number, string>();
    await waitUntil(
      async () => {
        for (const r of await consumer.poll()) consumed.set(r.offset, r.value?.toString() ?? '');
        return (consumer.position(tp) ?? 0) >= highWatermark;
      },
      { timeoutMs: 30000, message: `consuming up to ${highWatermark}` },
    );
    client.close();
    expect(consumed.size).toBe(highWatermark);
    for (let o = 0; o < highWatermark; o++) expect(consumed.has(o)).toBe(true);
    const lost = [...acked].filter(([offset, value]) => consumed.get(offset) !== value);
    expect(lost).toEqual([]);
    expect(Math.max(...acked.keys())).toBeLessThan(highWatermark);

    // Every replica holds the same bytes for every committed offset.
    await waitUntil(
      () => {
        const logs = [0, 1, 2].map((b) => committedBytes(storedBatches(cluster, b, TOPIC, 0), highWatermark));
        return logs.every((l) => l.length > 0 && l.equals(logs[0] as Buffer));
      },
      { timeoutMs: 30000, message: 'byte-identical committed batches on all replicas' },
    );
  }, 180000);
});
