import { createLogConfig } from '../../../src/common/config/log-config';
import { ErrorCode } from '../../../src/common/error-codes';
import { createCreatePartitionsHandler, createCreateTopicsHandler } from '../../../src/broker/handlers/topic-admin';
import { HandlerContext } from '../../../src/broker/handlers/handler-context';
import { RequestContext } from '../../../src/broker/network/api-handler';
import { CreatableTopic, CreateTopicsResponse } from '../../../src/protocol/apis/create-topics';
import { CreatePartitionsResponse, CreatePartitionsTopic } from '../../../src/protocol/apis/create-partitions';
import { AdminZk } from '../../../src/zk/admin-zk';
import { BrokerRegistryZk } from '../../../src/zk/broker-registry-zk';
import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';
import { FakeZk } from '../../helpers/fake-zk';

const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;

/** Three brokers (0, 1, 2) and topic `existing` with 2 partitions, in a fake ZooKeeper behind the real AdminZk. */
function setup(): { zk: FakeZk; ctx: HandlerContext } {
  const zk = new FakeZk();
  for (const id of [0, 1, 2]) {
    zk.put(`/brokers/ids/${id}`, BrokerInfoZNode.encode({ id, endpoints: [{ listenerName: 'PLAINTEXT', host: 'h', port: 9092 + id }], listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' }, jmxPort: -1, timestamp: 1, rack: null, version: 5 }));
  }
  zk.put('/brokers/topics/existing', '{"version":2,"partitions":{"0":[0,1],"1":[1,2]},"adding_replicas":{},"removing_replicas":{}}');
  zk.put('/brokers/topics/a_b', '{"version":2,"partitions":{"0":[0]},"adding_replicas":{},"removing_replicas":{}}');
  const defaults: Record<string, number> = { 'num.partitions': 1, 'default.replication.factor': 1 };
  const ctx = {
    controller: { isActive: true },
    config: { get: (key: string) => defaults[key] },
    adminZk: new AdminZk(zk.client),
    brokerRegistry: new BrokerRegistryZk(zk.client),
    metadataCache: { contains: () => true, topicWatchers: { waitUntil: async () => true } },
    logConfigFor: async (_topic: string, overrides?: ReadonlyMap<string, string>) => createLogConfig({}, overrides),
  } as unknown as HandlerContext;
  return { zk, ctx };
}

const rc = {} as RequestContext;
const topic = (t: Partial<CreatableTopic> & { name: string }): CreatableTopic => ({ numPartitions: -1, replicationFactor: -1, assignments: [], configs: [], ...t });

async function createTopics(ctx: HandlerContext, topics: CreatableTopic[]): Promise<CreateTopicsResponse['topics']> {
  const r = (await createCreateTopicsHandler(ctx)({ topics, timeoutMs: 1000, validateOnly: false }, rc)) as CreateTopicsResponse;
  return r.topics;
}

async function createPartitions(ctx: HandlerContext, topics: CreatePartitionsTopic[]): Promise<CreatePartitionsResponse['results']> {
  const r = (await createCreatePartitionsHandler(ctx)({ topics, timeoutMs: 1000, validateOnly: false }, rc)) as CreatePartitionsResponse;
  return r.results;
}

describe('CreateTopics: bounded values, Kafka 2.8 errors', () => {
  it.each([
    ['2^31-1 partitions', topic({ name: 't', numPartitions: 2147483647, replicationFactor: 1 }), 'INVALID_PARTITIONS', /The replica assignment of topic 't' with 2147483647 partitions would take \d+ bytes, more than the 1047551 bytes a ZooKeeper znode can hold/],
    ['200000 partitions', topic({ name: 't', numPartitions: 200000, replicationFactor: 3 }), 'INVALID_PARTITIONS', /ZooKeeper znode/],
    ['0 partitions', topic({ name: 't', numPartitions: 0, replicationFactor: 1 }), 'INVALID_PARTITIONS', /^Number of partitions must be larger than 0\.$/],
    ['-5 partitions', topic({ name: 't', numPartitions: -5, replicationFactor: 1 }), 'INVALID_PARTITIONS', /^Number of partitions must be larger than 0\.$/],
    ['RF 0', topic({ name: 't', numPartitions: 1, replicationFactor: 0 }), 'INVALID_REPLICATION_FACTOR', /^Replication factor must be larger than 0\.$/],
    ['RF -7', topic({ name: 't', numPartitions: 1, replicationFactor: -7 }), 'INVALID_REPLICATION_FACTOR', /^Replication factor must be larger than 0\.$/],
    ['RF 4 on 3 brokers', topic({ name: 't', numPartitions: 1, replicationFactor: 4 }), 'INVALID_REPLICATION_FACTOR', /^Replication factor: 4 larger than available brokers: 3\.$/],
    ['RF 32767', topic({ name: 't', numPartitions: 1, replicationFactor: 32767 }), 'INVALID_REPLICATION_FACTOR', /^Replication factor: 32767 larger than available brokers: 3\.$/],
    ['duplicate replicas', topic({ name: 't', assignments: [{ partitionIndex: 0, brokerIds: [1, 1] }] }), 'INVALID_REPLICA_ASSIGNMENT', /^Duplicate replica assignment found: HashMap\(0 -> ArrayBuffer\(1, 1\)\)$/],
    ['different replication factors', topic({ name: 't', assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }, { partitionIndex: 1, brokerIds: [1] }] }), 'INVALID_REPLICA_ASSIGNMENT', /^All partitions should have the same number of replicas$/],
    ['partition ids not 0..n-1', topic({ name: 't', assignments: [{ partitionIndex: 1, brokerIds: [1] }, { partitionIndex: 2, brokerIds: [2] }] }), 'INVALID_REPLICA_ASSIGNMENT', /^partitions should be a consecutive 0-based integer sequence$/],
    ['empty replica lists', topic({ name: 't', assignments: [{ partitionIndex: 0, brokerIds: [] }] }), 'INVALID_REPLICA_ASSIGNMENT', /^Cannot have replication factor of 0 for partition id 0\.$/],
    ['an assignment too large for a znode', topic({ name: 't', assignments: Array.from({ length: 120000 }, (_, p) => ({ partitionIndex: p, brokerIds: [0, 1] })) }), 'INVALID_PARTITIONS', /ZooKeeper znode/],
    ['numPartitions with assignments', topic({ name: 't', numPartitions: 1, assignments: [{ partitionIndex: 0, brokerIds: [0] }] }), 'INVALID_REQUEST', /^Both numPartitions or replicationFactor and replicasAssignments were set/],
    ['a null config value', topic({ name: 't', configs: [{ name: 'retention.ms', value: null }] }), 'INVALID_REQUEST', /^Null value not supported for topic configs : retention.ms$/],
    ['a 250-character name', topic({ name: 'x'.repeat(250) }), 'INVALID_TOPIC_EXCEPTION', /can't be longer than 249 characters/],
    ['"."', topic({ name: '.' }), 'INVALID_TOPIC_EXCEPTION', /^Topic name cannot be "\." or "\.\."$/],
    ['a name with /', topic({ name: 'a/b' }), 'INVALID_TOPIC_EXCEPTION', /contains a character other than ASCII alphanumerics/],
    ['a colliding name', topic({ name: 'a.b' }), 'INVALID_TOPIC_EXCEPTION', /^Topic 'a\.b' collides with existing topics: a_b$/],
    ['an existing name', topic({ name: 'existing' }), 'TOPIC_ALREADY_EXISTS', /^Topic 'existing' already exists\.$/],
  ])('%s', async (_what, t, errorName, message) => {
    const { zk, ctx } = setup();
    const before = [...zk.nodes.keys()].sort();
    const started = Date.now();
    const [result] = await createTopics(ctx, [t]);
    expect(Date.now() - started).toBeLessThan(500);
    expect(result).toMatchObject({ name: t.name, errorCode: code(errorName as keyof typeof ErrorCode) });
    expect(result?.errorMessage).toMatch(message);
    expect([...zk.nodes.keys()].sort()).toEqual(before);
  });

  it('explicit assignments naming unknown brokers are accepted, as in Kafka 2.8 (ZkAdminManager does not check them)', async () => {
    const { zk, ctx } = setup();
    const [result] = await createTopics(ctx, [topic({ name: 'later', assignments: [{ partitionIndex: 0, brokerIds: [7, 0] }] })]);
    expect(result?.errorCode).toBe(0);
    expect(JSON.parse(zk.text('/brokers/topics/later') ?? '').partitions).toEqual({ 0: [7, 0] });
  });

  it('a valid request is created, and a broker with an unreadable registration gets no replicas', async () => {
    const { zk, ctx } = setup();
    zk.put('/brokers/ids/9', 'junk');
    const [result] = await createTopics(ctx, [topic({ name: 'fine', numPartitions: 6, replicationFactor: 3 })]);
    expect(result?.errorCode).toBe(0);
    const replicas = Object.values(JSON.parse(zk.text('/brokers/topics/fine') ?? '').partitions as Record<string, number[]>).flat();
    expect(new Set(replicas)).toEqual(new Set([0, 1, 2]));
  });
});

describe('CreatePartitions: bounded values, Kafka 2.8 errors', () => {
  it.each([
    ['2^31-1 partitions', { name: 'existing', count: 2147483647, assignments: null }, 'INVALID_PARTITIONS', /ZooKeeper znode/],
    ['unknown brokers', { name: 'existing', count: 3, assignments: [{ brokerIds: [7, 1] }] }, 'INVALID_REPLICA_ASSIGNMENT', /^Unknown broker\(s\) in replica assignment: 7\.$/],
    ['duplicate replicas', { name: 'existing', count: 3, assignments: [{ brokerIds: [1, 1] }] }, 'INVALID_REPLICA_ASSIGNMENT', /^Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 2\.$/],
    ['another replication factor', { name: 'existing', count: 4, assignments: [{ brokerIds: [1] }, { brokerIds: [2, 0, 1] }] }, 'INVALID_REPLICA_ASSIGNMENT', /^Inconsistent replication factor between partitions, partition 0 has 2 while partitions \[2, 3\] have replication factors \[1, 3\], respectively\.$/],
    ['too few assignments', { name: 'existing', count: 4, assignments: [{ brokerIds: [1, 2] }] }, 'INVALID_REPLICA_ASSIGNMENT', /^Increasing the number of partitions by 2 but 1 assignments provided\.$/],
    ['empty replicas', { name: 'existing', count: 3, assignments: [{ brokerIds: [] }] }, 'INVALID_REPLICA_ASSIGNMENT', /^Cannot have replication factor of 0 for partition id 2\.$/],
    ['fewer partitions', { name: 'existing', count: 1, assignments: null }, 'INVALID_PARTITIONS', /^Topic currently has 2 partitions, which is higher than the requested 1\.$/],
    ['as many partitions', { name: 'existing', count: 2, assignments: null }, 'INVALID_PARTITIONS', /^Topic already has 2 partitions\.$/],
    ['no such topic', { name: 'missing', count: 2, assignments: null }, 'UNKNOWN_TOPIC_OR_PARTITION', /^The topic 'missing' does not exist\.$/],
    ['an illegal name', { name: 'a/b', count: 2, assignments: null }, 'UNKNOWN_TOPIC_OR_PARTITION', /^The topic 'a\/b' does not exist\.$/],
  ])('%s', async (_what, t, errorName, message) => {
    const { zk, ctx } = setup();
    const before = zk.text('/brokers/topics/existing');
    const started = Date.now();
    const [result] = await createPartitions(ctx, [t]);
    expect(Date.now() - started).toBeLessThan(500);
    expect(result).toMatchObject({ errorCode: code(errorName as keyof typeof ErrorCode) });
    expect(result?.errorMessage).toMatch(message);
    expect(zk.text('/brokers/topics/existing')).toBe(before);
  });

  it('an unreadable assignment is a topic that does not exist; one being reassigned is refused', async () => {
    const { zk, ctx } = setup();
    zk.put('/brokers/topics/existing', 'junk');
    expect((await createPartitions(ctx, [{ name: 'existing', count: 5, assignments: null }]))[0]).toMatchObject({ errorCode: code('UNKNOWN_TOPIC_OR_PARTITION') });
    zk.put('/brokers/topics/existing', '{"version":2,"partitions":{"0":[0,1]},"adding_replicas":{"0":[1]},"removing_replicas":{}}');
    expect((await createPartitions(ctx, [{ name: 'existing', count: 5, assignments: null }]))[0]).toMatchObject({
      errorCode: code('REASSIGNMENT_IN_PROGRESS'),
      errorMessage: "A partition reassignment is in progress for the topic 'existing'.",
    });
  });

  it('valid additions are written', async () => {
    const { zk, ctx } = setup();
    expect((await createPartitions(ctx, [{ name: 'existing', count: 4, assignments: null }]))[0]?.errorCode).toBe(0);
    expect(Object.keys(JSON.parse(zk.text('/brokers/topics/existing') ?? '').partitions)).toEqual(['0', '1', '2', '3']);
    expect((await createPartitions(ctx, [{ name: 'existing', count: 5, assignments: [{ brokerIds: [2, 0] }] }]))[0]?.errorCode).toBe(0);
    expect(JSON.parse(zk.text('/brokers/topics/existing') ?? '').partitions['4']).toEqual([2, 0]);
  });
});
