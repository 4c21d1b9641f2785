import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { readJson } from '../../helpers/zk-inspect';
import { NetworkClient } from '../../../src/client/network-client';
import { DescribeLogDirsApi } from '../../../src/protocol/apis/describe-log-dirs';

const MB = 1024 * 1024;

describe('Replication throttling and kafka-reassign-partitions --throttle, log_dirs, --verify and --cancel on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const dirs = [path.resolve(tmpDir('throttle-dirs-a-')), path.resolve(tmpDir('throttle-dirs-b-'))];
  const tool = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-reassign-partitions', ['--bootstrap-server', cluster.bootstrap, ...args]);
  const config = async (entity: string): Promise<Record<string, string>> => ((await readJson(cluster.zk, `${cluster.chroot}/config/${entity}`))?.['config'] ?? {}) as Record<string, string>;
  const planFile = (plan: unknown): string => {
    const file = path.join(tmpDir('throttle-plan-'), 'plan.json');
    fs.writeFileSync(file, JSON.stringify(plan));
    return file;
  };

  async function produce(topic: string, bytes: number): Promise<void> {
    const producer = kafka.producer();
    await producer.connect();
    const value = Buffer.alloc(10_000, 'x');
    for (let sent = 0; sent < bytes; sent += 50 * value.length) {
      await producer.send({ topic, acks: 1, messages: Array.from({ length: 50 }, () => ({ value })) });
    }
    await producer.disconnect();
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, logDirs: { 2: dirs }, props: { 'auto.leader.rebalance.enable': 'false' } });
    kafka = new Kafka({ clientId: 'throttle-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    for (const [topic, assignment] of [['throttled', '0'], ['dirmove', '2'], ['zkform', '1']] as const) {
      expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--replica-assignment', assignment])).code).toBe(0);
      await cluster.waitForLeaders(topic, 1);
    }
    await produce('throttled', 4 * MB);
    await produce('dirmove', 3 * MB);
  }, 180000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('throttles a new replica to about --throttle bytes per second, then --verify clears the throttles', async () => {
    const plan = planFile({ version: 1, partitions: [{ topic: 'throttled', partition: 0, replicas: [0, 1] }] });
    const run = await tool(['--execute', '--reassignment-json-file', plan, '--throttle', String(MB)]);
    // The copy starts as the tool ends (its last request starts the reassignment).
    const started = Date.now();
    expect(run.code).toBe(0);
    expect(run.output).toContain('Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.');
    expect(run.output).toContain(`The inter-broker throttle limit was set to ${MB} B/s`);
    expect(run.output).toContain('Successfully started partition reassignment for throttled-0');
    // Kafka's computation: the current replica leads-throttled, the new one follower-throttled, both brokers rated.
    expect(await config('topics/throttled')).toEqual({ 'leader.replication.throttled.replicas': '0:0', 'follower.replication.throttled.replicas': '0:1' });
    for (const b of [0, 1]) expect(await config(`brokers/${b}`)).toEqual({ 'leader.replication.throttled.rate': String(MB), 'follower.replication.throttled.rate': String(MB) });

    await waitUntil(async () => ((await cluster.partitionState('throttled', 0))?.isr ?? []).includes(1), { timeoutMs: 60000, intervalMs: 100, message: 'broker 1 in the ISR of throttled-0' });
    const elapsedMs = Date.now() - started;
    // 4 MB at 1 MB/s: about 3 s at least (the rate is measured over at least one window, and one fetch of up to
    // replica.fetch.max.bytes may overshoot it), where unthrottled the copy takes a fraction of a second.
    expect(elapsedMs).toBeGreaterThan(2000);

    const verified = await waitUntil(
      async () => {
        const v = await tool(['--verify', '--reassignment-json-file', plan]);
        return v.output.includes('Reassignment of partition throttled-0 is complete.') ? v : undefined;
      },
      { timeoutMs: 30000, message: 'throttled-0 reassigned' },
    );
    expect(verified.code).toBe(0);
    expect(verified.output).toContain('Clearing broker-level throttles on brokers 0,1,2');
    expect(verified.output).toContain('Clearing topic-level throttles on topic throttled');
    expect(await config('topics/throttled')).toEqual({});
    for (const b of [0, 1, 2]) expect(await config(`brokers/${b}`)).toEqual({});
  }, 120000);

  it('moves a replica to the broker\'s other log dir for a log_dirs plan, and --verify follows the move', async () => {
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      await client.refreshMetadata();
      const dirOf = async (): Promise<string | undefined> => {
        const results = (await client.request(2, DescribeLogDirsApi, { topics: [{ topic: 'dirmove', partitionIndex: [0] }] })).results;
        return results.find((r) => r.topics.some((t) => t.partitions.some((p) => !p.isFutureKey)))?.logDir;
      };
      const from = await dirOf();
      const to = from === dirs[0] ? dirs[1] : dirs[0];
      const plan = planFile({ version: 1, partitions: [{ topic: 'dirmove', partition: 0, replicas: [2], log_dirs: [to] }] });
      // A broker applies a config change when its /config/changes notification arrives, which can be after the
      // tool's next request has started the move: the rate is set and seen applied first.
      const rate = `replica.alter.log.dirs.io.max.bytes.per.second=${MB}`;
      const configs = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '2', ...args]);
      expect((await configs(['--alter', '--add-config', rate])).code).toBe(0);
      // Kafka's describe shows the key, not in KafkaConfig's definitions, as sensitive: `...=null sensitive=true`.
      await waitUntil(async () => (await configs(['--describe'])).output.includes('replica.alter.log.dirs.io.max.bytes.per.second='), { timeoutMs: 20000, message: 'broker 2 applying the log-dir throttle' });
      const run = await tool(['--execute', '--reassignment-json-file', plan, '--replica-alter-log-dirs-throttle', String(MB)]);
      expect(run.code).toBe(0);
      expect(run.output).toContain(`The replica-alter-dir throttle limit was set to ${MB} B/s`);
      expect(run.output).toContain('Successfully started log directory move for: dirmove-0-2');
      const started = Date.now();
      expect(await config('brokers/2')).toEqual({ 'replica.alter.log.dirs.io.max.bytes.per.second': String(MB) });
      // 3 MB copied at most 1 MB (replica.fetch.max.bytes) a step, at 1 MB/s: the mover pauses once over the rate.
      await waitUntil(async () => (await dirOf()) === to, { timeoutMs: 60000, intervalMs: 50, message: 'dirmove-0 in its new dir' });
      expect(Date.now() - started).toBeGreaterThan(700);
      const verified = await waitUntil(
        async () => {
          const v = await tool(['--verify', '--reassignment-json-file', plan]);
          return v.output.includes('Reassignment of replica dirmove-0-2 completed successfully.') ? v : undefined;
        },
        { timeoutMs: 60000, message: 'dirmove-0-2 moved' },
      );
      expect(verified.output).toContain('Clearing broker-level throttles on brokers 0,1,2');
      expect(await dirOf()).toBe(to);
      expect(await config('brokers/2')).toEqual({});
    } finally {
      client.close();
    }
  }, 120000);

  it('--cancel sends a log_dirs move in progress back to the current dir and clears the throttles', async () => {
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      await client.refreshMetadata();
      const dirsOf = async (): Promise<{ current?: string; future?: string }> => {
        const results = (await client.request(2, DescribeLogDirsApi, { topics: [{ topic: 'dirmove', partitionIndex: [0] }] })).results;
        const find = (future: boolean): string | undefined => results.find((r) => r.topics.some((t) => t.partitions.some((p) => p.isFutureKey === future)))?.logDir;
        return { current: find(false), future: find(true) };
      };
      const { current: from } = await dirsOf();
      const to = from === dirs[0] ? dirs[1] : dirs[0];
      const plan = planFile({ version: 1, partitions: [{ topic: 'dirmove', partition: 0, replicas: [2], log_dirs: [to] }] });
      // 3 MB at 100 kB/s: the move is still going when --cancel comes.
      const rate = 'replica.alter.log.dirs.io.max.bytes.per.second=100000';
      const configs = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '2', ...args]);
      expect((await configs(['--alter', '--add-config', rate])).code).toBe(0);
      await waitUntil(async () => (await configs(['--describe'])).output.includes('replica.alter.log.dirs.io.max.bytes.per.second='), { timeoutMs: 20000, message: 'broker 2 applying the log-dir throttle' });
      const run = await tool(['--execute', '--reassignment-json-file', plan, '--replica-alter-log-dirs-throttle', '100000']);
      expect(run.output).toContain('Successfully started log directory move for: dirmove-0-2');
      expect(await dirsOf()).toEqual({ current: from, future: to });

      const cancelled = await tool(['--cancel', '--reassignment-json-file', plan]);
      expect(cancelled.code).toBe(0);
      expect(cancelled.output).toContain(
        [
          'None of the specified partition reassignments are active.',
          'Successfully started log directory move for: dirmove-0-2',
          'Clearing broker-level throttles on brokers 0,1,2',
          'Clearing topic-level throttles on topic dirmove',
        ].join('\n'),
      );
      expect(await dirsOf()).toEqual({ current: from, future: undefined });
      expect(await config('brokers/2')).toEqual({});
      // Kafka's CancelledMoveState: --verify reports the move as not happening, and a second --cancel finds none.
      const verified = await tool(['--verify', '--reassignment-json-file', plan, '--preserve-throttles']);
      expect(verified.output).toContain(`Partition dirmove-0 on broker 2 is not being moved from log dir ${from} to ${to}.`);
      const again = await tool(['--cancel', '--reassignment-json-file', plan, '--preserve-throttles']);
      expect(again.output).toContain('None of the specified partition reassignments are active.\nNone of the specified partition moves are active.');
    } finally {
      client.close();
    }
  }, 90000);

  it('sets and clears the same throttles through the --zookeeper form', async () => {
    const plan = planFile({ version: 1, partitions: [{ topic: 'zkform', partition: 0, replicas: [1, 2] }] });
    const zkTool = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-reassign-partitions', ['--zookeeper', cluster.zkConnect, ...args]);
    const run = await zkTool(['--execute', '--reassignment-json-file', plan, '--throttle', String(50 * MB)]);
    expect(run.code).toBe(0);
    expect(run.output).toContain(`The inter-broker throttle limit was set to ${50 * MB} B/s`);
    expect(await config('topics/zkform')).toEqual({ 'leader.replication.throttled.replicas': '0:1', 'follower.replication.throttled.replicas': '0:2' });
    expect(await config('brokers/2')).toEqual({ 'leader.replication.throttled.rate': String(50 * MB), 'follower.replication.throttled.rate': String(50 * MB) });
    const verified = await waitUntil(
      async () => {
        const v = await zkTool(['--verify', '--reassignment-json-file', plan]);
        return v.output.includes('Clearing topic-level throttles on topic zkform') ? v : undefined;
      },
      { timeoutMs: 30000, message: 'zkform-0 reassigned' },
    );
    expect(verified.output).toContain('Clearing broker-level throttles on brokers');
    expect(await config('topics/zkform')).toEqual({});
    for (const b of [1, 2]) expect(await config(`brokers/${b}`)).toEqual({});
  }, 60000);
});
