import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BIN } from '../../helpers/broker-process';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, ZkEnsemble } from '../../helpers/zk-ensemble';

const TOPIC = 'mirrored';
const GROUP = 'mirror-group';

interface Copied {
  key: string;
  value: string;
  timestamp: string;
  header: string;
}

function kafka(cluster: TestCluster): Kafka {
  return new Kafka({ clientId: 'mirror-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
}

/** Every record of the topic, per partition in offset order. */
async function readAll(cluster: TestCluster, expected: number): Promise<Map<number, Copied[]>> {
  const consumer = kafka(cluster).consumer({ groupId: `reader-${Date.now()}-${Math.random()}` });
  const byPartition = new Map<number, Copied[]>();
  let seen = 0;
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      const list = byPartition.get(partition) ?? [];
      list.push({ key: String(message.key), value: String(message.value), timestamp: message.timestamp, header: String(message.headers?.['origin']) });
      byPartition.set(partition, list);
      seen++;
    },
  });
  await waitUntil(() => seen >= expected, { timeoutMs: 60000, message: `${expected} records of ${TOPIC}` });
  await consumer.disconnect();
  return byPartition;
}

async function produce(cluster: TestCluster, from: number, count: number): Promise<void> {
  const producer = kafka(cluster).producer();
  await producer.connect();
  await producer.send({
    topic: TOPIC,
    acks: -1,
    messages: Array.from({ length: count }, (_, i) => ({ key: `k${(from + i) % 7}`, value: `v${from + i}`, timestamp: String(1600000000000 + from + i), headers: { origin: `h${from + i}` } })),
  });
  await producer.disconnect();
}

describe('kafka-mirror-maker between two clusters on one ZooKeeper ensemble', () => {
  let ensemble: ZkEnsemble;
  let source: TestCluster;
  let target: TestCluster;
  let mirror: TestChild | undefined;
  const dir = tmpDir('mirror-maker-');

  beforeAll(async () => {
    ensemble = await startZkEnsemble({ size: 3 });
    [source, target] = await Promise.all([TestCluster.start({ brokers: 1, ensemble }), TestCluster.start({ brokers: 1, ensemble })]);
    for (const cluster of [source, target]) {
      const admin = kafka(cluster).admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3, replicationFactor: 1 }], waitForLeaders: true });
      await admin.disconnect();
    }
    await produce(source, 0, 60);
  }, 180000);

  afterAll(async () => {
    await mirror?.stop();
    await source?.close();
    await target?.close();
    await ensemble?.close();
  });

  async function committedEqualsEnd(): Promise<void> {
    const admin = kafka(source).admin();
    await admin.connect();
    try {
      const ends = await admin.fetchTopicOffsets(TOPIC);
      const [committed] = await admin.fetchOffsets({ groupId: GROUP, topics: [TOPIC] });
      const byPartition = new Map(committed!.partitions.map((p) => [p.partition, p.offset]));
      for (const e of ends) expect(byPartition.get(e.partition)).toBe(e.high);
    } finally {
      await admin.disconnect();
    }
  }

  async function runMirror(consumerProps: string, name: string, expected: number): Promise<string> {
    const consumerConfig = path.join(dir, `${name}-consumer.properties`);
    const producerConfig = path.join(dir, `${name}-producer.properties`);
    fs.writeFileSync(consumerConfig, consumerProps);
    fs.writeFileSync(producerConfig, `bootstrap.servers=${target.bootstrap}\n`);
    mirror = spawnChild(BIN('kafka-mirror-maker'), ['--consumer.config', consumerConfig, '--producer.config', producerConfig, '--whitelist', `other,${TOPIC.slice(0, 4)}.*`, '--num.streams', '2', '--offset.commit.interval.ms', '1000']);
    const admin = kafka(target).admin();
    await admin.connect();
    await waitUntil(async () => (await admin.fetchTopicOffsets(TOPIC)).reduce((n, p) => n + Number(p.high), 0) >= expected, { timeoutMs: 60000, message: `${expected} records on the target` });
    await admin.disconnect();
    const exit = await mirror.stop({ signal: 'SIGTERM', graceMs: 30000 });
    const output = mirror.output();
    mirror = undefined;
    expect(exit.code).toBe(0);
    return output;
  }

  it('copies every record with a bootstrap.servers consumer, then resumes with a zookeeper.connect one; offsets committed at the end', async () => {
    const first = await runMirror(`bootstrap.servers=${source.bootstrap}\ngroup.id=${GROUP}\nauto.offset.reset=earliest\n`, 'group', 60);
    expect(first).toMatch(/INFO Starting mirror maker \(kafka\.tools\.MirrorMaker\$\)/);
    expect(first).toContain("WARNING: The default partition assignment strategy of the mirror maker will change from 'range' to 'roundrobin'");
    expect(first).toMatch(/INFO \[mirrormaker-thread-1\] Committing consumer offsets\. \(kafka\.tools\.MirrorMaker\$MirrorMakerThread\)/);
    expect(first).toContain('Kafka mirror maker shutdown successfully');
    await committedEqualsEnd();

    // The ZooKeeper-based consumer of the same group resumes from the offsets the group committed: no copy twice.
    await produce(source, 60, 30);
    const second = await runMirror(`zookeeper.connect=${source.zkConnect}\ngroup.id=${GROUP}\nauto.offset.reset=smallest\n`, 'zk', 90);
    expect(second).toContain('Kafka mirror maker shutdown successfully');
    await committedEqualsEnd();

    const [from, to] = await Promise.all([readAll(source, 90), readAll(target, 90)]);
    expect([...to.values()].reduce((n, l) => n + l.length, 0)).toBe(90);
    for (const p of [0, 1, 2]) expect(to.get(p) ?? []).toEqual(from.get(p) ?? []);
  }, 240000);

  it('bad arguments are one line and exit 1', async () => {
    const cases: [string[], RegExp][] = [
      [['--producer.config', '/x'], /^Missing required argument "\[consumer\.config\]"$/m],
      [['--consumer.config', '/x', '--producer.config', '/y', '--message.handler', 'a.B'], /^Option "\[message\.handler\]" is not supported/m],
      [['--consumer.config', '/nonexistent', '--producer.config', '/y', '--whitelist', 'a'], /^java\.io\.FileNotFoundException: \/nonexistent \(No such file or directory\)$/m],
    ];
    for (const [args, line] of cases) {
      const child = spawnChild(BIN('kafka-mirror-maker'), args);
      const exit = await child.exited;
      expect(exit.code).toBe(1);
      expect(child.output()).toMatch(line);
    }
  }, 60000);
});
