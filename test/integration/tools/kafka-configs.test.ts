import { ConfigResourceTypes, Kafka, logLevel, Producer } from 'kafkajs';
import { spawnChild } from '../../helpers/child-processes';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { DescribeConfigsApi } from '../../../src/protocol/apis/describe-configs';

const TOPIC = 'cfg';

/** kafka-python's KafkaAdminClient.alter_configs; prints [error_code, error_message] per resource. */
const PY_ALTER = `
import json, sys
from kafka.admin import KafkaAdminClient, ConfigResource, ConfigResourceType
a = KafkaAdminClient(bootstrap_servers=sys.argv[1], client_id='py-configs')
r = a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, sys.argv[2], configs=json.loads(sys.argv[3]))])
print(json.dumps([[x[0], x[1]] for x in r.resources]))
a.close()
`;

describe('AlterConfigs, IncrementalAlterConfigs and kafka-configs on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  let producer: Producer;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    const created = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', TOPIC, '--partitions', '1', '--replication-factor', '3']);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 1);
    kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'configs-test', logLevel: logLevel.NOTHING, retry: { retries: 2 } });
    producer = kafka.producer({ retry: { retries: 0 } });
    await producer.connect();
  }, 120000);

  afterAll(async () => {
    await producer?.disconnect();
    await cluster?.close();
  });

  /** The topic's DYNAMIC_TOPIC_CONFIG entries as each broker describes them. */
  async function overridesOnEveryBroker(): Promise<Record<string, string | null>[]> {
    return Promise.all(
      [0, 1, 2].map(async (id) => {
        const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(id).port });
        try {
          await c.connect();
          await c.negotiate();
          const r = await c.send(DescribeConfigsApi, { resources: [{ resourceType: 2, resourceName: TOPIC, configurationKeys: null }], includeSynonyms: true });
          return Object.fromEntries((r.results[0]?.configs ?? []).filter((e) => e.configSource === 1).map((e) => [e.name, e.value]));
        } finally {
          c.close();
        }
      }),
    );
  }

  const send = (bytes: number): Promise<unknown> => producer.send({ topic: TOPIC, acks: -1, messages: [{ key: 'k', value: Buffer.alloc(bytes, 'x') }] });

  async function python(configs: Record<string, string>): Promise<[number, string | null][]> {
    const child = spawnChild('/usr/bin/python3', ['-c', PY_ALTER, cluster.bootstrap, TOPIC, JSON.stringify(configs)]);
    const exit = await child.exited;
    expect(exit.code).toBe(0);
    return JSON.parse(child.output().trim().split('\n').pop() as string) as [number, string | null][];
  }

  const configs = (...args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', args);

  it('kafkajs admin.alterConfigs sets retention.ms and segment.bytes, described by every broker; errors per resource', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configEntries: [{ name: 'retention.ms', value: '123456' }, { name: 'segment.bytes', value: '1048576' }] }] });
      await waitUntil(async () => (await overridesOnEveryBroker()).every((o) => o['retention.ms'] === '123456' && o['segment.bytes'] === '1048576'), { message: 'the overrides on every broker' });
      await expect(admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configEntries: [{ name: 'no.such.config', value: '1' }] }] })).rejects.toMatchObject({
        type: 'INVALID_CONFIG',
      });
      await expect(admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'no-such-topic', configEntries: [{ name: 'retention.ms', value: '1' }] }] })).rejects.toMatchObject({
        type: 'UNKNOWN_TOPIC_OR_PARTITION',
      });
      // validate_only: accepted, nothing written.
      await admin.alterConfigs({ validateOnly: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configEntries: [{ name: 'retention.ms', value: '1' }] }] });
      expect((await overridesOnEveryBroker())[0]).toEqual({ 'retention.ms': '123456', 'segment.bytes': '1048576' });
    } finally {
      await admin.disconnect();
    }
  }, 60000);

  it('kafka-python alter_configs replaces the set: max.message.bytes=2000 refuses a 5000-byte record at once, without restart', async () => {
    await send(5000);
    expect(await python({ 'max.message.bytes': '2000' })).toEqual([[0, null]]);
    await waitUntil(async () => send(5000).then(() => false, (e: { type?: string }) => e.type === 'MESSAGE_TOO_LARGE'), { message: 'MESSAGE_TOO_LARGE' });
    expect((await overridesOnEveryBroker())[1]).toEqual({ 'max.message.bytes': '2000' });
    const [[code, message]] = (await python({ 'retention.ms': 'abc' })) as [[number, string]];
    expect([code, message]).toEqual([42, "Invalid config value for resource ConfigResource(type=TOPIC, name='cfg'): Invalid value abc for configuration retention.ms: Not a number of type LONG"]);
  }, 60000);

  it('kafka-configs --bootstrap-server alters through IncrementalAlterConfigs and describes with synonyms', async () => {
    const altered = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', TOPIC, '--alter', '--add-config', 'max.message.bytes=100000,cleanup.policy=[compact,delete]');
    expect(altered).toEqual({ code: 0, output: `Completed updating config for topic ${TOPIC}.` });
    await waitUntil(async () => send(5000).then(() => true, () => false), { message: 'a 5000-byte record accepted again' });
    const described = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', TOPIC, '--describe');
    expect(described.code).toBe(0);
    expect(described.output.trim().split('\n')).toEqual([
      `Dynamic configs for topic ${TOPIC} are:`,
      // Each override's synonyms go on to the broker's value of its `log.*` (or message.max.bytes) synonym.
      '  cleanup.policy=compact,delete sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:cleanup.policy=compact,delete, DEFAULT_CONFIG:log.cleanup.policy=delete}',
      '  max.message.bytes=100000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:max.message.bytes=100000, DEFAULT_CONFIG:message.max.bytes=1048588}',
    ]);
    const all = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', TOPIC, '--describe', '--all');
    expect(all.output).toContain(`All configs for topic ${TOPIC} are:\n`);
    // ZkAdminManager.configSynonyms drops the chain up to log.retention.ms, which is not set: no synonyms at all.
    expect(all.output).toContain('  retention.ms=604800000 sensitive=false synonyms={}');
  }, 60000);

  it('kafka-configs --zookeeper writes the znode and notifies: the brokers apply it', async () => {
    const altered = await configs('--zookeeper', cluster.zkConnect, '--entity-type', 'topics', '--entity-name', TOPIC, '--alter', '--delete-config', 'cleanup.policy', '--add-config', 'retention.ms=7777');
    expect(altered).toEqual({
      code: 0,
      output: `Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\nUse --bootstrap-server instead to specify a broker to connect to.\nCompleted updating config for entity: topic '${TOPIC}'.`,
    });
    await waitUntil(async () => (await overridesOnEveryBroker()).every((o) => o['retention.ms'] === '7777' && o['cleanup.policy'] === undefined), { message: 'the ZooKeeper change on every broker' });
    const described = await configs('--zookeeper', cluster.zkConnect, '--entity-type', 'topics', '--entity-name', TOPIC, '--describe');
    expect(described.output.trim().split('\n').pop()).toBe(`Configs for topic '${TOPIC}' are max.message.bytes=100000,retention.ms=7777`);
  }, 60000);

  /** log.retention.ms as broker `id` reports it (source and value), over DescribeConfigs. */
  async function brokerRetention(id: number): Promise<[number | undefined, string | null | undefined]> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(id).port });
    try {
      await c.connect();
      await c.negotiate();
      const r = await c.send(DescribeConfigsApi, { resources: [{ resourceType: 4, resourceName: String(id), configurationKeys: ['log.retention.ms'] }], includeSynonyms: true });
      const e = r.results[0]?.configs[0];
      return [e?.configSource, e?.value];
    } finally {
      c.close();
    }
  }

  it('dynamic broker configs: <default> then one broker, live on every broker, and kafka-configs broker output', async () => {
    const alteredDefault = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-default', '--alter', '--add-config', 'log.retention.ms=3600000');
    expect(alteredDefault.output.trim().split('\n').pop()).toBe('Completed updating default config for brokers in the cluster.');
    await waitUntil(async () => (await Promise.all([0, 1, 2].map(brokerRetention))).every(([s, v]) => s === 3 && v === '3600000'), { message: 'the <default> change on every broker', timeoutMs: 30000 });
    const alteredOne = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config', 'log.retention.ms=7200000');
    expect(alteredOne.output.trim().split('\n').pop()).toBe('Completed updating config for broker 1.');
    await waitUntil(async () => (await brokerRetention(1))[1] === '7200000', { message: 'the per-broker change on broker 1', timeoutMs: 30000 });
    expect(await brokerRetention(0)).toEqual([3, '3600000']);
    expect(await brokerRetention(1)).toEqual([2, '7200000']);
    const described = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--describe');
    expect(described.output.trim().split('\n').slice(-2)).toEqual([
      'Dynamic configs for broker 1 are:',
      '  log.retention.ms=7200000 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.ms=7200000, DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=3600000, DEFAULT_CONFIG:log.retention.hours=168}',
    ]);
    const refused = await configs('--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config', 'broker.rack=r');
    expect(refused.code).toBe(1);
    expect(refused.output.trim().split('\n').pop()).toMatch(/^Error while executing config command with args '.*': /);
    expect(refused.output.trim().split('\n').pop()).toContain(": org.apache.kafka.common.errors.InvalidRequestException: Invalid config value for resource ConfigResource(type=BROKER, name='1'): Cannot update these configs dynamically: Set(broker.rack)");
  }, 90000);

  it('kafka-configs refuses bad input with one line and exit 1', async () => {
    const cases: [string[], string][] = [
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', TOPIC, '--alter', '--add-config', 'no.such=1'], 'org.apache.kafka.common.errors.InvalidConfigurationException: Unknown topic config name: no.such'],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', 'nope', '--describe'], 'org.apache.kafka.common.errors.UnknownTopicOrPartitionException: Topic nope does not exist.'],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'topics', '--entity-name', TOPIC, '--alter', '--delete-config', 'segment.ms'], 'Invalid config(s): segment.ms'],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config', 'ssl.cipher.suites=x'], 'org.apache.kafka.common.errors.InvalidConfigurationException: These dynamic broker configs are not supported by this broker: ssl.cipher.suites'],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config', 'metric.reporters=com.example.Reporter'], "org.apache.kafka.common.errors.InvalidRequestException: Invalid config value for resource ConfigResource(type=BROKER, name='1'): Invalid dynamic configuration"],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config', 'listener.name.plaintext.ssl.keystore.password=x'], "org.apache.kafka.common.errors.InvalidRequestException: Invalid config value for resource ConfigResource(type=BROKER, name='1'): Password encoder secret not configured"],
      [['--bootstrap-server', cluster.bootstrap, '--entity-type', 'clients', '--entity-name', 'c', '--alter', '--add-config', 'request_percentage=50'], 'org.apache.kafka.common.errors.InvalidRequestException: Client quotas other than producer_byte_rate and consumer_byte_rate are not supported by this broker; refused: request_percentage'],
      [['--zookeeper', cluster.zkConnect, '--entity-type', 'topics', '--entity-name', TOPIC, '--alter', '--add-config', 'retention.ms'], 'Invalid entity config: all configs to be added must be in the format "key=val".'],
      [['--zookeeper', cluster.zkConnect, '--entity-type', 'topics', '--describe', '--alter'], 'Command must include exactly one action: --describe, --alter'],
    ];
    for (const [args, expected] of cases) {
      const r = await configs(...args);
      expect(r.code).toBe(1);
      // Kafka prints the describe header before the DescribeConfigs answer, and the --zookeeper warning first.
      const lines = r.output.trim().split('\n').filter((l) => !l.startsWith('Warning: --zookeeper') && !l.startsWith('Use --bootstrap-server') && !l.endsWith(' are:'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(expected);
    }
  }, 60000);
});
