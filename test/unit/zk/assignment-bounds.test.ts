import { assignReplicasToBrokers, InvalidPartitionsError } from '../../../src/controller/replica-assignment';
import { AdminZk, checkAssignmentFits, explicitAssignmentBytes, renderAssignment } from '../../../src/zk/admin-zk';
import { estimateAssignmentBytes, TopicAssignmentZNode, ZNODE_MAX_DATA_BYTES } from '../../../src/zk/znodes/topic-assignment';
import { FakeZk } from '../../helpers/fake-zk';

const encoded = (a: Map<number, number[]>): number => TopicAssignmentZNode.encode({ partitions: a, addingReplicas: new Map(), removingReplicas: new Map() }).length;

describe('the size of a topic assignment, known before it is built', () => {
  it('the estimate is an upper bound of the encoding, and close to it', () => {
    for (const [brokers, partitions, rf] of [
      [[0, 1, 2], 1, 1],
      [[0, 1, 2], 10, 3],
      [[1, 2, 1000], 999, 2],
      [[5, 17, 23, 100000], 12345, 4],
    ] as const) {
      const a = assignReplicasToBrokers(brokers, partitions, rf);
      const estimate = estimateAssignmentBytes(0, partitions, rf, brokers);
      expect(estimate).toBeGreaterThanOrEqual(encoded(a));
      expect(estimate).toBeLessThan(encoded(a) * 1.1 + 200);
      expect(explicitAssignmentBytes(a)).toBeGreaterThanOrEqual(encoded(a));
    }
    // Partitions added from id 10 on are counted with their own ids.
    const added = assignReplicasToBrokers([0, 1, 2], 5, 2, { startPartitionId: 98 });
    expect(estimateAssignmentBytes(98, 5, 2, [0, 1, 2])).toBeGreaterThanOrEqual(encoded(added));
  });

  it('2^31-1 partitions are refused at once, without building anything', () => {
    const started = Date.now();
    expect(() => assignReplicasToBrokers([0, 1, 2], 2147483647, 1)).toThrow(InvalidPartitionsError);
    expect(() => assignReplicasToBrokers([0, 1, 2], 2147483647, 1)).toThrow(/would take \d+ bytes, more than the 1047551 bytes a ZooKeeper znode can hold \(jute.maxbuffer\)/);
    expect(() => checkAssignmentFits('t', 2147483647, estimateAssignmentBytes(0, 2147483647, 3, [0, 1, 2]))).toThrow(/The replica assignment of topic 't' with 2147483647 partitions/);
    expect(Date.now() - started).toBeLessThan(1000);
    // Near the limit: what fits is built, what does not is refused.
    const fits = Math.floor(ZNODE_MAX_DATA_BYTES / 12);
    expect(encoded(assignReplicasToBrokers([0, 1, 2], fits, 1))).toBeLessThanOrEqual(ZNODE_MAX_DATA_BYTES);
    expect(() => assignReplicasToBrokers([0, 1, 2], fits * 2, 1)).toThrow(InvalidPartitionsError);
  });

  it("renders the assignment as Kafka's messages do, cut when long", () => {
    expect(renderAssignment(new Map([[0, [1, 1]]]))).toBe('HashMap(0 -> ArrayBuffer(1, 1))');
    expect(renderAssignment(new Map(Array.from({ length: 1000 }, (_, p) => [p, [1, 2, 3]])))).toHaveLength(1004);
  });
});

describe("AdminZkClient.validateTopicCreate's checks and messages", () => {
  const admin = (): AdminZk => {
    const zk = new FakeZk();
    zk.put('/brokers/topics/a_b', '{"version":2,"partitions":{"0":[0]}}');
    return new AdminZk(zk.client);
  };
  const ok = new Map([[0, [0]]]);

  it.each([
    ['x'.repeat(250), ok, 'INVALID_TOPIC_EXCEPTION', "Topic name is illegal, it can't be longer than 249 characters"],
    ['..', ok, 'INVALID_TOPIC_EXCEPTION', 'Topic name cannot be "." or ".."'],
    ['a/b', ok, 'INVALID_TOPIC_EXCEPTION', 'Topic name "a/b" is illegal, it contains a character other than ASCII alphanumerics'],
    ['a_b', ok, 'TOPIC_ALREADY_EXISTS', "Topic 'a_b' already exists."],
    ['a.b', ok, 'INVALID_TOPIC_EXCEPTION', "Topic 'a.b' collides with existing topics: a_b"],
    ['t', new Map([[0, [0, 1]], [1, [1]]]), 'INVALID_REPLICA_ASSIGNMENT', 'All partitions should have the same number of replicas'],
    ['t', new Map([[0, [1, 1]]]), 'INVALID_REPLICA_ASSIGNMENT', 'Duplicate replica assignment found: HashMap(0 -> ArrayBuffer(1, 1))'],
    ['t', new Map([[1, [0]], [2, [1]]]), 'INVALID_REPLICA_ASSIGNMENT', 'partitions should be a consecutive 0-based integer sequence'],
    ['t', new Map([[0, []]]), 'INVALID_REPLICA_ASSIGNMENT', 'Cannot have replication factor of 0 for partition id 0.'],
  ])('%s', async (topic, assignment, errorName, message) => {
    await expect(admin().validateTopicCreate(topic, assignment)).rejects.toMatchObject({ errorName, message: expect.stringContaining(message) });
  });

  it('accepts a valid topic', async () => {
    await expect(admin().validateTopicCreate('t', new Map([[0, [0, 1]], [1, [1, 0]]]))).resolves.toBeUndefined();
  });
});
