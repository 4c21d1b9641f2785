import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { Producer } from '../../../src/client/producer';
import { ZookeeperConsumer } from '../../../src/rebalance/zookeeper-consumer';
import { createTopic, GROUP_TEST_PROPS } from './group-test-setup';

// CI churns for 20 s; `npm run test:long` churns for the full 60 s (CHURN_MS).
const CHURN_MS = Number(process.env['CHURN_MS'] ?? 20000);
const PARTITIONS = 4;

/** A small seeded generator, so a failing run can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 0x100000000;
  };
}

interface Member {
  consumer: ZookeeperConsumer;
  loop: Promise<void>;
  stop: boolean;
}

describe('a ZooKeeper consumer group under churn', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 2, props: GROUP_TEST_PROPS });
    await createTopic(cluster, 'churn', PARTITIONS);
  }, 120000);
  afterAll(async () => cluster?.close());

  it(`consumes every acknowledged message at least once while five members join and leave for ${CHURN_MS / 1000} s, never two owners at once`, async () => {
    const rnd = random(Number(process.env['CHURN_SEED'] ?? 20261129));
    const acknowledged = new Set<string>();
    const consumed = new Set<string>();
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: 1, lingerMs: 5 });
    let producing = true;
    let next = 0;
    const production = (async () => {
      while (producing) {
        const batch = Array.from({ length: 20 }, () => `m${next++}`);
        await Promise.all(batch.map((v) => producer.send('churn', null, Buffer.from(v)).then(() => acknowledged.add(v))));
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const members: Member[] = [];
    let ids = 0;
    const join = async (): Promise<void> => {
      const consumer = new ZookeeperConsumer({ zkConnect: cluster.zkConnect, groupId: 'churners', consumerId: `c${ids++}`, topics: ['churn'], autoOffsetReset: 'smallest', autoCommitEnable: true, autoCommitIntervalMs: 500, rebalanceBackoffMs: 200, rebalanceMaxRetries: 50, fetchWaitMaxMs: 100 });
      await consumer.start();
      const member: Member = { consumer, stop: false, loop: Promise.resolve() };
      member.loop = (async () => {
        while (!member.stop) for (const r of await consumer.poll()) consumed.add(r.value?.toString() ?? '');
      })();
      members.push(member);
    };
    const leave = async (member: Member): Promise<void> => {
      members.splice(members.indexOf(member), 1);
      member.stop = true;
      await member.loop;
      await member.consumer.close();
    };

    // Exclusivity, checked continuously: no partition is held by two live members' assignments at once.
    let overlaps = 0;
    let checking = true;
    const checker = (async () => {
      while (checking) {
        const held = new Map<number, number>();
        for (const m of members) for (const tp of m.consumer.assignment) held.set(tp.partition, (held.get(tp.partition) ?? 0) + 1);
        for (const count of held.values()) if (count > 1) overlaps++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    })();

    const end = Date.now() + CHURN_MS;
    await join();
    while (Date.now() < end) {
      if (members.length < 5 && (members.length <= 1 || rnd() < 0.55)) await join();
      else await leave(members[Math.floor(rnd() * members.length)] as Member);
      await new Promise((resolve) => setTimeout(resolve, 500 + Math.floor(rnd() * 2000)));
    }
    producing = false;
    await production;
    await producer.close();
    if (members.length === 0) await join();
    await waitUntil(() => [...acknowledged].every((v) => consumed.has(v)), {
      timeoutMs: 60000,
      message: () => `every acknowledged message consumed (${[...acknowledged].filter((v) => !consumed.has(v)).length} missing of ${acknowledged.size})`,
    });
    checking = false;
    await checker;
    for (const m of [...members]) await leave(m);
    expect(acknowledged.size).toBeGreaterThan(CHURN_MS / 60);
    expect(overlaps).toBe(0);
    expect(ids).toBeGreaterThan(3);
  }, 240000);
});
