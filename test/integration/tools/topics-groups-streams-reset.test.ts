import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { runTool, ToolRun } from '../../helpers/run-tool';
import { tmpDir } from '../../helpers/tmp-dir';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/**
 * kafka-topics --bootstrap-server against the --zookeeper form on the same state (create, list, describe, alter,
 * delete), kafka-consumer-groups' remaining reset scenarios and --all-groups, and kafka-streams-application-reset
 * of an application with internal topics. Three brokers, one cluster for the file.
 */
describe('kafka-topics --bootstrap-server, consumer group resets and the streams resetter on 3 brokers', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    await cluster.waitForMetadataReady();
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  const topics = (args: string[]): Promise<ToolRun> => runTool('kafka-topics', ['--bootstrap-server', cluster.bootstrap, ...args]);
  const zkTopics = (args: string[]): Promise<ToolRun> => runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, ...args]);

  it('creates, lists, describes, alters and deletes topics through the admin API, printing what the --zookeeper form prints where Kafka does', async () => {
    const created = await topics(['--create', '--topic', 'bs.orders', '--partitions', '3', '--replication-factor', '2', '--config', 'retention.ms=3600000']);
    expect(created.output).toBe(
      "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\nCreated topic bs.orders.",
    );
    expect(created.code).toBe(0);
    expect((await topics(['--create', '--topic', 'plain', '--replica-assignment', '0:1,1:2'])).output).toBe('Created topic plain.');
    await cluster.waitForLeaders('bs.orders', 3);
    await cluster.waitForLeaders('plain', 2);

    const exists = await topics(['--create', '--topic', 'plain', '--partitions', '1', '--replication-factor', '1']);
    expect(exists.code).toBe(1);
    expect(exists.output).toContain("Error while executing topic command : Topic 'plain' already exists.\n");
    expect(exists.output).toMatch(/ERROR org\.apache\.kafka\.common\.errors\.TopicExistsException: Topic 'plain' already exists\./);
    expect((await topics(['--create', '--topic', 'plain', '--partitions', '1', '--replication-factor', '1', '--if-not-exists'])).output).toBe('');
    expect((await topics(['--create', '--topic', 'bad', '--partitions', '0'])).output).toContain('Error while executing topic command : The partitions must be greater than 0\n');

    const list = await topics(['--list', '--exclude-internal']);
    expect(list.output).toBe((await zkTopics(['--list', '--exclude-internal'])).output);
    expect(list.output).toBe('bs.orders\nplain');

    for (const args of [['--describe', '--topic', 'bs.orders'], ['--describe', '--topic', 'plain']]) {
      await waitUntil(async () => (await zkTopics([...args, '--under-replicated-partitions'])).output === '', { timeoutMs: 30000 });
      expect((await topics(args)).output).toBe((await zkTopics(args)).output);
    }
    expect((await topics(['--describe', '--topic', 'bs.orders'])).output.split('\n')[0]).toMatch(/^Topic: bs\.orders\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention\.ms=3600000$/);
    expect((await topics(['--describe', '--topics-with-overrides', '--exclude-internal'])).output).toMatch(/^Topic: bs\.orders\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention\.ms=3600000$/);
    expect((await topics(['--describe', '--under-min-isr-partitions', '--exclude-internal'])).output).toBe('');
    const atMin = await topics(['--describe', '--at-min-isr-partitions', '--topic', 'plain']);
    expect(atMin.output).toBe('');

    const refused = await topics(['--alter', '--topic', 'plain', '--config', 'retention.ms=1']);
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('Option combination "[bootstrap-server],[config]" can\'t be used with option "[alter]" (the kafka-configs CLI supports altering topic configs with a --bootstrap-server option)');
    const altered = await topics(['--alter', '--topic', 'plain', '--partitions', '3']);
    expect(altered.output).toBe('');
    expect(altered.code).toBe(0);
    await cluster.waitForLeaders('plain', 3);
    const shrink = await topics(['--alter', '--topic', 'plain', '--partitions', '2']);
    expect(shrink.code).toBe(1);
    expect(shrink.output).toMatch(/^Error while executing topic command : .*3 partitions.*\n/);
    const missing = await topics(['--alter', '--topic', 'nothing', '--partitions', '2']);
    expect(missing.output).toContain("Error while executing topic command : Topic 'nothing' does not exist as expected\n");
    expect((await topics(['--alter', '--topic', 'nothing', '--partitions', '2', '--if-exists'])).code).toBe(0);

    const deleted = await topics(['--delete', '--topic', 'plain']);
    expect(deleted.output).toBe('');
    expect(deleted.code).toBe(0);
    await waitUntil(async () => (await topics(['--list', '--exclude-internal'])).output === 'bs.orders', { timeoutMs: 30000 });
  }, 150000);

  const groups = (args: string[]): Promise<ToolRun> => runTool('kafka-consumer-groups', ['--bootstrap-server', cluster.bootstrap, ...args]);
  const row = (g: string, t: string, p: number | string, o: number | string): string => `${g.padEnd(30)} ${t.padEnd(30)} ${String(p).padEnd(10)} ${String(o).padEnd(15)}`;

  it('resets a group by datetime, duration and CSV file, exports CSV, and acts on --all-groups', async () => {
    expect((await topics(['--create', '--topic', 'events', '--partitions', '1', '--replication-factor', '1'])).code).toBe(0);
    await cluster.waitForLeaders('events', 1);
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'reset-test', logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    // "Old" records are two days old: inside log.retention.hours and log.roll.hours (168), so neither a roll nor a
    // retention pass removes them while the test runs (records from years ago would rightly be deleted).
    const twoDaysAgo = Date.now() - 2 * 86_400_000;
    await producer.send({ topic: 'events', messages: [0, 1, 2].map((i) => ({ value: `old-${i}`, timestamp: String(twoDaysAgo) })) });
    await producer.send({ topic: 'events', messages: [3, 4].map((i) => ({ value: `new-${i}`, timestamp: String(Date.now()) })) });
    await producer.disconnect();

    const latest = await groups(['--reset-offsets', '--group', 'g1', '--topic', 'events', '--to-latest', '--execute']);
    expect(latest.output.split('\n').filter((l) => !l.startsWith('WARN')).join('\n')).toBe(['', row('GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'), row('g1', 'events', 0, 5)].join('\n'));
    const byDate = await groups(['--reset-offsets', '--group', 'g1', '--topic', 'events', '--to-datetime', new Date(twoDaysAgo + 86_400_000).toISOString().slice(0, 23), '--dry-run']);
    expect(byDate.output.split('\n').pop()).toBe(row('g1', 'events', 0, 3));
    const byDuration = await groups(['--reset-offsets', '--group', 'g1', '--topic', 'events', '--by-duration', 'P3650D', '--dry-run']);
    expect(byDuration.output.split('\n').pop()).toBe(row('g1', 'events', 0, 0));
    const exported = await groups(['--reset-offsets', '--group', 'g1', '--topic', 'events', '--to-earliest', '--dry-run', '--export']);
    expect(exported.output).toBe('events,0,0\n');
    const file = path.join(tmpDir('reset-plan-'), 'plan.csv');
    fs.writeFileSync(file, 'events,0,2\n');
    const fromFile = await groups(['--reset-offsets', '--group', 'g1', '--from-file', file, '--execute']);
    expect(fromFile.output.split('\n').pop()).toBe(row('g1', 'events', 0, 2));
    expect((await groups(['--reset-offsets', '--group', 'g2', '--topic', 'events', '--to-offset', '1', '--execute'])).code).toBe(0);

    const all = await groups(['--reset-offsets', '--all-groups', '--all-topics', '--to-earliest', '--dry-run', '--export']);
    expect(all.output.split('\n').filter((l) => l !== '').sort()).toEqual(['g1,events,0,0', 'g2,events,0,0']);
    expect((await groups(['--describe', '--all-groups'])).output).toContain('g2');
    const refused = await groups(['--reset-offsets', '--group', 'g1', '--all-groups', '--to-earliest', '--all-topics']);
    expect(refused.output).toContain('Option "[group]" can\'t be used with option "[all-groups]"');
    expect(refused.code).toBe(1);
  }, 120000);

  it('resets a streams application: input offsets to the earliest, internal topics deleted', async () => {
    for (const t of ['app-store-changelog', 'app-KSTREAM-AGGREGATE-0000000003-repartition', 'app-notes']) {
      expect((await topics(['--create', '--topic', t, '--partitions', '1', '--replication-factor', '1'])).code).toBe(0);
    }
    expect((await groups(['--reset-offsets', '--group', 'app', '--topic', 'events', '--to-latest', '--execute'])).code).toBe(0);
    const reset = (args: string[]): Promise<ToolRun> => runTool('kafka-streams-application-reset', ['--bootstrap-servers', cluster.bootstrap, '--application-id', 'app', ...args]);
    const dry = await reset(['--input-topics', 'events', '--dry-run']);
    const expected = (prefix: string[]): string[] => [
      ...prefix,
      'Reset-offsets for input topics [events]',
      'Following input topics offsets will be reset to (for consumer group app)',
      'Topic: events Partition: 0 Offset: 0',
      'Done.',
    ];
    const lines = dry.output.split('\n');
    expect(lines.slice(0, 5)).toEqual(expected(['----Dry run displays the actions which will be performed when running Streams Reset Tool----']));
    expect(lines[5]).toMatch(/^Deleting inferred internal topics \[(app-store-changelog, app-KSTREAM-AGGREGATE-0000000003-repartition|app-KSTREAM-AGGREGATE-0000000003-repartition, app-store-changelog)\]$/);
    expect(lines[6]).toBe('Done.');
    const done = await reset(['--input-topics', 'events', '--execute']);
    expect(done.code).toBe(0);
    expect(done.output.split('\n').slice(0, 4)).toEqual(expected([]));
    await waitUntil(async () => (await topics(['--list', '--topic', 'app-.*'])).output === 'app-notes', { timeoutMs: 30000 });
    const described = await groups(['--describe', '--group', 'app']);
    expect(described.output).toMatch(/app +events +0 +0 /);
  }, 120000);
});
