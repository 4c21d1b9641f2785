import { Kafka, logLevel } from 'kafkajs';
import { fullCount, metadataPartitions, openDescriptors, segmentCount, zkPartitionStates } from '../../helpers/cluster-state';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/*
 * The code paths of `npm run bench:scale` at a tenth of its size (issue 13): 1,000 partitions, RF 3, on 3 brokers
 * and a 3-node ensemble. Creation, the controller's SIGKILL, a restart with the partitions on disk and a controlled
 * shutdown each finish within a deadline, and a broker holds about one descriptor per segment.
 */
const TOPICS = 10;
const PARTITIONS = 100;
const RF = 3;
const ALL = Array.from({ length: TOPICS * PARTITIONS }, (_, i) => ({ topic: `smoke-${Math.floor(i / PARTITIONS)}`, partition: i % PARTITIONS }));
const TOPIC_NAMES = [...new Set(ALL.map((p) => p.topic))];

describe('1,000 partitions, RF 3, on 3 brokers (issue 13 smoke test)', () => {
  let cluster: TestCluster;
  const fdsBefore = new Map<number, number>();

  const states = (): ReturnType<typeof zkPartitionStates> => zkPartitionStates(cluster.zk, cluster.chroot, ALL);

  const waitForFullEverywhere = async (brokers: readonly number[], timeoutMs: number): Promise<void> => {
    let last = '';
    await waitUntil(
      async () => {
        const counts = await Promise.all(brokers.map(async (id) => fullCount((await metadataPartitions(cluster.broker(id).port, TOPIC_NAMES)).partitions, RF)));
        const zk = fullCount(await states(), RF);
        last = `Metadata ${counts.join('/')}, ZooKeeper ${zk} of ${ALL.length}`;
        return zk === ALL.length && counts.every((c) => c === ALL.length);
      },
      { timeoutMs, intervalMs: 500, message: () => `every partition with a leader and a full ISR (${last})` },
    );
  };

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    for (const id of [0, 1, 2]) fdsBefore.set(id, openDescriptors(cluster.broker(id).pid));
  });

  afterAll(async () => {
    await cluster?.close();
  });

  it('creates 10 topics of 100 partitions: leaders and full ISRs in ZooKeeper and in every broker, about one descriptor per segment', async () => {
    const admin = new Kafka({ clientId: 'scale-smoke', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      await admin.createTopics({ waitForLeaders: false, timeout: 60000, topics: TOPIC_NAMES.map((topic) => ({ topic, numPartitions: PARTITIONS, replicationFactor: RF })) });
    } finally {
      await admin.disconnect();
    }
    await waitForFullEverywhere([0, 1, 2], 120_000);
    for (const id of [0, 1, 2]) {
      const b = cluster.broker(id);
      const segments = segmentCount(b.logDirs);
      expect(segments).toBeGreaterThanOrEqual(ALL.length);
      // One per segment, plus a little for connections made since (fetchers, the test's own).
      expect(openDescriptors(b.pid) - (fdsBefore.get(id) ?? 0)).toBeLessThanOrEqual(segments + 40);
    }
  }, 180_000);

  it('moves every leadership of a SIGKILLed controller, and takes the broker back into every ISR when it returns', async () => {
    const controller = await cluster.waitForController();
    const led = (await states()).filter((s) => s.leader === controller);
    expect(led.length).toBeGreaterThan(0);
    cluster.broker(controller).child.signal('SIGKILL');
    await cluster.broker(controller).child.exited;
    await waitUntil(async () => (await zkPartitionStates(cluster.zk, cluster.chroot, led)).every((s) => s.leader >= 0 && s.leader !== controller), {
      timeoutMs: 60_000,
      intervalMs: 250,
      message: `the ${led.length} leaderships of broker ${controller} to move`,
    });
    await cluster.startBroker(controller);
    await waitUntil(async () => (await states()).every((s) => s.isr.includes(controller)), { timeoutMs: 120_000, intervalMs: 500, message: `broker ${controller} back in every ISR` });
    await waitForFullEverywhere([0, 1, 2], 60_000);
  }, 240_000);

  it('a controlled shutdown moves every leadership of the broker before it exits', async () => {
    const controller = await cluster.waitForController();
    // The broker (not the controller) that leads the most: since the failover above, about half.
    const now = await states();
    const leading = (id: number): number => now.filter((s) => s.leader === id).length;
    const target = [0, 1, 2].filter((id) => id !== controller).sort((a, b) => leading(b) - leading(a))[0] as number;
    const led = now.filter((s) => s.leader === target);
    expect(led.length).toBeGreaterThan(0);
    const exit = await cluster.broker(target).child.stop({ graceMs: 60_000 });
    expect(exit.code).toBe(0);
    const after = await zkPartitionStates(cluster.zk, cluster.chroot, led);
    expect(after.filter((s) => s.leader === target)).toEqual([]);
    expect(cluster.broker(target).readLog()).toMatch(/Controlled shutdown succeeded/);
  }, 120_000);
});
