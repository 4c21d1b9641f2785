import { AdminZk, readTopicOverrides } from '../../../src/zk/admin-zk';
import { BrokerRegistryZk } from '../../../src/zk/broker-registry-zk';
import { ClusterZk } from '../../../src/zk/cluster-zk';
import { ControllerZk } from '../../../src/zk/controller-zk';
import { ZkPaths } from '../../../src/zk/zk-paths';
import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';
import { ZkOffsetStore } from '../../../src/rebalance/zk-offset-store';
import { captureLogs } from '../../helpers/capture-logs';
import { FakeZk } from '../../helpers/fake-zk';

/**
 * Every place kafka-ts reads a znode decides what unreadable data means there (Kafka 2.8's choice unless noted),
 * and logs the path. Each test puts junk where Kafka's own JSON belongs and checks the decision.
 */
const JUNK = 'this is not json {';

const broker = (id: number, port = 9092): string =>
  BrokerInfoZNode.encode({ id, endpoints: [{ listenerName: 'PLAINTEXT', host: 'h', port }], listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' }, jmxPort: -1, timestamp: 1, rack: null, version: 5 }).toString();

describe('/controller and /controller_epoch', () => {
  it('unreadable /controller names no controller (ControllerZNode.decode gives None), logged with the path', async () => {
    const zk = new FakeZk();
    zk.put('/controller', JUNK, '77');
    const logs = captureLogs();
    expect(await new ControllerZk(zk.client).getControllerId()).toBeNull();
    zk.put('/controller', '{"version":1,"brokerid":"two"}', '77');
    expect(await new ControllerZk(zk.client).getControllerId()).toBeNull();
    expect(logs.text()).toMatch(/Ignoring unreadable \/controller/);
  });

  it('an election removes an unreadable /controller (ephemeral of another session or persistent) and wins', async () => {
    for (const owner of ['77', '0']) {
      const zk = new FakeZk();
      zk.put('/controller_epoch', '4');
      zk.put('/controller', JUNK, owner);
      const logs = captureLogs();
      const won = await new ControllerZk(zk.client).registerControllerAndIncrementControllerEpoch(2);
      expect(won).toEqual({ epoch: 5, epochZkVersion: 1 });
      expect(JSON.parse(zk.text('/controller') ?? '')).toMatchObject({ version: 1, brokerid: 2 });
      expect(zk.nodes.get('/controller')?.stat.ephemeralOwner).toBe(zk.sessionId);
      expect(logs.text()).toMatch(/Deleting \/controller with unreadable data/);
    }
  });

  it('an election does not remove a readable /controller of another broker', async () => {
    const zk = new FakeZk();
    zk.put('/controller_epoch', '4');
    zk.put('/controller', '{"version":1,"brokerid":1,"timestamp":"1"}', '77');
    expect(await new ControllerZk(zk.client).registerControllerAndIncrementControllerEpoch(2)).toBeNull();
    expect(JSON.parse(zk.text('/controller') ?? '')).toMatchObject({ brokerid: 1 });
  });

  it('an unreadable /controller_epoch is taken as its zkVersion, so the next epoch is newer than any written', async () => {
    const zk = new FakeZk();
    zk.put('/controller_epoch', '0');
    for (let i = 1; i <= 6; i++) zk.put('/controller_epoch', String(i));
    zk.put('/controller_epoch', 'garbage');
    const logs = captureLogs();
    const czk = new ControllerZk(zk.client);
    expect(await czk.getControllerEpoch()).toEqual({ epoch: 7, zkVersion: 7 });
    const won = await czk.registerControllerAndIncrementControllerEpoch(0);
    expect(won?.epoch).toBe(8);
    expect(zk.text('/controller_epoch')).toBe('8');
    expect(logs.text()).toMatch(/Unreadable \/controller_epoch .*taking its zkVersion 7/);
    // Fencing reads only the version, whatever the data.
    zk.put('/controller_epoch', 'junk again');
    await expect(czk.checkControllerEpoch(9)).resolves.toBeUndefined();
  });
});

describe('/brokers/ids', () => {
  it('skips an unreadable registration and a child that is not a broker id; the others are brokers', async () => {
    const zk = new FakeZk();
    zk.put('/brokers/ids/0', broker(0));
    zk.put('/brokers/ids/1', JUNK);
    zk.put('/brokers/ids/2', broker(2));
    zk.put('/brokers/ids/3', '{"version":5,"endpoints":["PLAINTEXT://h:99999"],"timestamp":"1"}');
    zk.put('/brokers/ids/abc', broker(4));
    const logs = captureLogs();
    const registry = new BrokerRegistryZk(zk.client);
    expect([...(await registry.getAllBrokersAndEpochs()).keys()]).toEqual([0, 2]);
    // What replica assignment uses: only brokers the controller counts.
    expect(await registry.getBrokerIds()).toEqual([0, 2]);
    const text = logs.text();
    expect(text).toMatch(/Ignoring broker 1: failed to parse ZooKeeper registration at \/brokers\/ids\/1/);
    expect(text).toMatch(/Ignoring broker 3: .*bad endpoint "PLAINTEXT:\/\/h:99999"/);
    expect(text).toMatch(/Ignoring \/brokers\/ids\/abc: not a broker id/);
  });
});

describe('/brokers/topics', () => {
  it('the controller leaves out children that are not legal topic names, logging each once', async () => {
    const zk = new FakeZk();
    zk.put('/brokers/topics/good', '{"version":2,"partitions":{"0":[0]}}');
    zk.put(`/brokers/topics/${'x'.repeat(250)}`, '{"version":2,"partitions":{"0":[0]}}');
    zk.put('/brokers/topics/sp ace', '{"version":2,"partitions":{"0":[0]}}');
    const logs = captureLogs();
    const czk = new ControllerZk(zk.client);
    expect(await czk.getAllTopics()).toEqual(['good']);
    expect(await czk.getAllTopics()).toEqual(['good']);
    const text = logs.text();
    expect(text.match(/Ignoring \/brokers\/topics\/sp ace: Topic name "sp ace" is illegal/g)).toHaveLength(1);
    expect(text).toMatch(/can't be longer than 249 characters/);
  });

  it('an unreadable assignment is a topic without partitions (TopicZNode.decode gives an empty map), marked unreadable', async () => {
    const zk = new FakeZk();
    zk.put('/brokers/topics/t', JUNK);
    const logs = captureLogs();
    const read = await new ControllerZk(zk.client).getTopicAssignment('t');
    expect(read?.unreadable).toBe(true);
    expect(read?.assignment.partitions.size).toBe(0);
    expect(read?.zkVersion).toBe(0);
    expect((await new AdminZk(zk.client).getTopicAssignment('t'))?.partitions.size).toBe(0);
    for (const shape of ['{"version":1,"partitions":{"0":[1,"2"]}}', '{"version":1,"partitions":{"99999999999":[1]}}', '{"version":1,"partitions":[]}', '[1,2]']) {
      zk.put('/brokers/topics/t', shape);
      expect((await new ControllerZk(zk.client).getTopicAssignment('t'))?.unreadable).toBe(true);
    }
    expect(logs.text()).toMatch(/Ignoring the unreadable partition assignment of topic t at \/brokers\/topics\/t/);
  });

  it('an unreadable partition state reads as none (TopicPartitionStateZNode.decode gives None)', async () => {
    const zk = new FakeZk();
    zk.put('/brokers/topics/t/partitions/0/state', JUNK);
    zk.put('/brokers/topics/t/partitions/1/state', '{"controller_epoch":1,"leader":"x","version":1,"leader_epoch":0,"isr":[1]}');
    const logs = captureLogs();
    const czk = new ControllerZk(zk.client);
    expect(await czk.getPartitionState('t', 0)).toBeNull();
    expect(await czk.getPartitionState('t', 1)).toBeNull();
    expect(await new AdminZk(zk.client).getPartitionState('t', 0)).toBeNull();
    expect(logs.text()).toMatch(/Ignoring unreadable partition state at \/brokers\/topics\/t\/partitions\/0\/state/);
  });
});

describe('/admin and notifications', () => {
  it('an unreadable preferred replica election is an empty request (deleted after the election)', async () => {
    const zk = new FakeZk();
    zk.put('/admin/preferred_replica_election', JUNK);
    const logs = captureLogs();
    expect(await new ControllerZk(zk.client).readPreferredReplicaElection()).toEqual([]);
    expect(logs.text()).toMatch(/invalid json at \/admin\/preferred_replica_election/);
  });

  it('ISR change notifications: unreadable ones are skipped, the others read', async () => {
    const zk = new FakeZk();
    zk.put('/isr_change_notification/isr_change_0000000001', JUNK);
    zk.put('/isr_change_notification/isr_change_0000000002', '{"version":1,"partitions":[{"topic":"t","partition":0}]}');
    zk.put('/isr_change_notification/isr_change_0000000003', '{"version":1,"partitions":[{"topic":"t","partition":"1"}]}');
    const logs = captureLogs();
    const children = (await zk.getChildren('/isr_change_notification')) ?? [];
    expect(await new ControllerZk(zk.client).readPartitionNotifications('/isr_change_notification', children)).toEqual([{ topic: 't', partition: 0 }]);
    expect(logs.text()).toMatch(/Ignoring unreadable notification \/isr_change_notification\/isr_change_0000000001/);
  });
});

describe('/config', () => {
  it('an unreadable topic config holds no overrides (ConfigEntityZNode.decode gives empty Properties)', async () => {
    const logs = captureLogs();
    expect(readTopicOverrides('/config/topics/t', Buffer.from(JUNK))).toEqual(new Map());
    expect(readTopicOverrides('/config/topics/t', Buffer.from('{"version":1,"config":{"retention.ms":86400000}}'))).toEqual(new Map());
    expect(readTopicOverrides('/config/topics/t', Buffer.from('{"version":1,"config":"x"}'))).toEqual(new Map());
    expect(readTopicOverrides('/config/topics/t', Buffer.from('{"version":1,"config":{"retention.ms":"1"}}'))).toEqual(new Map([['retention.ms', '1']]));
    const zk = new FakeZk();
    zk.put('/config/topics/t', JUNK);
    expect(await new AdminZk(zk.client).getTopicConfig('t')).toEqual(new Map());
    expect(logs.text()).toMatch(/Ignoring unreadable topic config at \/config\/topics\/t/);
  });
});

describe('/cluster/id', () => {
  it('an unreadable cluster id stops start-up, as Kafka (ClusterIdZNode.fromJson)', async () => {
    const zk = new FakeZk();
    zk.put('/cluster/id', JUNK);
    await expect(new ClusterZk(zk.client).getOrCreateClusterId()).rejects.toThrow(/Failed to parse the cluster id json .* at \/cluster\/id/);
    zk.put('/cluster/id', '{"version":"1","id":"abc"}');
    await expect(new ClusterZk(zk.client).getOrCreateClusterId()).resolves.toBe('abc');
  });
});

describe('/consumers', () => {
  it('an unreadable committed offset is no offset (-1), logged; the others are read', async () => {
    const zk = new FakeZk();
    zk.put('/consumers/g/offsets/t/0', '42');
    zk.put('/consumers/g/offsets/t/1', 'forty-two');
    zk.put('/consumers/g/offsets/t/2', '99999999999999999999999');
    zk.put('/consumers/g/offsets/t/junk', '5');
    const logs = captureLogs();
    const store = new ZkOffsetStore(zk.client);
    expect(await store.fetchMany('g', [0, 1, 2].map((partition) => ({ topic: 't', partition })))).toEqual([42, -1, -1]);
    expect(await store.fetchAll('g')).toEqual(new Map([['t', new Map([[0, 42]])]]));
    expect(logs.text()).toMatch(/Ignoring unreadable committed offset at \/consumers\/g\/offsets\/t\/1/);
  });

  it('no group id or topic forms a path other than its own', () => {
    expect(() => ZkPaths.consumerOffset('a/b', 't', 0)).toThrow(/Invalid znode name "a\/b": contains '\/'/);
    expect(() => ZkPaths.consumerGroup('..')).toThrow(/relative paths not allowed/);
    expect(() => ZkPaths.consumerGroup('')).toThrow(/empty node name/);
    expect(() => ZkPaths.consumerOffset('g', '../x', 0)).toThrow(/contains '\/'/);
    expect(() => ZkPaths.topic('a/b')).toThrow();
    expect(() => ZkPaths.configEntity('topics', 'a\u0001')).toThrow(/invalid character/);
    expect(ZkPaths.consumerGroup('my group:1')).toBe('/consumers/my group:1');
  });
});

describe('names that cannot be znode names do not exist', () => {
  it('AdminZk reads answer "no such topic" without touching ZooKeeper', async () => {
    const zk = new FakeZk();
    const admin = new AdminZk(zk.client);
    expect(await admin.topicExists('a/b')).toBe(false);
    expect(await admin.getTopicAssignment('..')).toBeNull();
    expect(await admin.getPartitionState('a/b', 0)).toBeNull();
    expect(await admin.getTopicConfig('a/b')).toEqual(new Map());
  });
});

describe('codecs refuse what Kafka would not have written', () => {
  const b = (s: string): Buffer => Buffer.from(s, 'utf8');

  it('config change notifications: versions 1 and 2 only, with Kafka\'s messages', async () => {
    const { ConfigChangeNotificationZNode } = await import('../../../src/zk/znodes/config-znodes');
    expect(ConfigChangeNotificationZNode.decode('p', b('{"version":2,"entity_path":"topics/t"}'))).toEqual({ entityType: 'topics', entityName: 't' });
    expect(ConfigChangeNotificationZNode.decode('p', b('{"version":1,"entity_type":"topics","entity_name":"t"}'))).toEqual({ entityType: 'topics', entityName: 't' });
    expect(() => ConfigChangeNotificationZNode.decode('p', b('{"version":3,"entity_path":"topics/t"}'))).toThrow(/unsupported version '3', supported versions are 1 and 2/);
    expect(() => ConfigChangeNotificationZNode.decode('p', b('{"version":2,"entity_path":"topics/"}'))).toThrow(/Invalid entity_path/);
    expect(() => ConfigChangeNotificationZNode.decode('p', b('{"version":2,"entity_path":7}'))).toThrow(/Invalid entity_path/);
    expect(() => ConfigChangeNotificationZNode.decode('p', b('{"version":1,"entity_type":"topics"}'))).toThrow(/entity_type and entity_name/);
  });

  it('integers are Java ints, ports are ports, epochs are 32-bit', async () => {
    const { PartitionStateZNode } = await import('../../../src/zk/znodes/partition-state');
    const { ControllerEpochZNode } = await import('../../../src/zk/znodes/controller-znode');
    expect(() => PartitionStateZNode.decode('p', b('{"controller_epoch":1,"leader":4294967296,"version":1,"leader_epoch":0,"isr":[1]}'))).toThrow(/"leader" is not an integer/);
    expect(() => PartitionStateZNode.decode('p', b('{"controller_epoch":1,"leader":1,"version":1,"leader_epoch":0,"isr":[1.5]}'))).toThrow(/isr is not a list of integers/);
    expect(() => BrokerInfoZNode.decode(1, 'p', b('{"version":1,"host":"h","port":70000,"timestamp":"1"}'))).toThrow(/bad port 70000/);
    expect(() => BrokerInfoZNode.decode(1, 'p', b('{"version":0,"host":"h","port":1,"timestamp":"1"}'))).toThrow(/unsupported version/);
    expect(() => BrokerInfoZNode.decode(1, 'p', b('{"version":5,"endpoints":["PLAINTEXT://h:1"],"listener_security_protocol_map":{"PLAINTEXT":1},"timestamp":"1"}'))).toThrow(/map of strings/);
    expect(() => BrokerInfoZNode.decode(1, 'p', b('{"version":5,"endpoints":[{"x":1}],"timestamp":"1"}'))).toThrow(/bad endpoint/);
    expect(ControllerEpochZNode.decode('p', b('12'))).toBe(12);
    expect(() => ControllerEpochZNode.decode('p', b('4294967296'))).toThrow(/not a 32-bit integer/);
    expect(() => ControllerEpochZNode.decode('p', b(''))).toThrow(/not a decimal number/);
  });
});
