import { createAlterConfigsHandlers } from '../../../src/broker/handlers/alter-configs';
import { HandlerContext } from '../../../src/broker/handlers/handler-context';
import { RequestContext } from '../../../src/broker/network/api-handler';
import { ErrorCode } from '../../../src/common/error-codes';
import { AlterConfigsResource, AlterConfigsResponse } from '../../../src/protocol/apis/alter-configs';
import { IncrementalAlterConfigsResource, IncrementalAlterConfigsResponse } from '../../../src/protocol/apis/incremental-alter-configs';
import { AdminZk } from '../../../src/zk/admin-zk';
import { FakeZk } from '../../helpers/fake-zk';
import { DynamicBrokerConfig } from '../../../src/common/config/dynamic-broker-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';

const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;
const rc = {} as RequestContext;

/** Broker 1 with topic `t` (override retention.ms=1000) in a fake ZooKeeper behind the real AdminZk. */
function setup(): { zk: FakeZk; handlers: ReturnType<typeof createAlterConfigsHandlers> } {
  const zk = new FakeZk();
  zk.put('/brokers/topics/t', '{"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}');
  zk.put('/config/topics/t', '{"version":1,"config":{"retention.ms":"1000"}}');
  zk.put('/config/changes', '');
  const dynamicBrokerConfig = new DynamicBrokerConfig(KafkaConfig.fromProperties(new Map([['zookeeper.connect', 'zk:2181'], ['broker.id', '1']])));
  const ctx = { brokerId: 1, adminZk: new AdminZk(zk.client), metadataCache: { contains: (t: string) => t === 't' }, dynamicBrokerConfig } as unknown as HandlerContext;
  return { zk, handlers: createAlterConfigsHandlers(ctx) };
}

function stored(zk: FakeZk): unknown {
  const node = zk.nodes.get('/config/topics/t');
  return node === undefined ? undefined : (JSON.parse(String(node.data)) as { config: unknown }).config;
}

function notifications(zk: FakeZk): number {
  return [...zk.nodes.keys()].filter((p) => p.startsWith('/config/changes/config_change_')).length;
}

async function alter(h: ReturnType<typeof createAlterConfigsHandlers>, resources: AlterConfigsResource[], validateOnly = false): Promise<AlterConfigsResponse['responses']> {
  return ((await h.alterConfigs({ resources, validateOnly }, rc)) as AlterConfigsResponse).responses;
}

async function incremental(h: ReturnType<typeof createAlterConfigsHandlers>, resources: IncrementalAlterConfigsResource[], validateOnly = false): Promise<IncrementalAlterConfigsResponse['responses']> {
  return ((await h.incrementalAlterConfigs({ resources, validateOnly }, rc)) as IncrementalAlterConfigsResponse).responses;
}

const topic = (configs: { name: string; value: string | null }[], name = 't'): AlterConfigsResource => ({ resourceType: 2, resourceName: name, configs });
const itopic = (configs: { name: string; configOperation: number; value: string | null }[], name = 't'): IncrementalAlterConfigsResource => ({ resourceType: 2, resourceName: name, configs });

describe('AlterConfigs (ZkAdminManager.alterConfigs) for topics', () => {
  it('replaces the whole override set and posts one change notification', async () => {
    const { zk, handlers } = setup();
    expect(await alter(handlers, [topic([{ name: 'segment.bytes', value: '1048576' }])])).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't' }]);
    expect(stored(zk)).toEqual({ 'segment.bytes': '1048576' });
    expect(notifications(zk)).toBe(1);
  });

  it('validate_only validates without writing', async () => {
    const { zk, handlers } = setup();
    expect((await alter(handlers, [topic([{ name: 'segment.bytes', value: '1048576' }])], true))[0]?.errorCode).toBe(0);
    expect((await alter(handlers, [topic([{ name: 'segment.bytes', value: 'x' }])], true))[0]?.errorCode).toBe(code('INVALID_REQUEST'));
    expect(stored(zk)).toEqual({ 'retention.ms': '1000' });
    expect(notifications(zk)).toBe(0);
  });

  it.each([
    ['unknown key', topic([{ name: 'no.such', value: '1' }]), 'INVALID_CONFIG', 'Unknown topic config name: no.such'],
    ['invalid value', topic([{ name: 'retention.ms', value: 'abc' }]), 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=TOPIC, name='t'): Invalid value abc for configuration retention.ms: Not a number of type LONG"],
    ['null value', topic([{ name: 'retention.ms', value: null }, { name: 'segment.ms', value: null }]), 'INVALID_REQUEST', 'Null value not supported for : retention.ms,segment.ms'],
    ['missing topic', topic([{ name: 'retention.ms', value: '1' }], 'nope'), 'UNKNOWN_TOPIC_OR_PARTITION', "The topic 'nope' does not exist."],
    ['invalid topic name', topic([{ name: 'retention.ms', value: '1' }], 'a/b'), 'UNKNOWN_TOPIC_OR_PARTITION', "The topic 'a/b' does not exist."],
    ['broker key this broker does not apply', { resourceType: 4, resourceName: '1', configs: [{ name: 'ssl.client.auth', value: 'none' }, { name: 'ssl.cipher.suites', value: '' }] }, 'INVALID_CONFIG', 'These dynamic broker configs are not supported by this broker: ssl.client.auth,ssl.cipher.suites'],
    ['unprefixed key material', { resourceType: 4, resourceName: '1', configs: [{ name: 'ssl.keystore.location', value: '/k.jks' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): These security configs can be dynamically updated only per-listener using the listener prefix: Set(ssl.keystore.location)"],
    ['unknown broker key', { resourceType: 4, resourceName: '', configs: [{ name: 'no.such', value: '2' }] }, 'INVALID_CONFIG', 'Unknown dynamic broker configs are not supported by this broker: no.such'],
    ['non-dynamic broker key', { resourceType: 4, resourceName: '1', configs: [{ name: 'broker.id', value: '2' }, { name: 'log.dirs', value: '/x' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Cannot update these configs dynamically: Set(broker.id, log.dirs)"],
    ['per-broker key at the default', { resourceType: 4, resourceName: '', configs: [{ name: 'listeners', value: 'PLAINTEXT://:9093' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name=''): Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)"],
    ['invalid broker value', { resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', value: 'abc' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Invalid value abc for configuration log.retention.ms: Not a number of type LONG"],
    ['thread count beyond double the current one', { resourceType: 4, resourceName: '', configs: [{ name: 'num.replica.fetchers', value: '3' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name=''): Invalid dynamic configuration"],
    ['broker value breaking the topic rule', { resourceType: 4, resourceName: '', configs: [{ name: 'log.segment.bytes', value: '10' }] }, 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name=''): Invalid value 10 for configuration log.segment.bytes: Value must be at least 14"],
    ['another broker', { resourceType: 4, resourceName: '2', configs: [{ name: 'log.cleaner.threads', value: '2' }] }, 'INVALID_REQUEST', 'Unexpected broker id, expected 1, but received 2'],
    ['broker id not a number', { resourceType: 4, resourceName: 'x', configs: [] }, 'INVALID_REQUEST', 'Broker id must be an integer, but it is: x'],
  ])('%s', async (_name, resource, error, message) => {
    const { zk, handlers } = setup();
    expect(await alter(handlers, [resource])).toEqual([{ errorCode: code(error as keyof typeof ErrorCode), errorMessage: message, resourceType: resource.resourceType, resourceName: resource.resourceName }]);
    expect(stored(zk)).toEqual({ 'retention.ms': '1000' });
    expect(notifications(zk)).toBe(0);
  });

  it('refuses the whole request for an unknown resource type or BROKER_LOGGER, as KafkaApis', async () => {
    const { handlers } = setup();
    const r = await alter(handlers, [topic([{ name: 'retention.ms', value: '5' }]), { resourceType: 3, resourceName: 'x', configs: [] }]);
    expect(r.map((x) => [x.errorCode, x.errorMessage])).toEqual([[code('INVALID_REQUEST'), 'Unexpected resource type UNKNOWN'], [code('INVALID_REQUEST'), 'Unexpected resource type UNKNOWN']]);
    const logger = await alter(handlers, [{ resourceType: 8, resourceName: '1', configs: [] }]);
    expect(logger[0]?.errorMessage).toBe('AlterConfigs is deprecated and does not support the resource type BROKER_LOGGER');
  });

  it('refuses every entry of a resource named twice; the others go on', async () => {
    const { zk, handlers } = setup();
    zk.put('/brokers/topics/u', '{"version":2,"partitions":{"0":[1]},"adding_replicas":{},"removing_replicas":{}}');
    const r = await alter(handlers, [topic([{ name: 'retention.ms', value: '5' }]), topic([{ name: 'retention.ms', value: '6' }])]);
    expect(r.map((x) => [x.errorCode, x.errorMessage])).toEqual([[code('INVALID_REQUEST'), 'Each resource must appear at most once.'], [code('INVALID_REQUEST'), 'Each resource must appear at most once.']]);
  });
});

describe('IncrementalAlterConfigs (ZkAdminManager.incrementalAlterConfigs) for topics', () => {
  it('edits the stored overrides: SET, DELETE, APPEND on cleanup.policy', async () => {
    const { zk, handlers } = setup();
    const r = await incremental(handlers, [itopic([{ name: 'segment.bytes', configOperation: 0, value: '1048576' }, { name: 'retention.ms', configOperation: 1, value: null }, { name: 'cleanup.policy', configOperation: 2, value: 'compact' }])]);
    expect(r).toEqual([{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't' }]);
    expect(stored(zk)).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'delete,compact' });
    expect(notifications(zk)).toBe(1);
    await incremental(handlers, [itopic([{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }])]);
    expect(stored(zk)).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'compact' });
  });

  it.each([
    ['APPEND on a non-list key', [{ name: 'retention.ms', configOperation: 2, value: '1' }], 'INVALID_REQUEST', 'Config value append is not allowed for config key: retention.ms'],
    ['duplicate keys', [{ name: 'retention.ms', configOperation: 0, value: '1' }, { name: 'retention.ms', configOperation: 1, value: null }], 'INVALID_REQUEST', 'Error due to duplicate config keys : retention.ms'],
    ['null SET', [{ name: 'retention.ms', configOperation: 0, value: null }], 'INVALID_REQUEST', 'Null value not supported for : SET:retention.ms'],
    ['unknown key', [{ name: 'no.such', configOperation: 0, value: '1' }], 'INVALID_CONFIG', 'Unknown topic config name: no.such'],
    ['SUBTRACT leaving cleanup.policy empty', [{ name: 'cleanup.policy', configOperation: 3, value: 'delete' }], 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=TOPIC, name='t'): Invalid value  for configuration cleanup.policy: Empty list"],
  ])('%s', async (_name, configs, error, message) => {
    const { zk, handlers } = setup();
    const r = await incremental(handlers, [itopic(configs)]);
    expect([r[0]?.errorCode, r[0]?.errorMessage]).toEqual([code(error as keyof typeof ErrorCode), message]);
    expect(stored(zk)).toEqual({ 'retention.ms': '1000' });
  });

  it('refuses BROKER keys this broker does not apply and BROKER_LOGGER loggers that do not exist, per resource', async () => {
    const { handlers } = setup();
    const r = await incremental(handlers, [
      { resourceType: 4, resourceName: '1', configs: [{ name: 'ssl.cipher.suites', configOperation: 0, value: 'x' }] },
      { resourceType: 8, resourceName: '1', configs: [{ name: 'kafka.no.such.Logger', configOperation: 0, value: 'DEBUG' }] },
      itopic([{ name: 'retention.ms', configOperation: 0, value: '5' }]),
    ]);
    expect(r.map((x) => [x.errorCode, x.errorMessage])).toEqual([
      [code('INVALID_CONFIG'), 'These dynamic broker configs are not supported by this broker: ssl.cipher.suites'],
      [code('INVALID_REQUEST'), "Invalid config value for resource ConfigResource(type=BROKER_LOGGER, name='1'): Logger kafka.no.such.Logger does not exist!"],
      [0, null],
    ]);
  });
});

describe('AlterConfigs and IncrementalAlterConfigs for BROKER resources (ZkAdminManager.alterBrokerConfigs)', () => {
  const brokerNode = (zk: FakeZk, name: string): unknown => {
    const node = zk.nodes.get(`/config/brokers/${name}`);
    return node === undefined ? undefined : JSON.parse(String(node.data));
  };

  it('writes /config/brokers/<id> and /config/brokers/<default> whole, each with a brokers/<name> notification', async () => {
    const { zk, handlers } = setup();
    expect((await alter(handlers, [{ resourceType: 4, resourceName: '1', configs: [{ name: 'log.retention.ms', value: '60000' }] }]))[0]?.errorCode).toBe(0);
    expect((await alter(handlers, [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.cleanup.policy', value: 'compact' }] }]))[0]?.errorCode).toBe(0);
    expect(brokerNode(zk, '1')).toEqual({ version: 1, config: { 'log.retention.ms': '60000' } });
    expect(brokerNode(zk, '<default>')).toEqual({ version: 1, config: { 'log.cleanup.policy': 'compact' } });
    const entities = [...zk.nodes].filter(([p]) => p.startsWith('/config/changes/config_change_')).map(([, n]) => JSON.parse(String(n.data)) as unknown);
    expect(entities).toEqual([{ version: 2, entity_path: 'brokers/1' }, { version: 2, entity_path: 'brokers/<default>' }]);
  });

  it('validate_only validates without writing', async () => {
    const { zk, handlers } = setup();
    expect((await alter(handlers, [{ resourceType: 4, resourceName: '1', configs: [{ name: 'message.max.bytes', value: '2000000' }] }], true))[0]?.errorCode).toBe(0);
    expect(brokerNode(zk, '1')).toBeUndefined();
    expect(notifications(zk)).toBe(0);
  });

  it('incremental operations edit the stored set (SET, DELETE, APPEND on a list key)', async () => {
    const { zk, handlers } = setup();
    zk.put('/config/brokers/1', '{"version":1,"config":{"log.retention.ms":"1000","log.segment.bytes":"1048576"}}');
    const r = await incremental(handlers, [
      { resourceType: 4, resourceName: '1', configs: [
        { name: 'log.retention.ms', configOperation: 1, value: null },
        { name: 'log.cleanup.policy', configOperation: 2, value: 'compact' },
        { name: 'unclean.leader.election.enable', configOperation: 0, value: 'true' },
      ] },
    ]);
    expect(r[0]?.errorCode).toBe(0);
    expect(brokerNode(zk, '1')).toEqual({ version: 1, config: { 'log.segment.bytes': '1048576', 'log.cleanup.policy': 'delete,compact', 'unclean.leader.election.enable': 'true' } });
  });
});
