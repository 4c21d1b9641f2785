import { Kafka, logLevel } from 'kafkajs';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { ZookeeperConsumer } from '../../../src/rebalance/zookeeper-consumer';
import { createTopic, GROUP_TEST_PROPS, runTool } from './group-test-setup';

describe('the ZooKeeper-based consumer and kafka-console-consumer --zookeeper', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const consumers: ZookeeperConsumer[] = [];

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 2, props: GROUP_TEST_PROPS });
    kafka = new Kafka({ clientId: 'zk-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    await createTopic(cluster, 'zt', 2);
    const producer = kafka.producer();
    await producer.connect();
    for (const partition of [0, 1]) await producer.send({ topic: 'zt', messages: Array.from({ length: 10 }, (_, i) => ({ value: `p${partition}-${i}`, partition })) });
    await producer.disconnect();
  }, 120000);

  afterAll(async () => {
    for (const c of consumers) await c.close().catch(() => undefined);
    await cluster?.close();
  });

  function zkConsumer(groupId: string, extra: Partial<ConstructorParameters<typeof ZookeeperConsumer>[0]> = {}): ZookeeperConsumer {
    const c = new ZookeeperConsumer({ zkConnect: cluster.zkConnect, groupId, topics: ['zt'], autoOffsetReset: 'smallest', rebalanceBackoffMs: 200, rebalanceMaxRetries: 20, ...extra });
    consumers.push(c);
    return c;
  }

  const owners = async (group: string): Promise<Record<string, string | undefined>> => {
    const result: Record<string, string | undefined> = {};
    for (const p of [0, 1]) result[p] = (await cluster.zk.getData(`${cluster.chroot}/consumers/${group}/owners/zt/${p}`))?.data?.toString();
    return result;
  };

  it('registers, splits the partitions between two members through owner nodes, and hands both to the survivor', async () => {
    const a = zkConsumer('zk-split', { consumerId: 'a' });
    const b = zkConsumer('zk-split', { consumerId: 'b' });
    await Promise.all([a.start(), b.start()]);
    const registration = JSON.parse((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-split/ids/zk-split_a`))!.data!.toString());
    expect(registration).toMatchObject({ version: 1, subscription: { zt: 1 }, pattern: 'static' });
    let last: Record<string, string | undefined> = {};
    await waitUntil(async () => {
      last = await owners('zk-split');
      // The owner nodes are claimed before the member has set up its fetcher and taken the partitions on.
      return last[0] === 'zk-split_a-0' && last[1] === 'zk-split_b-0' && a.assignment.length === 1 && b.assignment.length === 1;
    }, { timeoutMs: 30000, message: () => `range assignment a:0 b:1, owners ${JSON.stringify(last)}` });
    expect(a.assignment).toEqual([{ topic: 'zt', partition: 0 }]);
    expect(b.assignment).toEqual([{ topic: 'zt', partition: 1 }]);
    const described = await runTool('kafka-consumer-groups', '--zookeeper', cluster.zkConnect, '--describe', '--group', 'zk-split');
    expect(described.code).toBe(0);
    const rows = described.output.split('\n').filter((l) => l.startsWith('zk-split ')).map((l) => l.split(/\s+/));
    expect(rows.map((r) => [r[1], r[2], r[4], r[6]])).toEqual([
      ['zt', '0', '10', 'zk-split_a'],
      ['zt', '1', '10', 'zk-split_b'],
    ]);
    const seenA: string[] = [];
    await waitUntil(async () => {
      seenA.push(...(await a.poll()).map((r) => `${r.partition}:${r.value!.toString()}`));
      return seenA.length >= 10;
    }, { timeoutMs: 20000, message: 'a reads partition 0' });
    expect(seenA).toEqual(Array.from({ length: 10 }, (_, i) => `0:p0-${i}`));
    await a.close();
    await waitUntil(async () => {
      last = await owners('zk-split');
      return last[0] === 'zk-split_b-0' && last[1] === 'zk-split_b-0';
    }, { timeoutMs: 30000, message: () => `b owns both, owners ${JSON.stringify(last)}` });
    // a committed what it consumed when it closed (auto commit), so b resumes after it.
    expect((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-split/offsets/zt/0`))?.data?.toString()).toBe('10');
    await b.close();
  });

  it('commits manually to /consumers/<group>/offsets, which a kafkajs member of the same group resumes from', async () => {
    const c = zkConsumer('zk-shared', { autoCommitEnable: false });
    await c.start();
    const values: string[] = [];
    await waitUntil(async () => {
      values.push(...(await c.poll(25 - values.length)).map((r) => r.value!.toString()));
      return values.length >= 15;
    }, { timeoutMs: 20000, message: 'records' });
    await c.commitOffsets();
    // A partition nothing was consumed from has no offset node yet (Kafka's ZooKeeper consumer writes only moved offsets).
    const committed = await Promise.all([0, 1].map(async (p) => Number((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-shared/offsets/zt/${p}`))?.data?.toString() ?? '0')));
    expect(committed[0]! + committed[1]!).toBe(values.length);
    await c.close();

    const rest: string[] = [];
    const k = kafka.consumer({ groupId: 'zk-shared', maxWaitTimeInMs: 100 });
    await k.connect();
    await k.subscribe({ topic: 'zt', fromBeginning: true });
    await k.run({ eachMessage: async ({ message }) => void rest.push(message.value!.toString()) });
    try {
      await waitUntil(() => rest.length >= 20 - values.length, { timeoutMs: 30000, message: () => `the rest, got ${rest.join(',')}` });
      expect(new Set([...values, ...rest]).size).toBe(20);
    } finally {
      await k.disconnect();
    }
  });

  it('resumes from the offsets a kafkajs member committed (the other direction)', async () => {
    const k = kafka.consumer({ groupId: 'js-first', maxWaitTimeInMs: 100 });
    await k.connect();
    await k.subscribe({ topic: 'zt', fromBeginning: true });
    const first: string[] = [];
    await k.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        if (Number(message.offset) >= 4) return;
        first.push(message.value!.toString());
        await k.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
      },
    });
    try {
      await waitUntil(async () => {
        const offsets = await Promise.all([0, 1].map(async (p) => (await cluster.zk.getData(`${cluster.chroot}/consumers/js-first/offsets/zt/${p}`))?.data?.toString()));
        return offsets[0] === '4' && offsets[1] === '4';
      }, { timeoutMs: 30000, message: 'kafkajs to commit offset 4 on both partitions under /consumers/js-first/offsets' });
    } finally {
      await k.disconnect();
    }
    const c = zkConsumer('js-first', { autoCommitEnable: false });
    await c.start();
    const rest: string[] = [];
    await waitUntil(async () => {
      rest.push(...(await c.poll()).map((r) => r.value!.toString()));
      return rest.length >= 12;
    }, { timeoutMs: 20000, message: 'the records after the committed offsets' });
    expect(rest.sort()).toEqual(['p0-4', 'p0-5', 'p0-6', 'p0-7', 'p0-8', 'p0-9', 'p1-4', 'p1-5', 'p1-6', 'p1-7', 'p1-8', 'p1-9']);
    expect(new Set([...first, ...rest]).size).toBe(20);
    await c.close();
  });

  it('kafka-console-consumer --zookeeper reads from the beginning and removes its generated group', async () => {
    const r = await runTool('kafka-console-consumer', '--zookeeper', cluster.zkConnect, '--topic', 'zt', '--from-beginning', '--max-messages', '20');
    expect(r.code).toBe(0);
    const lines = r.output.split('\n');
    expect(lines.filter((l) => /^p[01]-\d$/.test(l))).toHaveLength(20);
    expect(lines).toContain('Processed a total of 20 messages');
    expect(lines[0]).toContain('Using the ConsoleConsumer with old consumer is deprecated');
    expect(((await cluster.zk.getChildren(`${cluster.chroot}/consumers`)) ?? []).filter((g) => g.startsWith('console-consumer-'))).toEqual([]);

    const named = await runTool('kafka-console-consumer', '--zookeeper', cluster.zkConnect, '--topic', 'zt', '--from-beginning', '--group', 'console-zk', '--max-messages', '5');
    expect(named.code).toBe(0);
    const again = await runTool('kafka-console-consumer', '--zookeeper', cluster.zkConnect, '--topic', 'zt', '--from-beginning', '--group', 'console-zk', '--max-messages', '5');
    expect(again.code).toBe(1);
    expect(again.output).toContain('Found previous offset information for this group console-zk. Please use --delete-consumer-offsets to delete previous offsets metadata');
  });

  it('whitelist subscriptions with roundrobin cover every partition of the matching topics exactly once', async () => {
    await createTopic(cluster, 'zu', 2);
    const a = zkConsumer('zk-rr', { topics: undefined, whitelist: 'z[tu]', partitionAssignmentStrategy: 'roundrobin', consumerId: 'a' });
    const b = zkConsumer('zk-rr', { topics: undefined, whitelist: 'z[tu]', partitionAssignmentStrategy: 'roundrobin', consumerId: 'b' });
    await Promise.all([a.start(), b.start()]);
    const registration = JSON.parse((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-rr/ids/zk-rr_a`))!.data!.toString());
    expect(registration).toMatchObject({ subscription: { 'z[tu]': 1 }, pattern: 'white_list' });
    const key = (tps: { topic: string; partition: number }[]): string[] => tps.map((tp) => `${tp.topic}-${tp.partition}`).sort();
    await waitUntil(() => a.assignment.length === 2 && b.assignment.length === 2, { timeoutMs: 30000, message: () => `2 + 2 partitions, got ${key(a.assignment)} / ${key(b.assignment)}` });
    expect([...key(a.assignment), ...key(b.assignment)].sort()).toEqual(['zt-0', 'zt-1', 'zu-0', 'zu-1']);
    await Promise.all([a.close(), b.close()]);
  });

  it('kafka-consumer-groups --zookeeper resets an inactive group (dry run first) and deletes it', async () => {
    await cluster.zk.createRecursive(`${cluster.chroot}/consumers/zk-reset/offsets/zt/0`, Buffer.from('2'));
    const dry = await runTool('kafka-consumer-groups', '--zookeeper', cluster.zkConnect, '--reset-offsets', '--group', 'zk-reset', '--topic', 'zt', '--to-latest', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.output).toMatch(/zk-reset\s+zt\s+0\s+10/);
    expect((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-reset/offsets/zt/0`))?.data?.toString()).toBe('2');
    const done = await runTool('kafka-consumer-groups', '--zookeeper', cluster.zkConnect, '--reset-offsets', '--group', 'zk-reset', '--topic', 'zt', '--to-offset', '5', '--execute');
    expect(done.code).toBe(0);
    expect((await cluster.zk.getData(`${cluster.chroot}/consumers/zk-reset/offsets/zt/1`))?.data?.toString()).toBe('5');
    const deleted = await runTool('kafka-consumer-groups', '--zookeeper', cluster.zkConnect, '--delete', '--group', 'zk-reset');
    expect(deleted.output).toContain("Deleted all consumer group information for group 'zk-reset' in zookeeper.");
    expect(await cluster.zk.exists(`${cluster.chroot}/consumers/zk-reset`)).toBeNull();
    const missing = await runTool('kafka-consumer-groups', '--zookeeper', cluster.zkConnect, '--describe', '--group', 'zk-reset');
    expect(missing.code).toBe(1);
    expect(missing.output).toContain("Error: The consumer group 'zk-reset' does not exist.");
  });
});
