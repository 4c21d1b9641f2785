import { TopicCommand, TopicCommandOptions } from '../../../src/tools/topic-command';
import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';
import { FakeZk } from '../../helpers/fake-zk';

/** kafka-topics --zookeeper against a fake ZooKeeper with brokers 0, 1, 2 and topic `existing` (2 partitions, RF 2). */
function setup(): { zk: FakeZk; run: (o: Partial<TopicCommandOptions>) => Promise<string[]> } {
  const zk = new FakeZk();
  for (const id of [0, 1, 2]) {
    zk.put(`/brokers/ids/${id}`, BrokerInfoZNode.encode({ id, endpoints: [{ listenerName: 'PLAINTEXT', host: 'h', port: 9092 }], listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' }, jmxPort: -1, timestamp: 1, rack: null, version: 5 }));
  }
  zk.put('/brokers/topics/existing', '{"version":2,"partitions":{"0":[0,1],"1":[1,2]},"adding_replicas":{},"removing_replicas":{}}');
  zk.put('/brokers/topics/a_b', '{"version":2,"partitions":{"0":[0]},"adding_replicas":{},"removing_replicas":{}}');
  return {
    zk,
    run: async (o) => {
      const out: string[] = [];
      await new TopicCommand(zk.client, (l) => out.push(l)).run({ zookeeper: 'x', config: [], deleteConfig: [], ...o });
      return out;
    },
  };
}

describe("kafka-topics --create/--alter bounds, with Kafka's exceptions", () => {
  it.each([
    [{ partitions: '2147483647', replicationFactor: '1' }, 'org.apache.kafka.common.errors.InvalidPartitionsException', /would take \d+ bytes, more than the 1047551 bytes a ZooKeeper znode can hold/],
    [{ partitions: '2147483648', replicationFactor: '1' }, undefined, /Invalid value 2147483648 for --partitions: not an integer/],
    [{ partitions: '0', replicationFactor: '1' }, 'org.apache.kafka.common.errors.InvalidPartitionsException', /^Number of partitions must be larger than 0\.$/],
    [{ partitions: '1', replicationFactor: '0' }, 'org.apache.kafka.common.errors.InvalidReplicationFactorException', /^Replication factor must be larger than 0\.$/],
    [{ partitions: '1', replicationFactor: '4' }, 'org.apache.kafka.common.errors.InvalidReplicationFactorException', /^Replication factor: 4 larger than available brokers: 3\.$/],
    [{ partitions: '1', replicationFactor: '40000' }, 'org.apache.kafka.common.errors.InvalidReplicationFactorException', /^Replication factor: 40000 larger than available brokers: 3\.$/],
    [{ replicaAssignment: '1:1' }, 'kafka.common.AdminCommandFailedException', /^Partition replica lists may not contain duplicate entries: 1$/],
    [{ replicaAssignment: '1:2,1' }, 'kafka.common.AdminOperationException', /^Partition 1 has different replication factor: 1$/],
    [{ replicaAssignment: Array.from({ length: 150000 }, () => '0:1').join(',') }, 'org.apache.kafka.common.errors.InvalidPartitionsException', /ZooKeeper znode/],
  ])('%j', async (o, exceptionClass, message) => {
    const { zk, run } = setup();
    const before = [...zk.nodes.keys()].sort();
    const started = Date.now();
    const error = await run({ create: true, topic: 't', ...o }).catch((e: unknown) => e as Error & { exceptionClass?: string });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(message);
    if (exceptionClass !== undefined) expect((error as { exceptionClass?: string }).exceptionClass).toBe(exceptionClass);
    expect([...zk.nodes.keys()].sort()).toEqual(before);
  });

  it.each([
    ['x'.repeat(250), /can't be longer than 249 characters/],
    ['a.b', /^Topic 'a\.b' collides with existing topics: a_b$/],
    ['..', /^Topic name cannot be "\." or "\.\."$/],
  ])('name %s', async (name, message) => {
    const { run } = setup();
    await expect(run({ create: true, topic: name, partitions: '1', replicationFactor: '1' })).rejects.toMatchObject({ exceptionClass: 'org.apache.kafka.common.errors.InvalidTopicException', message: expect.stringMatching(message) });
  });

  it.each([
    [{ partitions: '2147483647' }, 'org.apache.kafka.common.errors.InvalidPartitionsException', /ZooKeeper znode/],
    [{ partitions: '3', replicaAssignment: '0:1,1:2,7:1' }, 'org.apache.kafka.common.errors.BrokerNotAvailableException', /^Some brokers specified for partition id 2 are not available\. Specified brokers: 7, 1, available brokers: 0, 1, 2\.$/],
    [{ partitions: '3', replicaAssignment: '0:1,1:2,1:1' }, 'kafka.common.AdminCommandFailedException', /duplicate entries: 1/],
    [{ partitions: '4', replicaAssignment: '0:1,1:2,2,0' }, 'kafka.common.AdminOperationException', /Partition 2 has different replication factor/],
  ])('--alter %j', async (o, exceptionClass, message) => {
    const { zk, run } = setup();
    const before = zk.text('/brokers/topics/existing');
    await expect(run({ alter: true, topic: 'existing', ...o })).rejects.toMatchObject({ exceptionClass, message: expect.stringMatching(message) });
    expect(zk.text('/brokers/topics/existing')).toBe(before);
  });

  it('valid creations and alterations still work', async () => {
    const { zk, run } = setup();
    expect(await run({ create: true, topic: 'ok', partitions: '3', replicationFactor: '3' })).toContain('Created topic ok.');
    expect(await run({ alter: true, topic: 'existing', partitions: '3', replicaAssignment: '0:1,1:2,2:0' })).toContain('Adding partitions succeeded!');
    expect(JSON.parse(zk.text('/brokers/topics/existing') ?? '').partitions['2']).toEqual([2, 0]);
  });
});
