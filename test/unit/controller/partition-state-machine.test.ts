import { TopicPartition, tpString } from '../../../src/common/topic-partition';
import { PartitionState } from '../../../src/controller/controller-context';
import { ElectionStrategy, PartitionStateMachine } from '../../../src/controller/partition-state-machine';
import { LeaderIsrAndControllerEpoch } from '../../../src/zk/znodes/partition-state';
import { FakeControllerZk } from '../../helpers/fake-controller-zk';
import { brokerInfo, ControllerFixture, controllerFixture, LeaderAndIsrEntry } from '../../helpers/recording-controller-channel';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * Kafka's PartitionStateMachineTest: a real ControllerContext and ControllerRequestBatch, ZooKeeper and the
 * broker channel faked; each transition checked for the resulting state, the znode writes and the requests.
 */

const CONTROLLER_ID = 0;
const EPOCH = 5;
const tp: TopicPartition = { topic: 't', partition: 0 };

const OFFLINE: ElectionStrategy = { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false };
const OFFLINE_UNCLEAN: ElectionStrategy = { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: true };
const PREFERRED: ElectionStrategy = { kind: 'PreferredReplicaPartitionLeaderElectionStrategy' };
const CONTROLLED_SHUTDOWN: ElectionStrategy = { kind: 'ControlledShutdownPartitionLeaderElectionStrategy' };

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

let f: ControllerFixture;
let zk: FakeControllerZk;
let psm: PartitionStateMachine;
/** Topics whose unclean.leader.election.enable is true, and the topics the callback was asked about. */
let uncleanTopics: Set<string>;
let uncleanAsked: string[];
/** Unclean elections reported to ControllerStats. */
let uncleanElections: number;

beforeEach(() => {
  uncleanElections = 0;
  f = controllerFixture({ controllerId: CONTROLLER_ID, epoch: EPOCH, liveBrokers: [1, 2, 3] });
  zk = new FakeControllerZk();
  uncleanTopics = new Set();
  uncleanAsked = [];
  psm = new PartitionStateMachine({
    controllerId: CONTROLLER_ID,
    context: f.context,
    zk,
    batch: f.batch,
    uncleanLeaderElectionEnabled: async (topic) => {
      uncleanAsked.push(topic);
      return uncleanTopics.has(topic);
    },
    stats: { onUncleanLeaderElection: () => uncleanElections++ },
  });
});

function lic(leader: number, leaderEpoch: number, isr: number[], controllerEpoch = EPOCH - 1): LeaderIsrAndControllerEpoch {
  return { leader, leaderEpoch, isr, controllerEpoch };
}

/** A partition known to the controller: its assignment, state and (optionally) its state znode, also cached. */
function given(p: TopicPartition, replicas: number[], state: PartitionState, znode?: LeaderIsrAndControllerEpoch, zkVersion = 0): void {
  f.context.allTopics.add(p.topic);
  f.context.setReplicas(p, replicas);
  if (state !== 'NonExistentPartition') f.context.partitionStates.set(tpString(p), state);
  if (znode !== undefined) {
    zk.seed(p, znode, zkVersion);
    f.context.leadership.set(tpString(p), { state: { ...znode, isr: [...znode.isr] }, zkVersion });
  }
}

function kill(...brokerIds: number[]): void {
  for (const id of brokerIds) f.context.liveBrokers.delete(id);
}

function entry(leader: number, leaderEpoch: number, isr: number[], zkVersion: number, replicas: number[], isNew: boolean, p: TopicPartition = tp): LeaderAndIsrEntry {
  return { tp: tpString(p), leader, leaderEpoch, isr, zkVersion, controllerEpoch: EPOCH, replicas, isNew };
}

/** Nothing happened: no ZooKeeper access, no request, state and leadership as before. */
function expectUntouched(state: PartitionState, leadership: unknown = undefined): void {
  expect(f.context.partitionState(tp)).toBe(state);
  expect(f.context.leadership.get(tpString(tp))).toEqual(leadership);
  expect(zk.calls).toEqual([]);
  expect(f.channel.sent).toEqual([]);
}

describe('NonExistentPartition', () => {
  it('NonExistentPartition -> NewPartition marks the partition New, with no ZooKeeper write and no request', async () => {
    given(tp, [1, 2], 'NonExistentPartition');
    expect(await psm.handleStateChanges([tp], 'NewPartition')).toEqual([]);
    expectUntouched('NewPartition');
  });
});

describe('NewPartition -> OnlinePartition', () => {
  it('NewPartition -> OnlinePartition elects the first live replica, with the live replicas as ISR', async () => {
    given(tp, [3, 1, 2], 'NewPartition');
    kill(3);
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);

    const state = { leader: 1, leaderEpoch: 0, isr: [1, 2], controllerEpoch: EPOCH };
    expect(f.context.partitionState(tp)).toBe('OnlinePartition');
    expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 0 });
    expect(zk.writes()).toEqual([{ op: 'create', tp: 't-0', state, result: true }]);
    expect(zk.node(tp)).toEqual({ state, zkVersion: 0 });
    // LeaderAndIsr (isNew) to the ISR members, UpdateMetadata to every live broker.
    expect(f.channel.order()).toEqual(['LeaderAndIsr->1', 'LeaderAndIsr->2', 'UpdateMetadata->1', 'UpdateMetadata->2']);
    expect(f.channel.leaderAndIsr()).toEqual({ 1: [entry(1, 0, [1, 2], 0, [3, 1, 2], true)], 2: [entry(1, 0, [1, 2], 0, [3, 1, 2], true)] });
    expect(f.channel.updateMetadata()).toEqual({ 1: ['t-0 leader=1 leaderEpoch=0 isr=[1,2] offline=[3]'], 2: ['t-0 leader=1 leaderEpoch=0 isr=[1,2] offline=[3]'] });
    const request = f.channel.sent[0];
    expect(request?.api === 'LeaderAndIsr' && request.request).toMatchObject({
      controllerId: CONTROLLER_ID,
      controllerEpoch: EPOCH,
      brokerEpoch: 101,
      liveLeaders: [{ brokerId: 1, hostName: 'localhost', port: 9091 }],
    });
  });

  it('NewPartition -> OnlinePartition leaves out a shutting-down replica', async () => {
    given(tp, [1, 2, 3], 'NewPartition');
    f.context.shuttingDownBrokerIds.add(1);
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);
    expect(f.context.leadership.get('t-0')?.state).toEqual({ leader: 2, leaderEpoch: 0, isr: [2, 3], controllerEpoch: EPOCH });
    expect(Object.keys(f.channel.leaderAndIsr())).toEqual(['2', '3']);
    // UpdateMetadata still reaches the shutting-down broker; it is not "offline" in it.
    expect(f.channel.updateMetadata()[1]).toEqual(['t-0 leader=2 leaderEpoch=0 isr=[2,3] offline=[]']);
  });

  it('NewPartition -> OnlinePartition fails when no assigned replica is alive', async () => {
    given(tp, [3, 4], 'NewPartition');
    kill(3);
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
    expectUntouched('NewPartition');
  });

  // Kafka 2.8's initializeLeaderAndIsrForPartitions fails the change on NODEEXISTS (the partition stays New); this
  // implementation deliberately adopts the existing node and elects from it (see initializeLeaderAndIsr).
  it('NewPartition -> OnlinePartition when the state znode already exists takes it and elects a leader from it', async () => {
    given(tp, [1, 2, 3], 'NewPartition');
    zk.seed(tp, lic(2, 3, [2, 3]), 7);
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);

    const state = { leader: 2, leaderEpoch: 4, isr: [2, 3], controllerEpoch: EPOCH };
    expect(zk.writes()).toEqual([
      { op: 'create', tp: 't-0', state: { leader: 1, leaderEpoch: 0, isr: [1, 2, 3], controllerEpoch: EPOCH }, result: false },
      { op: 'update', tp: 't-0', state, expectedZkVersion: 7, result: 8 },
    ]);
    expect(f.context.partitionState(tp)).toBe('OnlinePartition');
    expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 8 });
    // An election, not an initialisation: isNew=false, to every live replica.
    const e = entry(2, 4, [2, 3], 8, [1, 2, 3], false);
    expect(f.channel.leaderAndIsr()).toEqual({ 1: [e], 2: [e], 3: [e] });
  });

  it('NewPartition -> OnlinePartition fails when the existing state znode was written by a newer controller', async () => {
    given(tp, [1, 2, 3], 'NewPartition');
    zk.seed(tp, lic(2, 3, [2, 3], EPOCH + 1), 7);
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
    expect(f.context.partitionState(tp)).toBe('NewPartition');
    expect(f.context.leadership.has('t-0')).toBe(false);
    expect(zk.writes().map((w) => w.op)).toEqual(['create']);
    expect(zk.node(tp)).toEqual({ state: lic(2, 3, [2, 3], EPOCH + 1), zkVersion: 7 });
    expect(f.channel.sent).toEqual([]);
  });

  it('NewPartition -> OnlinePartition: a ZooKeeper error from the create fails that partition only (as Kafka), which stays New, and the batch is closed', async () => {
    const tp1 = { topic: 't', partition: 1 };
    given(tp, [1, 2], 'NewPartition');
    given(tp1, [2, 1], 'NewPartition');
    zk.failNext('create', new Error('connection loss'));
    expect(await psm.handleStateChanges([tp, tp1], 'OnlinePartition', OFFLINE)).toEqual([tp]);
    expect(f.context.partitionState(tp)).toBe('NewPartition');
    expect(f.context.partitionState(tp1)).toBe('OnlinePartition');
    // Only tp1 went out; tp has no state node and no request.
    expect(zk.node(tp)).toBeUndefined();
    expect(new Set(Object.values(f.channel.leaderAndIsr()).flatMap((entries) => entries.map((e) => e.tp)))).toEqual(new Set([tpString(tp1)]));
    // The batch was sent and closed: the next state change can open one.
    expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);
    expect(f.context.partitionState(tp)).toBe('OnlinePartition');
  });

  it('one batch for many partitions: one LeaderAndIsr and one UpdateMetadata per broker', async () => {
    const tp1 = { topic: 't', partition: 1 };
    given(tp, [1, 2], 'NewPartition');
    given(tp1, [2, 3], 'NewPartition');
    expect(await psm.handleStateChanges([tp, tp1], 'OnlinePartition', OFFLINE)).toEqual([]);
    expect(f.channel.requestCounts('LeaderAndIsr')).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(f.channel.requestCounts('UpdateMetadata')).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(f.channel.leaderAndIsr()).toEqual({
      1: [entry(1, 0, [1, 2], 0, [1, 2], true)],
      2: [entry(1, 0, [1, 2], 0, [1, 2], true), entry(2, 0, [2, 3], 0, [2, 3], true, tp1)],
      3: [entry(2, 0, [2, 3], 0, [2, 3], true, tp1)],
    });
    expect(f.channel.updateMetadata()[3]).toEqual(['t-0 leader=1 leaderEpoch=0 isr=[1,2] offline=[]', 't-1 leader=2 leaderEpoch=0 isr=[2,3] offline=[]']);
  });

  it('valid partitions change state while invalid ones in the same call are returned as failed', async () => {
    const other = { topic: 'u', partition: 0 };
    given(tp, [1, 2], 'NonExistentPartition');
    given(other, [1, 2], 'OnlinePartition', lic(1, 0, [1, 2]));
    expect(await psm.handleStateChanges([tp, other], 'NewPartition')).toEqual([other]);
    expect(f.context.partitionState(tp)).toBe('NewPartition');
    expect(f.context.partitionState(other)).toBe('OnlinePartition');
  });
});

describe('OfflinePartition / OnlinePartition -> OnlinePartition', () => {
  describe('OfflinePartitionLeaderElectionStrategy', () => {
    it('OfflinePartition -> OnlinePartition elects the first live in-sync replica (clean election)', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1, 2, 3]), 3);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);

      const state = { leader: 2, leaderEpoch: 3, isr: [2, 3], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 3, result: 4 }]);
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 4 });
      // LeaderAndIsr to the live replicas only; UpdateMetadata to the live brokers.
      const e = entry(2, 3, [2, 3], 4, [1, 2, 3], false);
      expect(f.channel.leaderAndIsr()).toEqual({ 2: [e], 3: [e] });
      expect(f.channel.updateMetadata()).toEqual({ 2: ['t-0 leader=2 leaderEpoch=3 isr=[2,3] offline=[1]'], 3: ['t-0 leader=2 leaderEpoch=3 isr=[2,3] offline=[1]'] });
    });

    it('OfflinePartition -> OnlinePartition fails with no live in-sync replica when unclean election is disabled', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1]), 3);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
      expect(uncleanAsked).toEqual(['t']);
      expect(f.context.partitionState(tp)).toBe('OfflinePartition');
      expect(zk.writes()).toEqual([]);
      expect(zk.node(tp)).toEqual({ state: lic(1, 2, [1]), zkVersion: 3 });
      expect(f.channel.sent).toEqual([]);
      expect(uncleanElections).toBe(0);
    });

    it('OfflinePartition -> OnlinePartition with allowUnclean elects the first live replica, ISR = itself', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1]), 3);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE_UNCLEAN)).toEqual([]);
      const state = { leader: 2, leaderEpoch: 3, isr: [2], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 3, result: 4 }]);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 4 });
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      expect(f.channel.leaderAndIsr()).toEqual({ 2: [entry(2, 3, [2], 4, [1, 2, 3], false)], 3: [entry(2, 3, [2], 4, [1, 2, 3], false)] });
      // The strategy allows it: the topic's config is not consulted.
      expect(uncleanAsked).toEqual([]);
    });

    it('OfflinePartition -> OnlinePartition uses the topic-level unclean.leader.election.enable from the callback', async () => {
      const other = { topic: 'u', partition: 0 };
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1]), 3);
      given(other, [1, 3], 'OfflinePartition', lic(1, 6, [1]), 9);
      kill(1);
      uncleanTopics.add('t');
      expect(await psm.handleStateChanges([tp, other], 'OnlinePartition', OFFLINE)).toEqual([other]);
      expect(uncleanAsked.sort()).toEqual(['t', 'u']);
      expect(f.context.leadership.get('t-0')?.state).toEqual({ leader: 2, leaderEpoch: 3, isr: [2], controllerEpoch: EPOCH });
      // One leader from outside the ISR: UncleanLeaderElectionsPerSec moves by one.
      expect(uncleanElections).toBe(1);
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      expect(f.context.partitionState(other)).toBe('OfflinePartition');
      expect(zk.node(other)).toEqual({ state: lic(1, 6, [1]), zkVersion: 9 });
    });

    it('OfflinePartition -> OnlinePartition fails when no replica is alive, even with unclean election', async () => {
      given(tp, [1, 2], 'OfflinePartition', lic(1, 2, [1]), 3);
      kill(1, 2);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE_UNCLEAN)).toEqual([tp]);
      expect(f.context.partitionState(tp)).toBe('OfflinePartition');
      expect(zk.writes()).toEqual([]);
      expect(f.channel.sent).toEqual([]);
    });

    it('without a strategy the OnlinePartition change elects as OfflinePartitionLeaderElectionStrategy(false)', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1]), 3);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition')).toEqual([tp]);
      expect(uncleanAsked).toEqual(['t']);
      uncleanTopics.add('t');
      expect(await psm.handleStateChanges([tp], 'OnlinePartition')).toEqual([]);
      expect(f.context.leadership.get('t-0')?.state.leader).toBe(2);
    });
  });

  describe('PreferredReplicaPartitionLeaderElectionStrategy', () => {
    it('OnlinePartition -> OnlinePartition moves leadership to the preferred replica and keeps the ISR', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(2, 4, [2, 3, 1]), 6);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', PREFERRED)).toEqual([]);
      const state = { leader: 1, leaderEpoch: 5, isr: [2, 3, 1], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 6, result: 7 }]);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 7 });
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      const e = entry(1, 5, [2, 3, 1], 7, [1, 2, 3], false);
      expect(f.channel.leaderAndIsr()).toEqual({ 1: [e], 2: [e], 3: [e] });
      expect(Object.keys(f.channel.updateMetadata())).toEqual(['1', '2', '3']);
    });

    it('OnlinePartition -> OnlinePartition fails when the preferred replica is not in the ISR', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(2, 4, [2, 3]), 6);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', PREFERRED)).toEqual([tp]);
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      expect(zk.writes()).toEqual([]);
      expect(f.channel.sent).toEqual([]);
    });

    it('OnlinePartition -> OnlinePartition fails when the preferred replica is not alive', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(2, 4, [1, 2, 3]), 6);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', PREFERRED)).toEqual([tp]);
      expect(zk.writes()).toEqual([]);
    });

    // Kafka 2.8's leaderForPreferredReplica sends LeaderAndIsr to the live replicas only
    // (assignment.filter(isReplicaOnline)), which excludes brokers in controlled shutdown.
    it('PreferredReplica election sends LeaderAndIsr to live replicas only, not to a shutting-down one', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(2, 4, [1, 2, 3]), 6);
      f.context.shuttingDownBrokerIds.add(3);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', PREFERRED)).toEqual([]);
      expect(Object.keys(f.channel.leaderAndIsr())).toEqual(['1', '2']);
    });
  });

  describe('ControlledShutdownPartitionLeaderElectionStrategy', () => {
    it('OnlinePartition -> OnlinePartition moves leadership off a shutting-down broker and drops it from the ISR', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(1, 4, [1, 2, 3]), 6);
      f.context.shuttingDownBrokerIds.add(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', CONTROLLED_SHUTDOWN)).toEqual([]);
      const state = { leader: 2, leaderEpoch: 5, isr: [2, 3], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 6, result: 7 }]);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 7 });
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      // The shutting-down broker is still told (it becomes a follower), as in Kafka (live or shutting down replicas).
      const e = entry(2, 5, [2, 3], 7, [1, 2, 3], false);
      expect(f.channel.leaderAndIsr()).toEqual({ 1: [e], 2: [e], 3: [e] });
      expect(f.channel.updateMetadata()[1]).toEqual(['t-0 leader=2 leaderEpoch=5 isr=[2,3] offline=[]']);
    });

    it('OnlinePartition -> OnlinePartition fails when every in-sync replica is shutting down', async () => {
      given(tp, [1, 2], 'OnlinePartition', lic(1, 4, [1]), 6);
      f.context.shuttingDownBrokerIds.add(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', CONTROLLED_SHUTDOWN)).toEqual([tp]);
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      expect(zk.writes()).toEqual([]);
      expect(f.channel.sent).toEqual([]);
    });
  });

  describe('ReassignPartitionLeaderElectionStrategy', () => {
    it('OnlinePartition -> OnlinePartition elects the first live in-sync target replica and tells the targets', async () => {
      // Mid-reassignment [1,2] -> [3,4]: the assignment holds both, the ISR all four.
      given(tp, [1, 2, 3, 4], 'OnlinePartition', lic(1, 4, [1, 2, 3, 4]), 6);
      f.context.liveBrokers.set(4, brokerInfo(4));
      const strategy: ElectionStrategy = { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map([['t-0', [4, 3]]]) };
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', strategy)).toEqual([]);
      const state = { leader: 4, leaderEpoch: 5, isr: [1, 2, 3, 4], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 6, result: 7 }]);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 7 });
      const e = entry(4, 5, [1, 2, 3, 4], 7, [1, 2, 3, 4], false);
      expect(f.channel.leaderAndIsr()).toEqual({ 3: [e], 4: [e] });
      expect(Object.keys(f.channel.updateMetadata())).toEqual(['1', '2', '3', '4']);
    });

    it('without targets for the partition the assignment is the target', async () => {
      given(tp, [3, 1, 2], 'OnlinePartition', lic(1, 4, [1, 2, 3]), 6);
      const strategy: ElectionStrategy = { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map() };
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', strategy)).toEqual([]);
      expect(f.context.leadership.get('t-0')?.state).toEqual({ leader: 3, leaderEpoch: 5, isr: [1, 2, 3], controllerEpoch: EPOCH });
      expect(Object.keys(f.channel.leaderAndIsr())).toEqual(['1', '2', '3']);
    });

    it('fails when no target replica is in the ISR', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(1, 4, [1, 2]), 6);
      const strategy: ElectionStrategy = { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map([['t-0', [3]]]) };
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', strategy)).toEqual([tp]);
      expect(zk.writes()).toEqual([]);
      expect(f.channel.sent).toEqual([]);
    });

    // Kafka 2.8's leaderForReassign sends LeaderAndIsr to the live target replicas only
    // (targetReplicas.filter(isReplicaOnline)), so a target broker in controlled shutdown is not sent one.
    it('Reassign election sends LeaderAndIsr to live target replicas only, not to a shutting-down one', async () => {
      given(tp, [1, 2, 3], 'OnlinePartition', lic(1, 4, [1, 2, 3]), 6);
      f.context.shuttingDownBrokerIds.add(3);
      const strategy: ElectionStrategy = { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map([['t-0', [2, 3]]]) };
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', strategy)).toEqual([]);
      expect(Object.keys(f.channel.leaderAndIsr())).toEqual(['2']);
    });
  });

  describe('conditional writes', () => {
    it('retries the election after a zkVersion conflict, electing from the ISR written meanwhile', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1, 2, 3]), 3);
      kill(1);
      // Between the controller's read and its write the old leader shrinks the ISR to [1,3].
      zk.beforeNextUpdate(tp, () => zk.concurrentWrite(tp, lic(1, 2, [1, 3])));
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);

      const state = { leader: 3, leaderEpoch: 3, isr: [3], controllerEpoch: EPOCH };
      expect(zk.writes()).toEqual([
        { op: 'update', tp: 't-0', state: { leader: 2, leaderEpoch: 3, isr: [2, 3], controllerEpoch: EPOCH }, expectedZkVersion: 3, result: null },
        { op: 'update', tp: 't-0', state, expectedZkVersion: 4, result: 5 },
      ]);
      // The first attempt starts from the cached state (its write is conditional on the cached zkVersion), the retry reads.
      expect(zk.calls.filter((c) => c.op === 'get')).toHaveLength(1);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 5 });
      expect(f.context.partitionState(tp)).toBe('OnlinePartition');
      // Only the successful attempt is in the batch.
      const e = entry(3, 3, [3], 5, [1, 2, 3], false);
      expect(f.channel.leaderAndIsr()).toEqual({ 2: [e], 3: [e] });
    });

    it('gives up after 10 conflicting attempts and returns the partition as failed', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1, 2, 3]), 3);
      kill(1);
      for (let i = 0; i < 11; i++) zk.beforeNextUpdate(tp, () => zk.concurrentWrite(tp, lic(1, 2, [1, 2, 3])));
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
      expect(zk.writes().map((w) => [w.op === 'update' && w.expectedZkVersion, w.result])).toEqual(
        Array.from({ length: 10 }, (_, i) => [3 + i, null]),
      );
      expect(f.context.partitionState(tp)).toBe('OfflinePartition');
      expect(f.channel.sent).toEqual([]);
    });

    it('aborts when the state znode was written by a newer controller (controllerEpoch fencing)', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition', lic(1, 2, [1, 2, 3]), 3);
      kill(1);
      zk.concurrentWrite(tp, lic(2, 3, [2, 3], EPOCH + 1));
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
      // Only the first, conditional write from the stale cache was tried, and refused; the read then fences.
      expect(zk.writes().filter((w) => w.result !== null)).toEqual([]);
      expect(zk.node(tp)).toEqual({ state: lic(2, 3, [2, 3], EPOCH + 1), zkVersion: 4 });
      expect(f.context.partitionState(tp)).toBe('OfflinePartition');
      expect(f.context.leadership.get('t-0')).toEqual({ state: lic(1, 2, [1, 2, 3]), zkVersion: 3 });
      expect(f.channel.sent).toEqual([]);
    });

    it('a znode written by an older controller is taken over: the new state carries our epoch', async () => {
      given(tp, [1, 2], 'OfflinePartition', lic(1, 2, [1, 2], EPOCH - 3), 3);
      kill(1);
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([]);
      expect(zk.node(tp)).toEqual({ state: { leader: 2, leaderEpoch: 3, isr: [2], controllerEpoch: EPOCH }, zkVersion: 4 });
    });

    it('fails when the state znode is missing', async () => {
      given(tp, [1, 2, 3], 'OfflinePartition');
      expect(await psm.handleStateChanges([tp], 'OnlinePartition', OFFLINE)).toEqual([tp]);
      expect(zk.writes()).toEqual([]);
      expect(f.context.partitionState(tp)).toBe('OfflinePartition');
      expect(f.channel.sent).toEqual([]);
    });
  });
});

describe('-> OfflinePartition and -> NonExistentPartition', () => {
  it.each<PartitionState>(['NewPartition', 'OnlinePartition', 'OfflinePartition'])('%s -> OfflinePartition only marks the partition Offline', async (from) => {
    const leadership = { state: lic(1, 2, [1, 2]), zkVersion: 3 };
    given(tp, [1, 2], from, leadership.state, leadership.zkVersion);
    zk.calls.length = 0;
    expect(await psm.handleStateChanges([tp], 'OfflinePartition')).toEqual([]);
    expectUntouched('OfflinePartition', leadership);
  });

  it('OfflinePartition -> NonExistentPartition only marks the partition NonExistent', async () => {
    given(tp, [1, 2], 'OfflinePartition');
    expect(await psm.handleStateChanges([tp], 'NonExistentPartition')).toEqual([]);
    expectUntouched('NonExistentPartition');
    expect(f.context.partitionStates.get('t-0')).toBe('NonExistentPartition');
  });
});

describe('illegal transitions', () => {
  const illegal: [PartitionState, PartitionState][] = [
    ['NonExistentPartition', 'NonExistentPartition'],
    ['NonExistentPartition', 'OnlinePartition'],
    ['NonExistentPartition', 'OfflinePartition'],
    ['NewPartition', 'NewPartition'],
    ['NewPartition', 'NonExistentPartition'],
    ['OnlinePartition', 'NewPartition'],
    ['OnlinePartition', 'NonExistentPartition'],
    ['OfflinePartition', 'NewPartition'],
  ];

  it.each(illegal)('%s -> %s is refused: state unchanged, partition returned as failed, nothing written or sent', async (from, to) => {
    const leadership = from === 'OnlinePartition' || from === 'OfflinePartition' ? { state: lic(1, 2, [1, 2]), zkVersion: 3 } : undefined;
    given(tp, [1, 2], from, leadership?.state, leadership?.zkVersion);
    zk.calls.length = 0;
    expect(await psm.handleStateChanges([tp], to, OFFLINE)).toEqual([tp]);
    expectUntouched(from, leadership);
  });

  it('covers every pair the legal table leaves out', () => {
    const states: PartitionState[] = ['NonExistentPartition', 'NewPartition', 'OnlinePartition', 'OfflinePartition'];
    const legal = ['NonExistentPartition->NewPartition', 'NewPartition->OnlinePartition', 'OnlinePartition->OnlinePartition', 'OfflinePartition->OnlinePartition'];
    legal.push('NewPartition->OfflinePartition', 'OnlinePartition->OfflinePartition', 'OfflinePartition->OfflinePartition', 'OfflinePartition->NonExistentPartition');
    const all = states.flatMap((a) => states.map((b) => `${a}->${b}`));
    expect(all.filter((p) => !legal.includes(p)).sort()).toEqual(illegal.map(([a, b]) => `${a}->${b}`).sort());
  });
});

describe('triggerOnlinePartitionStateChange', () => {
  it('takes New and Offline partitions online in one batch, skipping topics queued for deletion and Online partitions', async () => {
    const fresh = { topic: 'a', partition: 0 };
    const offline = { topic: 'b', partition: 0 };
    const deleting = { topic: 'c', partition: 0 };
    const online = { topic: 'd', partition: 0 };
    given(fresh, [1, 2], 'NewPartition');
    given(offline, [3, 2], 'OfflinePartition', lic(3, 1, [3, 2]), 2);
    given(deleting, [3, 2], 'OfflinePartition', lic(3, 1, [3, 2]), 2);
    given(online, [1, 2], 'OnlinePartition', lic(1, 1, [1, 2]), 2);
    f.context.topicsToBeDeleted.add('c');
    kill(3);

    await psm.triggerOnlinePartitionStateChange();

    expect(f.context.partitionState(fresh)).toBe('OnlinePartition');
    expect(f.context.partitionState(offline)).toBe('OnlinePartition');
    expect(f.context.partitionState(deleting)).toBe('OfflinePartition');
    expect(f.context.partitionState(online)).toBe('OnlinePartition');
    // Neither the deleting nor the online partition's znode is read or written.
    expect([...new Set(zk.calls.map((c) => c.tp))].sort()).toEqual(['a-0', 'b-0']);
    expect(zk.node(offline)).toEqual({ state: { leader: 2, leaderEpoch: 2, isr: [2], controllerEpoch: EPOCH }, zkVersion: 3 });
    expect(f.channel.requestCounts('LeaderAndIsr')).toEqual({ 1: 1, 2: 1 });
    expect(f.channel.leaderAndIsr()[2]?.map((e) => e.tp)).toEqual(['a-0', 'b-0']);
  });

  it('uses OfflinePartitionLeaderElectionStrategy(false): a partition without live ISR stays Offline unless its topic allows unclean election', async () => {
    const p = { topic: 'b', partition: 0 };
    given(p, [3, 2], 'OfflinePartition', lic(3, 1, [3]), 2);
    kill(3);
    await psm.triggerOnlinePartitionStateChange();
    expect(f.context.partitionState(p)).toBe('OfflinePartition');
    uncleanTopics.add('b');
    await psm.triggerOnlinePartitionStateChange();
    expect(f.context.partitionState(p)).toBe('OnlinePartition');
    expect(f.context.leadership.get('b-0')?.state).toEqual({ leader: 2, leaderEpoch: 2, isr: [2], controllerEpoch: EPOCH });
  });

  it('considers only the given partitions when called with some', async () => {
    const other = { topic: 'a', partition: 1 };
    given(tp, [1, 2], 'NewPartition');
    given(other, [1, 2], 'NewPartition');
    await psm.triggerOnlinePartitionStateChange([other]);
    expect(f.context.partitionState(tp)).toBe('NewPartition');
    expect(f.context.partitionState(other)).toBe('OnlinePartition');
  });

  it('sends nothing when no partition is New or Offline', async () => {
    given(tp, [1, 2], 'OnlinePartition', lic(1, 1, [1, 2]), 2);
    zk.calls.length = 0;
    await psm.triggerOnlinePartitionStateChange();
    expectUntouched('OnlinePartition', { state: lic(1, 1, [1, 2]), zkVersion: 2 });
  });
});

describe('startup', () => {
  /** a-0 never initialised, b-0 led by a live broker, c-0 by a dead one, d-0 by a shutting-down one, e-0 leaderless. */
  function givenStartupPartitions(): Record<string, TopicPartition> {
    const p = { a: { topic: 'a', partition: 0 }, b: { topic: 'b', partition: 0 }, c: { topic: 'c', partition: 0 }, d: { topic: 'd', partition: 0 }, e: { topic: 'e', partition: 0 } };
    f.context.setReplicas(p.a, [1, 2]);
    for (const [key, p0, replicas, state] of [
      ['b', p.b, [1, 2], lic(1, 1, [1, 2])],
      ['c', p.c, [3, 1], lic(3, 1, [3, 1])],
      ['d', p.d, [2, 1], lic(2, 1, [2, 1])],
      ['e', p.e, [1], lic(-1, 1, [1])],
    ] as const) {
      f.context.setReplicas(p0, [...replicas]);
      zk.seed(p0, state, 2);
      f.context.leadership.set(`${key}-0`, { state: { ...state, isr: [...state.isr] }, zkVersion: 2 });
    }
    kill(3);
    f.context.shuttingDownBrokerIds.add(2);
    return p;
  }

  it('startup() sets NewPartition without leadership, OnlinePartition with a live leader, OfflinePartition otherwise', async () => {
    givenStartupPartitions();
    const trigger = jest.spyOn(psm, 'triggerOnlinePartitionStateChange').mockResolvedValue(undefined);
    await psm.startup();
    expect(trigger).toHaveBeenCalledTimes(1);
    expect(Object.fromEntries(f.context.partitionStates)).toEqual({
      'a-0': 'NewPartition',
      'b-0': 'OnlinePartition',
      'c-0': 'OfflinePartition',
      'd-0': 'OfflinePartition',
      'e-0': 'OfflinePartition',
    });
  });

  it('startup() then takes the New and Offline partitions online', async () => {
    givenStartupPartitions();
    await psm.startup();
    expect(Object.fromEntries(f.context.partitionStates)).toEqual({
      'a-0': 'OnlinePartition',
      'b-0': 'OnlinePartition',
      'c-0': 'OnlinePartition',
      'd-0': 'OnlinePartition',
      'e-0': 'OnlinePartition',
    });
    expect(f.context.leadership.get('a-0')?.state).toEqual({ leader: 1, leaderEpoch: 0, isr: [1], controllerEpoch: EPOCH });
    expect(f.context.leadership.get('c-0')?.state).toEqual({ leader: 1, leaderEpoch: 2, isr: [1], controllerEpoch: EPOCH });
    expect(f.context.leadership.get('d-0')?.state).toEqual({ leader: 1, leaderEpoch: 2, isr: [1], controllerEpoch: EPOCH });
    expect(f.context.leadership.get('e-0')?.state).toEqual({ leader: 1, leaderEpoch: 2, isr: [1], controllerEpoch: EPOCH });
    expect(zk.calls.some((c) => c.tp === 'b-0')).toBe(false);
  });
});
