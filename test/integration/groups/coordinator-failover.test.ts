import { Kafka, logLevel } from 'kafkajs';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { coordinatorPartitionFor } from '../../../src/rebalance/coordinator-placement';
import { createTopic, GROUP_TEST_PROPS } from './group-test-setup';

describe('group coordinator failover', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 2, props: { ...GROUP_TEST_PROPS, 'offsets.topic.replication.factor': '2' } });
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('moves the group to the new leader of its __consumer_offsets partition; members rejoin and keep consuming and committing', async () => {
    await createTopic(cluster, 'fo', 2, 2);
    const kafka = new Kafka({ clientId: 'failover', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'fo', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `a${i}`, partition: i % 2 })) });

    const seen = new Set<string>();
    const consumer = kafka.consumer({ groupId: 'g-fo', sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'fo', fromBeginning: true });
    await consumer.run({ autoCommitInterval: 200, eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
    try {
      await waitUntil(() => seen.size >= 10, { timeoutMs: 30000, message: () => `first 10 messages, got ${seen.size}` });

      const partition = coordinatorPartitionFor('g-fo', 4);
      const before = await cluster.partitionState('__consumer_offsets', partition);
      const coordinator = before!.leader;
      const survivor = coordinator === 0 ? 1 : 0;
      await cluster.broker(coordinator).child.stop({ signal: 'SIGKILL' });
      await waitUntil(async () => (await cluster.partitionState('__consumer_offsets', partition))?.leader === survivor, { timeoutMs: 30000, message: 'the offsets partition to move' });
      await waitUntil(async () => (await cluster.partitionState('fo', 0))?.leader === survivor && (await cluster.partitionState('fo', 1))?.leader === survivor, { timeoutMs: 30000, message: 'fo leaders to move' });

      await producer.send({ topic: 'fo', acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `b${i}`, partition: i % 2 })) });
      await waitUntil(() => seen.size >= 20, { timeoutMs: 60000, message: () => `all 20 messages after failover, got ${[...seen].sort().join(',')}` });
      const committed = async (): Promise<number> => {
        let sum = 0;
        for (const p of [0, 1]) sum += Number((await cluster.zk.getData(`${cluster.chroot}/consumers/g-fo/offsets/fo/${p}`))?.data?.toString() ?? 0);
        return sum;
      };
      await waitUntil(async () => (await committed()) === 20, { timeoutMs: 30000, message: 'offsets 10+10 committed through the new coordinator' });
    } finally {
      await consumer.disconnect();
      await producer.disconnect();
    }
  });
});
