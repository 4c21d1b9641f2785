import { ErrorCode } from '../../../src/common/error-codes';
import { GroupCoordinator, JoinGroupParams } from '../../../src/rebalance/group-coordinator';
import { JoinResult } from '../../../src/rebalance/member-metadata';
import { TopicPartitionOffset, ZkOffsetStore } from '../../../src/rebalance/zk-offset-store';
import { MockClock } from '../../helpers/mock-clock';

/** An in-memory stand-in for the ZooKeeper offset store (what these tests need of it). */
class MemoryOffsetStore {
  readonly offsets = new Map<string, number>();
  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<(Error | null)[]> {
    for (const o of offsets) this.offsets.set(`${group}/${o.topic}/${o.partition}`, o.offset);
    return offsets.map(() => null);
  }
  async allGroups(): Promise<string[]> {
    return [...new Set([...this.offsets.keys()].map((k) => k.split('/')[0]!))];
  }
  async hasOffsets(group: string): Promise<boolean> {
    return [...this.offsets.keys()].some((k) => k.startsWith(`${group}/`));
  }
}

const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;

/** ListGroups v4's states filter (KIP-518) and DescribeGroups' member fields, on the coordinator. */
describe('GroupCoordinator: group states and members as the admin APIs see them', () => {
  let clock: MockClock;
  let store: MemoryOffsetStore;
  let coordinator: GroupCoordinator;

  beforeEach(() => {
    clock = new MockClock();
    store = new MemoryOffsetStore();
    coordinator = new GroupCoordinator({
      config: { minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 60000, initialRebalanceDelayMs: 100, maxGroupSize: 100, offsetMetadataMaxBytes: 10 },
      offsetStore: store as unknown as ZkOffsetStore,
      partitionFor: () => 0,
      clock,
    });
    coordinator.startup();
    void coordinator.onElection(0);
  });
  afterEach(() => coordinator.shutdown());

  const rawJoin = (groupId: string, extra: Partial<JoinGroupParams> = {}): Promise<JoinResult> =>
    coordinator.joinGroup({
      groupId,
      memberId: '',
      groupInstanceId: null,
      requireKnownMemberId: false,
      clientId: 'c',
      clientHost: '/127.0.0.1',
      rebalanceTimeoutMs: 10000,
      sessionTimeoutMs: 3000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from('m') }],
      ...extra,
    });

  /** A join that also lets a new group's initial rebalance delay pass. */
  const join = (groupId: string, extra: Partial<JoinGroupParams> = {}): Promise<JoinResult> => {
    const r = rawJoin(groupId, extra);
    if (coordinator.group(groupId)?.inInitialDelay === true) clock.advance(100);
    return r;
  };

  it('lists every group without a filter, and only the groups in the given states with one (names exact)', async () => {
    const stable = await join('stable');
    await coordinator.syncGroup('stable', stable.generationId, stable.memberId, [{ memberId: stable.memberId, assignment: Buffer.from('a') }]);
    await join('completing');
    await store.commit('offsets-only', [{ topic: 't', partition: 0, offset: 5 }]);
    const states = async (filter: string[]): Promise<string[]> => (await coordinator.listGroups(filter)).map((g) => `${g.groupId}:${g.state}`).sort();
    expect(await states([])).toEqual(['completing:CompletingRebalance', 'offsets-only:Empty', 'stable:Stable']);
    expect(await states(['Stable'])).toEqual(['stable:Stable']);
    expect(await states(['Empty', 'CompletingRebalance'])).toEqual(['completing:CompletingRebalance', 'offsets-only:Empty']);
    expect(await states(['stable'])).toEqual([]);
    expect(await states(['Dead'])).toEqual([]);
  });

  it('describes members with their group.instance.id (null for dynamic members)', async () => {
    const r = await join('g', { groupInstanceId: 'instance-1' });
    expect(r.errorCode).toBe(0);
    const d = await coordinator.describeGroup('g');
    expect(d.members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([[r.memberId, 'instance-1']]);
    const dyn = await join('h');
    expect((await coordinator.describeGroup('h')).members.map((m) => [m.memberId, m.groupInstanceId])).toEqual([[dyn.memberId, null]]);
  });

  /** Two static members in one first generation (the initial delay gathers both). */
  async function joinTwo(): Promise<[JoinResult, JoinResult]> {
    const both = Promise.all([rawJoin('g', { groupInstanceId: 'a' }), rawJoin('g', { groupInstanceId: 'b' })]);
    // The second arrival extends the delay once (Kafka's InitialDelayedJoin).
    clock.advance(100);
    clock.advance(100);
    return both;
  }

  const sync = (groupId: string, r: JoinResult, assignments: { memberId: string; assignment: Buffer }[] = [], instanceId: string | null = null) =>
    coordinator.syncGroup(groupId, r.generationId, r.memberId, assignments, instanceId);

  it('answers a dynamic member\'s first JoinGroup v4+ with MEMBER_ID_REQUIRED and its id, then admits that id', async () => {
    const first = await join('g', { requireKnownMemberId: true });
    expect(first).toMatchObject({ errorCode: code('MEMBER_ID_REQUIRED'), generationId: -1, protocolType: null });
    expect(first.memberId).toMatch(/^c-[0-9a-f-]{36}$/);
    expect(coordinator.group('g')?.members.size).toBe(0);
    const second = await join('g', { memberId: first.memberId, requireKnownMemberId: true });
    expect(second).toMatchObject({ errorCode: 0, generationId: 1, memberId: first.memberId, leaderId: first.memberId, protocolType: 'consumer' });
    // An id the coordinator never gave out is still unknown; a pending id is forgotten after the session timeout.
    expect((await join('g', { memberId: 'c-made-up', requireKnownMemberId: true })).errorCode).toBe(code('UNKNOWN_MEMBER_ID'));
    const third = await join('g', { requireKnownMemberId: true });
    clock.advance(3001);
    expect((await join('g', { memberId: third.memberId, requireKnownMemberId: true })).errorCode).toBe(code('UNKNOWN_MEMBER_ID'));
  });

  it('gives a restarted static member its old assignment without a rebalance, and fences the old member id', async () => {
    // Two static members, one generation.
    const [a, b] = await joinTwo();
    expect(a.generationId).toBe(1);
    const leader = a.leaderId === a.memberId ? a : b;
    const follower = leader === a ? b : a;
    const followerInstance = follower === a ? 'a' : 'b';
    const assignments = [
      { memberId: leader.memberId, assignment: Buffer.from('L') },
      { memberId: follower.memberId, assignment: Buffer.from('F') },
    ];
    const followerSync = sync('g', follower, [], followerInstance);
    await sync('g', leader, assignments, followerInstance === 'a' ? 'b' : 'a');
    expect((await followerSync).assignment).toEqual(Buffer.from('F'));
    expect(coordinator.group('g')?.state).toBe('Stable');

    // The follower restarts (no LeaveGroup: static members do not send one) and rejoins with its instance id.
    const rejoined = await join('g', { groupInstanceId: followerInstance });
    expect(rejoined).toMatchObject({ errorCode: 0, generationId: 1, leaderId: leader.memberId, members: [] });
    expect(rejoined.memberId).not.toBe(follower.memberId);
    expect(coordinator.group('g')?.state).toBe('Stable');
    const again = await sync('g', rejoined, [], followerInstance);
    expect(again).toMatchObject({ errorCode: 0, assignment: Buffer.from('F'), protocolType: 'consumer', protocolName: 'range' });
    // The leader never saw a rebalance.
    expect(coordinator.heartbeat('g', 1, leader.memberId)).toBe(0);

    // The old process (same instance id, old member id) is fenced everywhere.
    expect(coordinator.heartbeat('g', 1, follower.memberId, followerInstance)).toBe(code('FENCED_INSTANCE_ID'));
    expect((await sync('g', follower, [], followerInstance)).errorCode).toBe(code('FENCED_INSTANCE_ID'));
    expect(await coordinator.commitOffsets('g', 1, follower.memberId, [{ topic: 't', partition: 0, offset: 1, metadata: null }], followerInstance)).toEqual([code('FENCED_INSTANCE_ID')]);
    expect((await join('g', { memberId: follower.memberId, groupInstanceId: followerInstance })).errorCode).toBe(code('FENCED_INSTANCE_ID'));
    expect(coordinator.leaveGroup('g', [{ memberId: follower.memberId, groupInstanceId: followerInstance }]).members[0]?.errorCode).toBe(code('FENCED_INSTANCE_ID'));
    // An instance id the group does not know: UNKNOWN_MEMBER_ID.
    expect(coordinator.heartbeat('g', 1, rejoined.memberId, 'nobody')).toBe(code('UNKNOWN_MEMBER_ID'));
    // The new member id is in good standing, and its commits are stored.
    expect(coordinator.heartbeat('g', 1, rejoined.memberId, followerInstance)).toBe(0);
    expect(await coordinator.commitOffsets('g', 1, rejoined.memberId, [{ topic: 't', partition: 0, offset: 7, metadata: null }], followerInstance)).toEqual([0]);
    expect((await coordinator.describeGroup('g')).members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b']);
  });

  it('fences the parked SyncGroup of a static member replaced during CompletingRebalance, and rebalances', async () => {
    const [a, b] = await joinTwo();
    const follower = a.leaderId === a.memberId ? b : a;
    const instance = follower === a ? 'a' : 'b';
    const parked = sync('g', follower, [], instance);
    void join('g', { groupInstanceId: instance });
    expect((await parked).errorCode).toBe(code('FENCED_INSTANCE_ID'));
    expect(coordinator.group('g')?.state).toBe('PreparingRebalance');
  });

  it('leaves a batch by member id or by instance id alone, each member with its own error', async () => {
    const [a, b] = await joinTwo();
    const r = coordinator.leaveGroup('g', [
      { memberId: '', groupInstanceId: 'a' },
      { memberId: b.memberId, groupInstanceId: 'b' },
      { memberId: '', groupInstanceId: 'gone' },
      { memberId: 'nobody', groupInstanceId: null },
    ]);
    expect(r.members).toEqual([
      { memberId: '', groupInstanceId: 'a', errorCode: 0 },
      { memberId: b.memberId, groupInstanceId: 'b', errorCode: 0 },
      { memberId: '', groupInstanceId: 'gone', errorCode: code('UNKNOWN_MEMBER_ID') },
      { memberId: 'nobody', groupInstanceId: null, errorCode: code('UNKNOWN_MEMBER_ID') },
    ]);
    expect(coordinator.group('g')?.members.size).toBe(0);
    expect(a.memberId).not.toBe(b.memberId);
  });

  it('refuses a SyncGroup v5 whose protocol type or name is not the group\'s', async () => {
    const r = await join('g');
    const bad = await coordinator.syncGroup('g', r.generationId, r.memberId, [], null, { protocolType: 'connect', protocolName: null });
    expect(bad.errorCode).toBe(code('INCONSISTENT_GROUP_PROTOCOL'));
    expect((await coordinator.syncGroup('g', r.generationId, r.memberId, [], null, { protocolType: 'consumer', protocolName: 'roundrobin' })).errorCode).toBe(code('INCONSISTENT_GROUP_PROTOCOL'));
    expect((await coordinator.syncGroup('g', r.generationId, r.memberId, [], null, { protocolType: 'consumer', protocolName: 'range' })).errorCode).toBe(0);
  });
});
