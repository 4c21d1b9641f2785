import { runTool, ToolRun } from '../../helpers/run-tool';
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
    expect((await topics(['--describe', '--topic', 'bs.orders'])).output.split('\n')[0]).toBe('Topic: bs.orders\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention.ms=3600000');
    expect((await topics(['--describe', '--topics-with-overrides', '--exclude-internal'])).output).toBe('Topic: bs.orders\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: retention.ms=3600000');
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
});
