import { Consumer, Kafka, logLevel } from 'kafkajs';
import { TestCluster } from '../../helpers/test-cluster';
import { createTopic, GROUP_TEST_PROPS, runTool } from './group-test-setup';
import { waitUntil } from '../../helpers/wait-until';

const consumerGroups = (...args: string[]): Promise<{ code: number | null; output: string }> => runTool('kafka-consumer-groups', ...args);

/** What each live consumer was last assigned (kafkajs GROUP_JOIN), keyed by the consumer's name. */
type Assignments = Map<string, number[]>;

describe('group coordinator with kafkajs 2.2.4 on 2 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const consumers: Consumer[] = [];

  beforeAll(async () => {
    cluster = await TestCluster.start({
      brokers: 2,
      props: GROUP_TEST_PROPS,
    });
    kafka = new Kafka({ clientId: 'groups-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    await createTopic(cluster, 'two', 2);
    const producer = kafka.producer();
    await producer.connect();
    for (const partition of [0, 1]) {
      await producer.send({ topic: 'two', messages: Array.from({ length: 10 }, (_, i) => ({ value: `p${partition}-${i}`, partition })) });
    }
    await producer.disconnect();
  }, 120000);

  afterAll(async () => {
    for (const c of consumers) await c.disconnect().catch(() => undefined);
    await cluster?.close();
  });

  function consumer(groupId: string, name: string, assignments: Assignments, seen: string[] = [], autoCommit = true): Consumer {
    const c = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, maxWaitTimeInMs: 100, rebalanceTimeout: 10000 });
    consumers.push(c);
    c.on(c.events.GROUP_JOIN, (e) => {
      assignments.set(name, [...(e.payload.memberAssignment['two'] ?? [])].sort());
    });
    void (async () => {
      await c.connect();
      await c.subscribe({ topic: 'two', fromBeginning: true });
      await c.run({ autoCommit, eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
    })();
    return c;
  }

  it('gives two members one partition each, and both to the survivor when one leaves', async () => {
    const assignments: Assignments = new Map();
    const a = consumer('g-split', 'a', assignments);
    consumer('g-split', 'b', assignments);
    await waitUntil(() => assignments.get('a')?.length === 1 && assignments.get('b')?.length === 1 && assignments.get('a')![0] !== assignments.get('b')![0], {
      timeoutMs: 30000,
      message: () => `one partition each, got ${JSON.stringify([...assignments])}`,
    });
    await a.disconnect();
    assignments.delete('a');
    await waitUntil(() => assignments.get('b')?.length === 2, { timeoutMs: 30000, message: () => `b to own both, got ${JSON.stringify([...assignments])}` });
  });

  it('resumes from a manually committed offset, stored at /consumers/<group>/offsets/<topic>/<partition>', async () => {
    const assignments: Assignments = new Map();
    const seen: string[] = [];
    const first = consumer('g-manual', 'first', assignments, seen, false);
    await waitUntil(() => seen.length >= 20, { timeoutMs: 30000, message: 'all 20 messages' });
    await first.commitOffsets([
      { topic: 'two', partition: 0, offset: '7' },
      { topic: 'two', partition: 1, offset: '3' },
    ]);
    const node = await cluster.zk.getData(`${cluster.chroot}/consumers/g-manual/offsets/two/0`);
    expect(node?.data?.toString()).toBe('7');
    await first.disconnect();

    const again: string[] = [];
    consumer('g-manual', 'second', new Map(), again, false);
    await waitUntil(() => again.length >= 10, { timeoutMs: 30000, message: () => `resumed messages, got ${again.join(',')}` });
    expect(again.filter((v) => v.startsWith('p0-')).sort()).toEqual(['p0-7', 'p0-8', 'p0-9']);
    expect(again.filter((v) => v.startsWith('p1-'))).toHaveLength(7);
  });

  it('delivers every message to each of two groups', async () => {
    const x: string[] = [];
    const y: string[] = [];
    consumer('g-x', 'x', new Map(), x);
    consumer('g-y', 'y', new Map(), y);
    await waitUntil(() => x.length >= 20 && y.length >= 20, { timeoutMs: 30000, message: () => `both groups, got ${x.length} and ${y.length}` });
    expect(new Set(x).size).toBe(20);
    expect(new Set(y).size).toBe(20);
  });

  it('leaves a member idle when there are more members than partitions', async () => {
    const assignments: Assignments = new Map();
    for (const n of ['m1', 'm2', 'm3']) consumer('g-three', n, assignments);
    await waitUntil(
      () => {
        const sizes = ['m1', 'm2', 'm3'].map((n) => assignments.get(n)?.length);
        return sizes.every((s) => s !== undefined) && sizes.filter((s) => s === 1).length === 2 && sizes.includes(0);
      },
      { timeoutMs: 30000, message: () => `two busy and one idle member, got ${JSON.stringify([...assignments])}` },
    );
  });

  it('kafka-consumer-groups lists, describes with lag, resets and deletes a group (both connection kinds)', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: 'g-lag', topic: 'two', partitions: [{ partition: 0, offset: '4' }, { partition: 1, offset: '10' }] });
    await admin.disconnect();

    const listed = await consumerGroups('--bootstrap-server', cluster.bootstrap, '--list');
    expect(listed.code).toBe(0);
    expect(listed.output.split('\n')).toContain('g-lag');
    expect((await consumerGroups('--zookeeper', cluster.zkConnect, '--list')).output.split('\n')).toContain('g-lag');

    for (const connect of [['--bootstrap-server', cluster.bootstrap], ['--zookeeper', cluster.zkConnect]]) {
      const described = await consumerGroups(...connect, '--describe', '--group', 'g-lag');
      expect(described.code).toBe(0);
      expect(described.output).toContain("Consumer group 'g-lag' has no active members.");
      const rows = described.output.split('\n').filter((l) => l.startsWith('g-lag ')).map((l) => l.split(/\s+/));
      expect(rows).toEqual([
        ['g-lag', 'two', '0', '4', '10', '6', '-', '-', '-'],
        ['g-lag', 'two', '1', '10', '10', '0', '-', '-', '-'],
      ]);
    }

    const reset = await consumerGroups('--bootstrap-server', cluster.bootstrap, '--reset-offsets', '--group', 'g-lag', '--topic', 'two:0', '--to-earliest', '--execute');
    expect(reset.code).toBe(0);
    expect(reset.output).toMatch(/g-lag\s+two\s+0\s+0/);
    expect((await cluster.zk.getData(`${cluster.chroot}/consumers/g-lag/offsets/two/0`))?.data?.toString()).toBe('0');

    const deleted = await consumerGroups('--bootstrap-server', cluster.bootstrap, '--delete', '--group', 'g-lag');
    expect(deleted).toEqual({ code: 0, output: "Deletion of requested consumer groups ('g-lag') was successful." });
    expect(await cluster.zk.exists(`${cluster.chroot}/consumers/g-lag`)).toBeNull();
  });

  it('kafka-consumer-groups --describe shows the owners and lag of an active group', async () => {
    const seen: string[] = [];
    const c = consumer('g-active', 'active', new Map(), seen, false);
    await waitUntil(() => seen.length >= 20, { timeoutMs: 30000, message: 'all 20 messages' });
    await c.commitOffsets([{ topic: 'two', partition: 0, offset: '8' }]);
    const described = await consumerGroups('--bootstrap-server', cluster.bootstrap, '--describe', '--group', 'g-active');
    expect(described.code).toBe(0);
    const rows = described.output.split('\n').filter((l) => l.startsWith('g-active ')).map((l) => l.split(/\s+/));
    expect(rows).toHaveLength(2);
    expect(rows[0]).toEqual(['g-active', 'two', '0', '8', '10', '2', expect.stringMatching(/^groups-test-/), '/127.0.0.1', 'groups-test']);
    expect(rows[1]!.slice(0, 6)).toEqual(['g-active', 'two', '1', '-', '10', '-']);
    const refused = await consumerGroups('--bootstrap-server', cluster.bootstrap, '--delete', '--group', 'g-active');
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('The group is not empty.');
  });
});
