import { ErrorCode } from '../../../src/common/error-codes';
import { coordinatorPartitionFor, javaStringHashCode } from '../../../src/rebalance/coordinator-placement';
import { GroupCoordinator, JoinGroupParams } from '../../../src/rebalance/group-coordinator';
import { JoinResult } from '../../../src/rebalance/member-metadata';
import { TopicPartitionOffset, ZkOffsetStore } from '../../../src/rebalance/zk-offset-store';
import { MockClock } from '../../helpers/mock-clock';

/** An in-memory stand-in for the ZooKeeper offset store. */
class MemoryOffsetStore {
  readonly offsets = new Map<string, number>();
  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<(Error | null)[]> {
    for (const o of offsets) this.offsets.set(`${group}/${o.topic}/${o.partition}`, o.offset);
    return offsets.map(() => null);
  }
  async fetchMany(group: string, tps: readonly { topic: string; partition: number }[]): Promise<number[]> {
    return tps.map((tp) => this.offsets.get(`${group}/${tp.topic}/${tp.partition}`) ?? -1);
  }
  async allGroups(): Promise<string[]> {
    return [...new Set([...this.offsets.keys()].map((k) => k.split('/')[0]!))];
  }
  async hasOffsets(group: string): Promise<boolean> {
    return [...this.offsets.keys()].some((k) => k.startsWith(`${group}/`));
  }
  async registeredConsumers(): Promise<string[]> {
    return [];
  }
  async groupExists(group: string): Promise<boolean> {
    return this.hasOffsets(group);
  }
  async deleteGroup(group: string): Promise<void> {
    for (const k of [...this.offsets.keys()]) if (k.startsWith(`${group}/`)) this.offsets.delete(k);
  }
}

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;

describe('GroupCoordinator', () => {
  let clock: MockClock;
  let store: MemoryOffsetStore;
  let coordinator: GroupCoordinator;

  function create(initialRebalanceDelayMs = 0): void {
    clock = new MockClock();
    store = new MemoryOffsetStore();
    coordinator = new GroupCoordinator({
      config: { minSessionTimeoutMs: 1000, maxSessionTimeoutMs: 60000, initialRebalanceDelayMs, maxGroupSize: 100, offsetMetadataMaxBytes: 10 },
      offsetStore: store as unknown as ZkOffsetStore,
      partitionFor: (groupId) => (groupId === 'elsewhere' ? 1 : 0),
      clock,
    });
    coordinator.startup();
    // The broker leads __consumer_offsets-0 (a LeaderAndIsr said so), not -1.
    void coordinator.onElection(0);
  }

  const join = (memberId = '', protocols = [{ name: 'range', metadata: Buffer.from('m') }]): Promise<JoinResult> =>
    coordinator.joinGroup({ groupId: 'g', memberId, clientId: 'c', clientHost: '/127.0.0.1', rebalanceTimeoutMs: 10000, sessionTimeoutMs: 3000, protocolType: 'consumer', protocols } as JoinGroupParams);

  beforeEach(() => create());
  afterEach(() => coordinator.shutdown());

  it('places groups like Kafka: abs(String.hashCode) % partitions', () => {
    expect(javaStringHashCode('abc')).toBe(96354);
    expect(coordinatorPartitionFor('abc', 50)).toBe(96354 % 50);
    expect(javaStringHashCode('polygenelubricants')).toBe(-2147483648);
    expect(coordinatorPartitionFor('polygenelubricants', 50)).toBe(0);
  });

  it('runs a first generation: the single member is leader and sees itself', async () => {
    const r = await join();
    expect(r).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range', leaderId: r.memberId });
    expect(r.memberId).toMatch(/^c-[0-9a-f-]{36}$/);
    expect(r.members).toEqual([{ memberId: r.memberId, groupInstanceId: null, metadata: Buffer.from('m') }]);
    expect(coordinator.group('g')?.state).toBe('CompletingRebalance');
    const sync = await coordinator.syncGroup('g', 1, r.memberId, [{ memberId: r.memberId, assignment: Buffer.from('a') }]);
    expect(sync).toEqual({ errorCode: 0, assignment: Buffer.from('a'), protocolType: 'consumer', protocolName: 'range' });
    expect(coordinator.group('g')?.state).toBe('Stable');
    expect(coordinator.heartbeat('g', 1, r.memberId)).toBe(0);
    expect(coordinator.heartbeat('g', 0, r.memberId)).toBe(code('ILLEGAL_GENERATION'));
    expect(coordinator.heartbeat('g', 1, 'nobody')).toBe(code('UNKNOWN_MEMBER_ID'));
  });

  it('holds the first rebalance of a new group for group.initial.rebalance.delay.ms, extending while members arrive', async () => {
    coordinator.shutdown();
    create(3000);
    let first: JoinResult | undefined;
    void join().then((r) => (first = r));
    clock.advance(2000);
    let second: JoinResult | undefined;
    void join().then((r) => (second = r));
    clock.advance(1000);
    await flush();
    expect(first).toBeUndefined();
    clock.advance(3000);
    await flush();
    expect(first?.generationId).toBe(1);
    expect(second?.generationId).toBe(1);
    expect(first!.members.length + second!.members.length).toBe(2);
  });

  it('tells members to rejoin through heartbeats, parks followers\' SyncGroup until the leader\'s arrives', async () => {
    const a = await join();
    await coordinator.syncGroup('g', 1, a.memberId, []);
    const bJoin = join();
    expect(coordinator.group('g')?.state).toBe('PreparingRebalance');
    expect(coordinator.heartbeat('g', 1, a.memberId)).toBe(code('REBALANCE_IN_PROGRESS'));
    const aJoin = join(a.memberId);
    const [a2, b2] = await Promise.all([aJoin, bJoin]);
    expect(a2.generationId).toBe(2);
    expect(a2.leaderId).toBe(a.memberId);
    expect(a2.members).toHaveLength(2);
    expect(b2.members).toHaveLength(0);
    let bSync: { errorCode: number; assignment: Buffer } | undefined;
    void coordinator.syncGroup('g', 2, b2.memberId, []).then((r) => (bSync = r));
    await flush();
    expect(bSync).toBeUndefined();
    await coordinator.syncGroup('g', 2, a.memberId, [{ memberId: b2.memberId, assignment: Buffer.from('b') }]);
    await flush();
    expect(bSync).toEqual({ errorCode: 0, assignment: Buffer.from('b'), protocolType: 'consumer', protocolName: 'range' });
    expect(await coordinator.syncGroup('g', 1, a.memberId, [])).toMatchObject({ errorCode: code('ILLEGAL_GENERATION') });
  });

  it('drops a member whose session expires and rebalances the rest', async () => {
    const a = await join();
    await coordinator.syncGroup('g', 1, a.memberId, []);
    const bJoin = join();
    const a2 = await join(a.memberId);
    const b2 = await bJoin;
    await coordinator.syncGroup('g', 2, a2.memberId, []);
    await coordinator.syncGroup('g', 2, b2.memberId, []);
    // Only b heartbeats: a's session (3000 ms) runs out.
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      coordinator.heartbeat('g', 2, b2.memberId);
    }
    expect(coordinator.group('g')?.has(a.memberId)).toBe(false);
    expect(coordinator.heartbeat('g', 2, b2.memberId)).toBe(code('REBALANCE_IN_PROGRESS'));
    const b3 = await join(b2.memberId);
    expect(b3).toMatchObject({ generationId: 3, leaderId: b2.memberId });
  });

  it('moves to Empty when the last member leaves, then accepts simple commits', async () => {
    const a = await join();
    await coordinator.syncGroup('g', 1, a.memberId, []);
    expect(await coordinator.commitOffsets('g', 1, a.memberId, [{ topic: 't', partition: 0, offset: 5, metadata: '' }])).toEqual([0]);
    expect(await coordinator.commitOffsets('g', -1, '', [{ topic: 't', partition: 0, offset: 6, metadata: '' }])).toEqual([code('UNKNOWN_MEMBER_ID')]);
    expect(coordinator.leaveGroup('g', [{ memberId: a.memberId, groupInstanceId: null }]).errorCode).toBe(0);
    expect(coordinator.group('g')?.state).toBe('Empty');
    expect(await coordinator.commitOffsets('g', -1, '', [{ topic: 't', partition: 0, offset: 6, metadata: 'x'.repeat(11) }])).toEqual([code('OFFSET_METADATA_TOO_LARGE')]);
    expect(await coordinator.commitOffsets('g', -1, '', [{ topic: 't', partition: 0, offset: 6, metadata: '' }])).toEqual([0]);
    expect(store.offsets.get('g/t/0')).toBe(6);
    expect(await coordinator.fetchOffsets('g', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }])).toEqual({
      errorCode: 0,
      offsets: [
        { topic: 't', partition: 0, offset: 6, leaderEpoch: -1, metadata: '' },
        { topic: 't', partition: 1, offset: -1, leaderEpoch: -1, metadata: '' },
      ],
    });
    expect((await coordinator.describeGroup('g')).state).toBe('Empty');
    expect(await coordinator.deleteGroups(['g', 'none'])).toEqual([
      { groupId: 'g', errorCode: 0 },
      { groupId: 'none', errorCode: code('GROUP_ID_NOT_FOUND') },
    ]);
  });

  it('refuses a commit from a stale generation, an unknown group generation and during CompletingRebalance', async () => {
    expect(await coordinator.commitOffsets('other', 3, 'm', [{ topic: 't', partition: 0, offset: 1, metadata: null }])).toEqual([code('ILLEGAL_GENERATION')]);
    const a = await join();
    expect(await coordinator.commitOffsets('g', 1, a.memberId, [{ topic: 't', partition: 0, offset: 1, metadata: null }])).toEqual([code('REBALANCE_IN_PROGRESS')]);
  });

  it('answers NOT_COORDINATOR and unloads its groups once it no longer leads their partition', async () => {
    const a = await join();
    coordinator.onResignation(0);
    expect(coordinator.heartbeat('g', 1, a.memberId)).toBe(code('NOT_COORDINATOR'));
    expect(coordinator.group('g')).toBeUndefined();
    void coordinator.onElection(0);
    expect((await join(a.memberId)).errorCode).toBe(code('UNKNOWN_MEMBER_ID'));
  });

  it('answers a parked JoinGroup with NOT_COORDINATOR on resignation, and only for the groups of that partition', async () => {
    coordinator.shutdown();
    create(3000);
    const parked = join();
    await expect(coordinator.joinGroup({ groupId: 'elsewhere', memberId: '', clientId: 'c', clientHost: '', rebalanceTimeoutMs: 1000, sessionTimeoutMs: 3000, protocolType: 'consumer', protocols: [] })).resolves.toMatchObject({ errorCode: code('NOT_COORDINATOR') });
    coordinator.onResignation(1);
    expect(coordinator.group('g')?.state).toBe('PreparingRebalance');
    coordinator.onResignation(0);
    expect((await parked).errorCode).toBe(code('NOT_COORDINATOR'));
    expect(coordinator.group('g')).toBeUndefined();
  });

  it('rejects session timeouts outside the configured range and members sharing no protocol', async () => {
    const r = await coordinator.joinGroup({ groupId: 'g', memberId: '', clientId: 'c', clientHost: '', rebalanceTimeoutMs: 1000, sessionTimeoutMs: 10, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] });
    expect(r.errorCode).toBe(code('INVALID_SESSION_TIMEOUT'));
    await join();
    expect((await join('', [{ name: 'roundrobin', metadata: Buffer.alloc(0) }])).errorCode).toBe(code('INCONSISTENT_GROUP_PROTOCOL'));
  });

  it('holds transactional offsets until the marker: stored on COMMIT, dropped on ABORT, unstable meanwhile', async () => {
    create();
    const tp = { topic: 't', partition: 0 };
    expect(await coordinator.txnCommitOffsets('g', 7, 0, -1, '', null, [{ ...tp, offset: 5, metadata: null }])).toEqual([0]);
    expect(await coordinator.txnCommitOffsets('g', 8, 0, -1, '', null, [{ ...tp, offset: 9, metadata: null }])).toEqual([0]);
    expect(await coordinator.txnCommitOffsets('elsewhere', 7, 0, -1, '', null, [{ ...tp, offset: 1, metadata: null }])).toEqual([code('NOT_COORDINATOR')]);
    expect(await coordinator.txnCommitOffsets('g', 7, 0, 3, 'nobody', null, [{ ...tp, offset: 1, metadata: null }])).toEqual([code('ILLEGAL_GENERATION')]);
    expect(coordinator.hasPendingTxnOffset('g', tp)).toBe(true);
    expect(store.offsets.size).toBe(0);
    // A marker on another offsets partition leaves them alone.
    await coordinator.handleTxnCompletion(7, [1], true);
    expect(store.offsets.size).toBe(0);
    await coordinator.handleTxnCompletion(8, [0], false);
    expect(coordinator.hasPendingTxnOffset('g', tp)).toBe(true);
    await coordinator.handleTxnCompletion(7, [0], true);
    expect(store.offsets.get('g/t/0')).toBe(5);
    expect(coordinator.hasPendingTxnOffset('g', tp)).toBe(false);
  });

  it('keeps a committed transaction\'s offsets unstable until their ZooKeeper write lands', async () => {
    create();
    const tp = { topic: 't', partition: 0 };
    await store.commit('g', [{ ...tp, offset: 200 }]);
    expect(await coordinator.txnCommitOffsets('g', 7, 0, -1, '', null, [{ ...tp, offset: 240, metadata: null }])).toEqual([0]);
    // The write to ZooKeeper is slow: until it is done, ZooKeeper still says 200, which is not the stable answer.
    let land: () => void = () => undefined;
    const commit = store.commit.bind(store);
    store.commit = async (group, offsets) => {
      await new Promise<void>((resolve) => (land = resolve));
      return commit(group, offsets);
    };
    const completion = coordinator.handleTxnCompletion(7, [0], true);
    await flush();
    expect(store.offsets.get('g/t/0')).toBe(200);
    expect(coordinator.hasPendingTxnOffset('g', tp)).toBe(true);
    land();
    await completion;
    expect(store.offsets.get('g/t/0')).toBe(240);
    expect(coordinator.hasPendingTxnOffset('g', tp)).toBe(false);
  });
});
