import * as fs from 'node:fs';
import * as path from 'node:path';
import { Admin, ConfigResourceTypes, Consumer, Kafka, logLevel, Producer } from 'kafkajs';
import { spawnChild } from '../../helpers/child-processes';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

const FIXTURES = path.join(__dirname, '../../fixtures/admin-clients');
const LIVE_GROUP = 'admin-live';
const EMPTY_GROUP = 'admin-empty';
const TOPIC = 'admin-js';

/** Runs one of the Python admin scripts; its last stdout line is a JSON object of call name to result. */
async function python(script: string, args: string[]): Promise<Record<string, unknown>> {
  const child = spawnChild('/usr/bin/python3', [path.join(FIXTURES, script), ...args]);
  const exit = await child.exited;
  const lines = child.output().trim().split('\n');
  if (exit.code !== 0) throw new Error(`${script} exited ${String(exit.code)}: ${lines.slice(-20).join('\n')}`);
  return JSON.parse(lines.filter((l) => l.startsWith('{')).pop() as string) as Record<string, unknown>;
}

describe('real admin clients (confluent-kafka, kafka-python, kafkajs) and broker loggers on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  let admin: Admin;
  let producer: Producer;
  let consumer: Consumer;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'admin-clients-test', logLevel: logLevel.NOTHING, retry: { retries: 5 } });
    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: [0, 1, 2, 3, 4].map((i) => ({ value: `m${i}` })) });
    // A live group (Stable, one member) and a group with only committed offsets (Empty).
    consumer = kafka.consumer({ groupId: LIVE_GROUP, sessionTimeout: 30000 });
    await consumer.connect();
    await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
    let seen = 0;
    await consumer.run({ eachMessage: async () => void seen++ });
    await waitUntil(() => seen === 5, { timeoutMs: 60000, message: 'the live group consumes' });
    // kafkajs' setOffsets commits as a (briefly joined) consumer: the group is Empty with protocol type consumer.
    await admin.setOffsets({ groupId: EMPTY_GROUP, topic: TOPIC, partitions: [{ partition: 0, offset: '3' }] });
  }, 180000);

  afterAll(async () => {
    await consumer?.disconnect();
    await producer?.disconnect();
    await admin?.disconnect();
    await cluster?.close();
  });

  it('kafkajs admin: cluster, metadata, offsets, partitions, configs, records and reassignments as Kafka 2.8 returns them', async () => {
    const described = await admin.describeCluster();
    expect(described.brokers.map((b) => b.nodeId).sort()).toEqual([0, 1, 2]);
    expect(described.brokers.find((b) => b.nodeId === 1)?.port).toBe(cluster.broker(1).port);
    expect([0, 1, 2]).toContain(described.controller);
    expect(described.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const md = await admin.fetchTopicMetadata({ topics: [TOPIC] });
    const p0 = md.topics[0]?.partitions[0];
    expect([md.topics[0]?.name, p0?.partitionId, p0?.replicas.length, [...(p0?.isr ?? [])].sort()]).toEqual([TOPIC, 0, 3, [...(p0?.replicas ?? [])].sort()]);
    expect(p0?.replicas).toContain(p0?.leader);

    expect(await admin.fetchOffsets({ groupId: EMPTY_GROUP, topics: [TOPIC] })).toEqual([{ topic: TOPIC, partitions: [{ partition: 0, offset: '3', metadata: null }] }]);
    // kafkajs commits -2 (earliest) itself; Kafka stores what is committed and returns it.
    await admin.resetOffsets({ groupId: EMPTY_GROUP, topic: TOPIC, earliest: true });
    expect((await admin.fetchOffsets({ groupId: EMPTY_GROUP, topics: [TOPIC] }))[0]?.partitions[0]?.offset).toBe('-2');
    await admin.setOffsets({ groupId: EMPTY_GROUP, topic: TOPIC, partitions: [{ partition: 0, offset: '4' }] });
    expect((await admin.fetchOffsets({ groupId: EMPTY_GROUP, topics: [TOPIC] }))[0]?.partitions[0]?.offset).toBe('4');

    await admin.deleteTopicRecords({ topic: TOPIC, partitions: [{ partition: 0, offset: '2' }] });
    expect(await admin.fetchTopicOffsets(TOPIC)).toEqual([{ partition: 0, offset: '5', high: '5', low: '2' }]);

    await admin.createPartitions({ topicPartitions: [{ topic: TOPIC, count: 3 }] });
    await waitUntil(async () => (await admin.fetchTopicMetadata({ topics: [TOPIC] })).topics[0]?.partitions.length === 3, { message: 'three partitions' });
    await expect(admin.createPartitions({ topicPartitions: [{ topic: TOPIC, count: 2 }] })).rejects.toMatchObject({ type: 'INVALID_PARTITIONS' });

    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configEntries: [{ name: 'retention.ms', value: '600000' }] }] });
    const configs = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.TOPIC, name: TOPIC, configNames: ['retention.ms', 'segment.bytes'] }] });
    const entries = configs.resources[0]?.configEntries ?? [];
    const retention = entries.find((e) => e.configName === 'retention.ms');
    expect([retention?.configValue, retention?.configSource, retention?.isDefault, retention?.readOnly]).toEqual(['600000', 1, false, false]);
    // Kafka 2.8's configSynonyms drops the broker chain unless log.retention.ms itself is set somewhere.
    expect(retention?.configSynonyms.map((s) => [s.configName, s.configSource])).toEqual([['retention.ms', 1]]);
    const segment = entries.find((e) => e.configName === 'segment.bytes');
    expect([segment?.configValue, segment?.configSource, segment?.configSynonyms.map((s) => [s.configName, s.configValue, s.configSource])]).toEqual(['1073741824', 5, [['log.segment.bytes', '1073741824', 5]]]);

    // Broker resource: AlterConfigs (the whole set) on the broker the resource names.
    const id = String(described.controller);
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: id, configEntries: [{ name: 'log.retention.ms', value: '7200000' }] }] });
    await waitUntil(async () => {
      const b = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.BROKER, name: id, configNames: ['log.retention.ms'] }] });
      const e = b.resources[0]?.configEntries[0];
      return e?.configValue === '7200000' && e.configSource === 2 && e.configSynonyms[0]?.configSource === 2;
    }, { message: 'the per-broker log.retention.ms' });
    // AlterConfigs replaces the whole set: an empty one removes it again (the later tests describe the defaults).
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER, name: id, configEntries: [] }] });
    await waitUntil(async () => {
      const b = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER, name: id, configNames: ['log.retention.ms'] }] });
      return b.resources[0]?.configEntries[0]?.configSource !== 2;
    }, { message: 'the per-broker log.retention.ms removed' });

    expect(await admin.listPartitionReassignments({ topics: [{ topic: TOPIC, partitions: [0, 1, 2] }] })).toEqual({ topics: [] });
  });

  it('confluent-kafka 1.7.0 AdminClient: topics, partitions, configs, metadata and groups', async () => {
    const r = await python('confluent_admin.py', [cluster.bootstrap, 'admin']);
    expect(r['validate_only']).toBeNull();
    expect(r['topic_after_validate_only']).toBe(false);
    expect(r['create']).toBeNull();
    expect(r['create_again']).toEqual({ error: { code: 36, name: 'TOPIC_ALREADY_EXISTS', str: "Topic 'admin-ck' already exists." } });
    expect(r['create_rf4']).toEqual({ error: { code: 38, name: 'INVALID_REPLICATION_FACTOR', str: 'Replication factor: 4 larger than available brokers: 3.' } });
    expect(r['create_partitions']).toBeNull();
    expect(r['create_partitions_fewer']).toEqual({ error: { code: 37, name: 'INVALID_PARTITIONS', str: 'Topic currently has 4 partitions, which is higher than the requested 2.' } });
    // source 1 = DYNAMIC_TOPIC_CONFIG, 5 = DEFAULT_CONFIG, 4 = STATIC_BROKER_CONFIG
    expect(r['describe_topic']).toEqual({ 'retention.ms': ['3600000', 1, false, false, false], 'cleanup.policy': ['delete', 5, true], count: expect.any(Number) });
    expect(r['describe_broker']).toEqual({ 'broker.id': ['1', 4, true], 'num.network.threads': ['3', 5, false] });
    expect(r['alter_configs']).toBeNull();
    expect(r['after_alter']).toEqual({ 'retention.ms': ['7200000', 1], 'segment.bytes': ['1048576', 1] });
    const topics = r['list_topics'] as Record<string, unknown>;
    expect(topics['brokers']).toEqual([0, 1, 2]);
    expect(topics['partitions']).toEqual([0, 1, 2, 3]);
    expect(topics['replicas']).toEqual([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2]]);
    expect(topics['isrs']).toEqual([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 1, 2]]);
    const cluster0 = await admin.describeCluster();
    expect([topics['controller'], topics['cluster_id']]).toEqual([cluster0.controller, cluster0.clusterId]);
    expect(r['list_groups']).toEqual(expect.arrayContaining([[LIVE_GROUP, 'consumer', 'Stable'], [EMPTY_GROUP, 'consumer', 'Empty']]));
    expect(r['delete_topics']).toBeNull();
    // DeleteTopics carries no message for an unknown topic: librdkafka prints its own text for the code.
    expect(r['delete_missing']).toEqual({ error: { code: 3, name: 'UNKNOWN_TOPIC_OR_PART', str: 'Broker: Unknown topic or partition' } });
  });

  it('kafka-python 2.0.2 KafkaAdminClient: topics, configs, partitions, groups and the cluster', async () => {
    const r = await python('kafka_python_admin.py', [cluster.bootstrap, 'admin', LIVE_GROUP, EMPTY_GROUP]);
    expect(r['create']).toEqual([['admin-kp', 0]]);
    expect(r['create_again']).toEqual({ error: 'TopicAlreadyExistsError' });
    // [value, read_only, config_source (DescribeConfigs v1), is_sensitive]
    expect(r['describe_topic']).toEqual([0, 2, 'admin-kp', ['compact', false, 1, false], ['604800000', false, 5, false]]);
    expect(r['describe_broker']).toEqual([0, 4, '0', ['0', true, 4, false]]);
    expect(r['alter_configs']).toEqual([[0, null]]);
    expect(r['after_alter']).toEqual(['86400000', false, 1, false]);
    expect(r['create_partitions']).toEqual([['admin-kp', 0]]);
    expect(r['list_consumer_groups']).toEqual(expect.arrayContaining([[LIVE_GROUP, 'consumer'], [EMPTY_GROUP, 'consumer']]));
    expect(r['describe_consumer_groups']).toEqual([
      [LIVE_GROUP, 'Stable', 'consumer', 'RoundRobinAssigner', ['admin-clients-test']],
      [EMPTY_GROUP, 'Empty', 'consumer', '', []],
    ]);
    expect(r['list_consumer_group_offsets']).toEqual([[TOPIC, 0, 4]]);
    expect(r['delete_consumer_groups']).toEqual([[EMPTY_GROUP, 'NoError'], [LIVE_GROUP, 'NonEmptyGroupError']]);
    expect(r['delete_topics']).toEqual([['admin-kp', 0]]);
    const c = await admin.describeCluster();
    expect(r['describe_cluster']).toEqual({ brokers: [0, 1, 2], controller: c.controller, cluster_id: c.clusterId });
  });

  it('kafkajs describeGroups and deleteGroups', async () => {
    const { groups } = await admin.describeGroups([LIVE_GROUP]);
    expect([groups[0]?.groupId, groups[0]?.state, groups[0]?.protocolType, groups[0]?.protocol, groups[0]?.members.length]).toEqual([LIVE_GROUP, 'Stable', 'consumer', 'RoundRobinAssigner', 1]);
    await expect(admin.deleteGroups([LIVE_GROUP])).rejects.toMatchObject({ groups: [expect.objectContaining({ groupId: LIVE_GROUP, errorCode: 68 })] });
    await consumer.disconnect();
    await waitUntil(async () => (await admin.describeGroups([LIVE_GROUP])).groups[0]?.state === 'Empty', { message: 'the live group empty' });
    expect(await admin.deleteGroups([LIVE_GROUP])).toEqual([{ groupId: LIVE_GROUP, errorCode: 0 }]);
    expect((await admin.describeGroups([LIVE_GROUP])).groups[0]?.state).toBe('Dead');
  });

  it('broker loggers: kafka-configs and kafkajs describe and set levels that the broker applies live', async () => {
    const configs = (...args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', cluster.bootstrap, '--entity-type', 'broker-loggers', '--entity-name', '0', ...args]);
    const before = await configs('--describe');
    expect(before.code).toBe(0);
    const lines = before.output.trim().split('\n');
    expect(lines[0]).toBe('Dynamic configs for broker-logger 0 are:');
    expect(lines).toEqual(expect.arrayContaining(['  root=INFO sensitive=false synonyms={}', '  kafka.controller=TRACE sensitive=false synonyms={}', '  kafka.request.logger=WARN sensitive=false synonyms={}', '  kafka.server.ReplicaManager=INFO sensitive=false synonyms={}']));

    const set = await configs('--alter', '--add-config', 'kafka.controller=DEBUG,kafka.request.logger=DEBUG');
    expect([set.code, set.output.trim()]).toEqual([0, 'Completed updating config for broker-logger 0.']);
    expect((await configs('--describe')).output).toContain('  kafka.controller=DEBUG sensitive=false synonyms={}');
    // Live: kafka.request.logger at DEBUG writes "Completed request" lines to broker 0's kafka-request.log.
    const requestLog = path.join(cluster.broker(0).logDir, 'kafka-request.log');
    await waitUntil(async () => {
      await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: '0', configNames: ['root'] }] });
      return fs.existsSync(requestLog) && fs.readFileSync(requestLog, 'utf8').includes('Completed request:');
    }, { message: 'request lines in kafka-request.log' });

    const kjs = await admin.describeConfigs({ includeSynonyms: true, resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: '0', configNames: ['kafka.controller'] }] });
    expect(kjs.resources[0]?.configEntries).toEqual([
      { configName: 'kafka.controller', configValue: 'DEBUG', readOnly: false, isDefault: false, configSource: 6, isSensitive: false, configSynonyms: [] },
    ]);
    // Only broker 0 changed.
    const other = await admin.describeConfigs({ includeSynonyms: false, resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: '1', configNames: ['kafka.controller'] }] });
    expect(other.resources[0]?.configEntries[0]?.configValue).toBe('TRACE');

    const deleted = await configs('--alter', '--delete-config', 'kafka.controller,kafka.request.logger');
    expect(deleted.code).toBe(0);
    expect((await configs('--describe')).output).toContain('  kafka.controller=INFO sensitive=false synonyms={}');

    const unknown = await configs('--alter', '--add-config', 'no.such.Logger=DEBUG');
    expect([unknown.code, unknown.output.trim().split('\n').pop()]).toEqual([1, expect.stringContaining('Invalid broker logger(s): no.such.Logger')]);
    const root = await configs('--alter', '--delete-config', 'root');
    expect([root.code, root.output]).toEqual([1, expect.stringContaining('Removing the log level of the root logger is not allowed')]);
    const badLevel = await configs('--alter', '--add-config', 'root=LOUD');
    expect([badLevel.code, badLevel.output]).toEqual([1, expect.stringContaining('Cannot set the log level of root to LOUD as it is not a supported log level. Valid log levels are TRACE, ERROR, INFO, FATAL, DEBUG, WARN')]);
    // The deprecated AlterConfigs does not take BROKER_LOGGER (kafkajs only sends AlterConfigs).
    await expect(admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.BROKER_LOGGER, name: '0', configEntries: [{ name: 'root', value: 'DEBUG' }] }] })).rejects.toMatchObject({ type: 'INVALID_REQUEST' });
  });
});
