import { ErrorCode } from '../../../src/common/error-codes';
import { GroupCoordinator } from '../../../src/rebalance/group-coordinator';
import { groupIdError, oldConsumerConfigError } from '../../../src/rebalance/group-id';
import { InvalidConfigError, ZookeeperConsumer } from '../../../src/rebalance/zookeeper-consumer';
import { ZkOffsetStore } from '../../../src/rebalance/zk-offset-store';
import { FakeZk } from '../../helpers/fake-zk';
import { MockClock } from '../../helpers/mock-clock';

const INVALID_GROUP_ID = ErrorCode.INVALID_GROUP_ID.code;

describe('group ids are znode names', () => {
  it.each([
    ['', 'The group id must not be empty'],
    ['.', 'relative paths not allowed'],
    ['..', 'relative paths not allowed'],
    ['a/b', "contains '/'"],
    ['../other', "contains '/'"],
    ['x\u0000', 'null character'],
    ['tab\there', 'invalid character'],
    ['emoji\u{1F600}', 'invalid character'],
  ])('%j is refused', (groupId, reason) => {
    expect(groupIdError(groupId)).toContain(reason);
  });

  it.each(['g', 'my group', 'app:orders@eu', 'ümlaut', 'a.b_c-d', '...'])('%j is a group', (groupId) => {
    expect(groupIdError(groupId)).toBeUndefined();
  });

  it("the old consumer's own rules are Kafka's ConsumerConfig.validateChars", () => {
    expect(oldConsumerConfigError('group.id', 'a/b')).toBe("group.id a/b is illegal, contains a character other than ASCII alphanumerics, '.', '_' and '-'");
    expect(oldConsumerConfigError('group.id', 'my group')).toMatch(/is illegal, contains a character other than/);
    expect(oldConsumerConfigError('group.id', '..')).toMatch(/relative paths not allowed/);
    expect(oldConsumerConfigError('client.id', 'ok-1.2_x')).toBeUndefined();
    expect(() => new ZookeeperConsumer({ zkConnect: 'h:1', groupId: 'a/b', topics: ['t'] })).toThrow(InvalidConfigError);
    expect(() => new ZookeeperConsumer({ zkConnect: 'h:1', groupId: 'g', consumerId: '../x', topics: ['t'] })).toThrow(/consumer.id/);
    expect(() => new ZookeeperConsumer({ zkConnect: 'h:1', groupId: 'g', topics: ['a/b'] })).toThrow(/Topic name "a\/b" is illegal/);
    expect(() => new ZookeeperConsumer({ zkConnect: 'h:1', groupId: 'g', whitelist: '(' })).toThrow(/invalid regex/);
  });
});

describe('the coordinator answers INVALID_GROUP_ID for them in every group API, and touches no other znode', () => {
  let zk: FakeZk;
  let coordinator: GroupCoordinator;

  beforeEach(() => {
    zk = new FakeZk();
    zk.put('/consumers/a/offsets/t/0', '5');
    zk.put('/consumers/victim/offsets/t/0', '7');
    coordinator = new GroupCoordinator({
      config: { minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 60000, initialRebalanceDelayMs: 0, maxGroupSize: 100, offsetMetadataMaxBytes: 4096 },
      offsetStore: new ZkOffsetStore(zk.client),
      partitionFor: () => 0,
      clock: new MockClock(),
    });
    coordinator.startup();
    void coordinator.onElection(0);
  });

  const snapshot = (): string[] => [...zk.nodes.entries()].map(([p, n]) => `${p}=${n.data?.toString() ?? ''}`).sort();

  it.each(['a/b', 'a/offsets', '..', '', 'victim/offsets/t'])('%j', async (groupId) => {
    const before = snapshot();
    const join = await coordinator.joinGroup({ groupId, memberId: '', clientId: 'c', clientHost: '/h', rebalanceTimeoutMs: 1000, sessionTimeoutMs: 3000, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] });
    expect(join.errorCode).toBe(INVALID_GROUP_ID);
    expect((await coordinator.syncGroup(groupId, 1, 'm', [])).errorCode).toBe(INVALID_GROUP_ID);
    expect(coordinator.heartbeat(groupId, 1, 'm')).toBe(INVALID_GROUP_ID);
    expect(coordinator.leaveGroup(groupId, [{ memberId: 'm', groupInstanceId: null }]).errorCode).toBe(INVALID_GROUP_ID);
    const offsets = [{ topic: 't', partition: 0, offset: 99, metadata: null }];
    expect(await coordinator.commitOffsets(groupId, -1, '', offsets)).toEqual([INVALID_GROUP_ID]);
    expect(await coordinator.storeOffsets(groupId, offsets)).toEqual([INVALID_GROUP_ID]);
    expect((await coordinator.fetchOffsets(groupId, [{ topic: 't', partition: 0 }])).errorCode).toBe(INVALID_GROUP_ID);
    expect((await coordinator.fetchOffsets(groupId, [{ topic: 't', partition: 0 }], false)).errorCode).toBe(INVALID_GROUP_ID);
    expect((await coordinator.fetchOffsets(groupId, null)).errorCode).toBe(INVALID_GROUP_ID);
    expect((await coordinator.describeGroup(groupId)).errorCode).toBe(INVALID_GROUP_ID);
    expect(await coordinator.deleteGroups([groupId])).toEqual([{ groupId, errorCode: INVALID_GROUP_ID }]);
    expect(snapshot()).toEqual(before);
  });

  it('commits to illegal topic names get UNKNOWN_TOPIC_OR_PARTITION and write nothing; fetches read nothing', async () => {
    const before = snapshot();
    const errors = await coordinator.storeOffsets('g', [
      { topic: '../victim', partition: 0, offset: 1, metadata: null },
      { topic: 'a/b', partition: 0, offset: 1, metadata: null },
      { topic: 'x'.repeat(250), partition: 0, offset: 1, metadata: null },
    ]);
    expect(errors).toEqual([3, 3, 3]);
    expect(snapshot()).toEqual(before);
    const fetched = await coordinator.fetchOffsets('a', [{ topic: '..', partition: 0 }, { topic: 't', partition: 0 }], false);
    expect(fetched.offsets.map((o) => o.offset)).toEqual([-1, 5]);
  });

  it('a legal group still commits and fetches', async () => {
    expect(await coordinator.storeOffsets('my group', [{ topic: 't', partition: 0, offset: 3, metadata: null }])).toEqual([0]);
    expect(zk.text('/consumers/my group/offsets/t/0')).toBe('3');
  });
});
