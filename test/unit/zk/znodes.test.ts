import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';
import { TopicAssignmentZNode } from '../../../src/zk/znodes/topic-assignment';
import { PartitionStateZNode } from '../../../src/zk/znodes/partition-state';
import { ControllerEpochZNode, ControllerZNode } from '../../../src/zk/znodes/controller-znode';
import { LogDirEventZNode, PartitionListZNode, ReassignPartitionsZNode } from '../../../src/zk/znodes/admin-znodes';
import { ConfigChangeNotificationZNode, ConfigEntityZNode } from '../../../src/zk/znodes/config-znodes';
import { ClusterIdZNode, FeatureZNode, ProducerIdBlockZNode } from '../../../src/zk/znodes/cluster-znodes';
import { ConsumerOffsetZNode, ConsumerRegistrationZNode } from '../../../src/zk/znodes/consumer-znodes';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
/** Key order is not significant to Kafka: compare as parsed JSON. */
const json = (buf: Buffer): unknown => JSON.parse(buf.toString('utf8'));

describe('znode codecs against the JSON Kafka 2.x writes', () => {
  it('/brokers/ids/<id> v5, and older versions read', () => {
    const golden =
      '{"features":{},"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka1:9092"],"jmx_port":-1,"port":9092,"host":"kafka1","version":5,"timestamp":"1647406227247"}';
    const info = BrokerInfoZNode.decode(1, '/brokers/ids/1', b(golden));
    expect(info).toEqual({
      id: 1,
      endpoints: [{ listenerName: 'PLAINTEXT', host: 'kafka1', port: 9092 }],
      listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' },
      jmxPort: -1,
      timestamp: 1647406227247,
      rack: null,
      version: 5,
    });
    expect(json(BrokerInfoZNode.encode(info))).toEqual(JSON.parse(golden));
    expect(BrokerInfoZNode.encode(info).toString()).not.toMatch(/\s/);
    const v1 = BrokerInfoZNode.decode(2, 'p', b('{"jmx_port":-1,"timestamp":"1428512949385","host":"kafka1","version":1,"port":9092}'));
    expect(v1.endpoints).toEqual([{ listenerName: 'PLAINTEXT', host: 'kafka1', port: 9092 }]);
    const v4 = BrokerInfoZNode.decode(
      3,
      'p',
      b('{"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"endpoints":["PLAINTEXT://kafka1:9092"],"jmx_port":-1,"host":"kafka1","timestamp":"1614570663881","port":9092,"version":4}'),
    );
    expect(v4.timestamp).toBe(1614570663881);
    const withRack = { ...info, rack: 'r1' };
    expect(json(BrokerInfoZNode.encode(withRack))).toMatchObject({ rack: 'r1' });
  });

  it('/brokers/topics/<topic> assignment with string partition keys', () => {
    const golden = '{"version":2,"partitions":{"0":[0]},"adding_replicas":{},"removing_replicas":{}}';
    const a = TopicAssignmentZNode.decode('/brokers/topics/t', b(golden));
    expect(a.partitions).toEqual(new Map([[0, [0]]]));
    expect(a.topicId).toBeUndefined();
    // Kafka 2.8's TopicZNode.encode writes version 3 always, topic_id only when the topic has one.
    expect(json(TopicAssignmentZNode.encode(a))).toEqual({ ...JSON.parse(golden), version: 3 });
    const v1 = TopicAssignmentZNode.decode('p', b('{"version":1,"partitions":{"2":[3,2],"1":[2,1],"0":[1,3]}}'));
    expect(v1.partitions.get(2)).toEqual([3, 2]);
    const v3 = TopicAssignmentZNode.decode('p', b('{"partitions":{"0":[2,3,1]},"topic_id":"cMr3GpVESX2L3byPGf93lQ","adding_replicas":{},"removing_replicas":{},"version":3}'));
    expect(v3.partitions.get(0)).toEqual([2, 3, 1]);
    expect(v3.topicId).toBe('cMr3GpVESX2L3byPGf93lQ');
    expect(json(TopicAssignmentZNode.encode(v3))).toEqual({ version: 3, partitions: { '0': [2, 3, 1] }, topic_id: 'cMr3GpVESX2L3byPGf93lQ', adding_replicas: {}, removing_replicas: {} });
    // Rewrites (added partitions, reassignment) keep the id.
    expect(TopicAssignmentZNode.decode('p', TopicAssignmentZNode.encode({ ...v3, partitions: new Map([[0, [1]], [1, [2]]]) })).topicId).toBe('cMr3GpVESX2L3byPGf93lQ');
    expect(() => TopicAssignmentZNode.decode('p', b('{"version":3,"partitions":{},"topic_id":"short"}'))).toThrow(/topic_id/);
    expect(() => TopicAssignmentZNode.decode('p', b('{"version":1,"partitions":{"x":[1]}}'))).toThrow(/partition id "x"/);
  });

  it('partition state', () => {
    const golden = '{"controller_epoch":1,"leader":2,"version":1,"leader_epoch":0,"isr":[2,3,1]}';
    const s = PartitionStateZNode.decode('p', b(golden));
    expect(s).toEqual({ leader: 2, leaderEpoch: 0, isr: [2, 3, 1], controllerEpoch: 1 });
    expect(PartitionStateZNode.encode(s).toString()).toBe(golden);
  });

  it('/controller and /controller_epoch', () => {
    const golden = '{"version":1,"brokerid":0,"timestamp":"1535943857541"}';
    expect(ControllerZNode.encode(0, 1535943857541).toString()).toBe(golden);
    expect(ControllerZNode.decode('p', b(golden))).toEqual({ brokerId: 0, timestamp: 1535943857541 });
    expect(ControllerEpochZNode.encode(7).toString()).toBe('7');
    expect(ControllerEpochZNode.decode('p', b('7'))).toBe(7);
    expect(() => ControllerEpochZNode.decode('/controller_epoch', b('x'))).toThrow('Invalid data at /controller_epoch');
  });

  it('admin nodes and notifications', () => {
    const reassign = '{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[3,1,2]},{"topic":"orders","partition":1,"replicas":[1,2,3]}]}';
    const r = ReassignPartitionsZNode.decode('p', b(reassign));
    expect(r[0]).toEqual({ topic: 'orders', partition: 0, replicas: [3, 1, 2] });
    expect(ReassignPartitionsZNode.encode(r).toString()).toBe(reassign);
    const withDirs = ReassignPartitionsZNode.decode('p', b('{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[1],"log_dirs":["any"]}]}'));
    expect(withDirs[0]?.logDirs).toEqual(['any']);
    const list = '{"version":1,"partitions":[{"topic":"orders","partition":0},{"topic":"payments","partition":3}]}';
    expect(PartitionListZNode.encode(PartitionListZNode.decode('p', b(list))).toString()).toBe(list);
    expect(LogDirEventZNode.encode(2).toString()).toBe('{"version":1,"broker":2,"event":1}');
  });

  it('config entities and change notifications', () => {
    const entity = '{"version":1,"config":{"retention.ms":"86400000","cleanup.policy":"compact"}}';
    const m = ConfigEntityZNode.decode('p', b(entity));
    expect(m.get('retention.ms')).toBe('86400000');
    expect(ConfigEntityZNode.encode(m).toString()).toBe(entity);
    expect(ConfigEntityZNode.encode(new Map()).toString()).toBe('{"version":1,"config":{}}');
    expect(ConfigChangeNotificationZNode.encode('topics', 'orders').toString()).toBe('{"version":2,"entity_path":"topics/orders"}');
    expect(ConfigChangeNotificationZNode.decode('p', b('{"version":1,"entity_type":"topics","entity_name":"orders"}'))).toEqual({
      entityType: 'topics',
      entityName: 'orders',
    });
  });

  it('cluster id, producer id block and feature', () => {
    expect(ClusterIdZNode.encode('IOejp_IKSbWbySJc0sRrKw').toString()).toBe('{"version":"1","id":"IOejp_IKSbWbySJc0sRrKw"}');
    expect(ClusterIdZNode.decode('p', b('{"version":"1","id":"IOejp_IKSbWbySJc0sRrKw"}'))).toBe('IOejp_IKSbWbySJc0sRrKw');
    expect(ClusterIdZNode.generate()).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(ProducerIdBlockZNode.encode(0, 0, 999).toString()).toBe('{"version":1,"broker":0,"block_start":"0","block_end":"999"}');
    expect(FeatureZNode.encode(true).toString()).toBe('{"features":{},"version":1,"status":1}');
  });

  it('old consumer registration and offsets', () => {
    const golden = '{"version":1,"subscription":{"orders":2,"payments":1},"pattern":"static","timestamp":"1596870156399"}';
    const r = ConsumerRegistrationZNode.decode('p', b(golden));
    expect(r.subscription.get('orders')).toBe(2);
    expect(ConsumerRegistrationZNode.encode(r).toString()).toBe(golden);
    expect(ConsumerOffsetZNode.encode(1413950858).toString()).toBe('1413950858');
    expect(ConsumerOffsetZNode.decode('p', b('42'))).toBe(42);
    // Any Java long: a client may commit Long.MAX_VALUE or -1; it reads back (rounded beyond 2^53) and is written
    // as Java prints it, never as a number Long.parseLong refuses.
    expect(ConsumerOffsetZNode.encode(9223372036854775807).toString()).toBe('9223372036854775807');
    expect(ConsumerOffsetZNode.encode(-9223372036854775808).toString()).toBe('-9223372036854775808');
    expect(ConsumerOffsetZNode.decode('p', b('9223372036854775807'))).toBe(9223372036854775807);
    expect(ConsumerOffsetZNode.decode('p', b('-1'))).toBe(-1);
    expect(() => ConsumerOffsetZNode.decode('p', b('9223372036854775808'))).toThrow('not a decimal number');
  });

  it('refuses data that is not what Kafka writes, naming the node', () => {
    expect(() => PartitionStateZNode.decode('/brokers/topics/t/partitions/0/state', b('{"leader":"x"}'))).toThrow(
      'Invalid data at /brokers/topics/t/partitions/0/state: field "leader" is not an integer',
    );
    expect(() => PartitionStateZNode.decode('p', b('not json'))).toThrow(/not JSON/);
    expect(() => PartitionStateZNode.decode('p', null)).toThrow(/no data/);
  });
});
