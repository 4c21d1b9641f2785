import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';
import { createTopic, GROUP_TEST_PROPS, runTool } from './group-test-setup';
import { waitUntil } from '../../helpers/wait-until';

const PYTHON_MEMBER = path.resolve(__dirname, 'python-group-consumer.py');

/** The partitions of the last assignment a member printed, or undefined before its first. */
function lastAssignment(child: TestChild, pattern: RegExp): string | undefined {
  const matches = [...child.output().matchAll(pattern)];
  return matches.length === 0 ? undefined : matches[matches.length - 1]![1];
}

describe('group coordinator with kafka-python 2.0.2 and kcat -G (librdkafka 2.0.2)', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({
      brokers: 2,
      props: GROUP_TEST_PROPS,
    });
    const kafka = new Kafka({ clientId: 'setup', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    await createTopic(cluster, 'duo', 2);
    const producer = kafka.producer();
    await producer.connect();
    for (const partition of [0, 1]) await producer.send({ topic: 'duo', messages: Array.from({ length: 5 }, (_, i) => ({ value: `p${partition}-${i}`, partition })) });
    await producer.disconnect();
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('kafka-python: two members split the partitions; the survivor gets both when one closes', async () => {
    const member = (): TestChild => spawnChild('/usr/bin/python3', ['-u', PYTHON_MEMBER, cluster.bootstrap, 'py-group', 'duo'], { name: 'kafka-python' });
    const a = member();
    const b = member();
    const assigned = /ASSIGNED ([\d,]*)/g;
    await waitUntil(
      () => {
        const [x, y] = [lastAssignment(a, assigned), lastAssignment(b, assigned)];
        return x !== undefined && y !== undefined && x.length === 1 && y.length === 1 && x !== y;
      },
      { timeoutMs: 45000, message: () => `one partition each:\n${a.tail(10)}\n---\n${b.tail(10)}` },
    );
    await a.stop({ signal: 'SIGTERM' });
    await waitUntil(() => lastAssignment(b, assigned) === '0,1', { timeoutMs: 30000, message: () => `b to own both:\n${b.tail(10)}` });
    // The assignment line comes before the records of the newly assigned partition: wait for them to be read.
    const seen = (): Set<string | undefined> => new Set([...b.output().matchAll(/MSG (\S+)/g), ...a.output().matchAll(/MSG (\S+)/g)].map((m) => m[1]));
    await waitUntil(() => seen().size === 10, { timeoutMs: 30000, message: () => `all 10 records read:\n${b.tail(10)}` });
    expect(seen().size).toBe(10);
    await b.stop({ signal: 'SIGTERM' });
  });

  it('kcat -G: two members split the partitions; the survivor gets both when one stops', async () => {
    const member = (): TestChild =>
      spawnChild('kcat', ['-b', cluster.bootstrap, '-G', 'kcat-group', 'duo', '-o', 'beginning', '-f', 'MSG %s\n', '-X', 'session.timeout.ms=6000', '-X', 'heartbeat.interval.ms=500'], { name: 'kcat' });
    const a = member();
    const b = member();
    // kcat reports "% Group kcat-group rebalanced (memberid ...): assigned: duo [0], duo [1]".
    const assigned = /rebalanced \(memberid [^)]*\): assigned: ([^\n]*)/g;
    const partitions = (c: TestChild): string | undefined => {
      const text = lastAssignment(c, assigned);
      return text === undefined ? undefined : [...text.matchAll(/\[(\d+)\]/g)].map((m) => m[1]).sort().join(',');
    };
    await waitUntil(
      () => {
        const [x, y] = [partitions(a), partitions(b)];
        return x !== undefined && y !== undefined && x.length === 1 && y.length === 1 && x !== y;
      },
      { timeoutMs: 45000, message: () => `one partition each:\n${a.tail(10)}\n---\n${b.tail(10)}` },
    );
    await a.stop({ signal: 'SIGTERM' });
    await waitUntil(() => partitions(b) === '0,1', { timeoutMs: 30000, message: () => `b to own both:\n${b.tail(10)}` });
    await b.stop({ signal: 'SIGTERM' });
  });

  it('kafka-console-consumer --bootstrap-server --group commits what it printed, and the next run continues from there', async () => {
    const args = ['--bootstrap-server', cluster.bootstrap, '--topic', 'duo', '--group', 'console-group', '--from-beginning'];
    const values = (output: string): string[] => output.split('\n').filter((l) => /^p[01]-\d$/.test(l));
    const first = await runTool('kafka-console-consumer', ...args, '--max-messages', '6');
    expect(first.code).toBe(0);
    expect(values(first.output)).toHaveLength(6);
    const committed = await Promise.all([0, 1].map(async (p) => Number((await cluster.zk.getData(`${cluster.chroot}/consumers/console-group/offsets/duo/${p}`))?.data?.toString() ?? 0)));
    expect(committed[0]! + committed[1]!).toBe(6);
    const second = await runTool('kafka-console-consumer', ...args, '--max-messages', '4');
    expect(second.code).toBe(0);
    expect(new Set([...values(first.output), ...values(second.output)]).size).toBe(10);
  });
});
