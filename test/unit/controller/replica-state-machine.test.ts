import { TopicPartition, tpString } from '../../../src/common/topic-partition';
import { ReplicaState } from '../../../src/controller/controller-context';
import { PartitionReplica, ReplicaStateMachine } from '../../../src/controller/replica-state-machine';
import { LeaderIsrAndControllerEpoch } from '../../../src/zk/znodes/partition-state';
import { FakeControllerZk } from '../../helpers/fake-controller-zk';
import { brokerInfo, ControllerFixture, controllerFixture, LeaderAndIsrEntry } from '../../helpers/recording-controller-channel';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * Kafka's ReplicaStateMachineTest: a real ControllerContext and ControllerRequestBatch, ZooKeeper and the broker
 * channel faked; each transition checked for the resulting replica state, the requests and the ISR znode writes.
 */

const CONTROLLER_ID = 0;
const EPOCH = 5;
const tp: TopicPartition = { topic: 't', partition: 0 };
const ALL_STATES: ReplicaState[] = [
  'NonExistentReplica',
  'NewReplica',
  'OnlineReplica',
  'OfflineReplica',
  'ReplicaDeletionStarted',
  'ReplicaDeletionSuccessful',
  'ReplicaDeletionIneligible',
];

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

let f: ControllerFixture;
let zk: FakeControllerZk;
let rsm: ReplicaStateMachine;

beforeEach(() => {
  f = controllerFixture({ controllerId: CONTROLLER_ID, epoch: EPOCH, liveBrokers: [1, 2, 3] });
  zk = new FakeControllerZk();
  rsm = new ReplicaStateMachine({ controllerId: CONTROLLER_ID, context: f.context, zk, batch: f.batch });
});

function lic(leader: number, leaderEpoch: number, isr: number[], controllerEpoch = EPOCH): LeaderIsrAndControllerEpoch {
  return { leader, leaderEpoch, isr, controllerEpoch };
}

/** A partition with its assignment and, optionally, its state znode (also in the controller's cache). */
function givenPartition(p: TopicPartition, replicas: number[], znode?: LeaderIsrAndControllerEpoch, zkVersion = 4): void {
  f.context.allTopics.add(p.topic);
  f.context.setReplicas(p, replicas);
  if (znode !== undefined) {
    zk.seed(p, znode, zkVersion);
    f.context.leadership.set(tpString(p), { state: { ...znode, isr: [...znode.isr] }, zkVersion });
  }
}

function givenReplica(replica: number, state: ReplicaState, p: TopicPartition = tp): PartitionReplica {
  f.context.setReplicaState(p, replica, state);
  return { tp: p, replica };
}

function kill(...brokerIds: number[]): void {
  for (const id of brokerIds) f.context.liveBrokers.delete(id);
}

function entry(state: LeaderIsrAndControllerEpoch, zkVersion: number, replicas: number[], isNew: boolean, p: TopicPartition = tp): LeaderAndIsrEntry {
  return { tp: tpString(p), leader: state.leader, leaderEpoch: state.leaderEpoch, isr: state.isr, zkVersion, controllerEpoch: state.controllerEpoch, replicas, isNew };
}

describe('-> NewReplica', () => {
  it('NonExistentReplica -> NewReplica sends the new replica a LeaderAndIsr (isNew) with the current leadership', async () => {
    f.context.liveBrokers.set(4, brokerInfo(4));
    givenPartition(tp, [1, 2, 3, 4], lic(1, 2, [1, 2, 3]));
    await rsm.handleStateChanges([{ tp, replica: 4 }], 'NewReplica');
    expect(f.context.replicaState(tp, 4)).toBe('NewReplica');
    expect(f.channel.leaderAndIsr()).toEqual({ 4: [entry(lic(1, 2, [1, 2, 3]), 4, [1, 2, 3, 4], true)] });
    expect(Object.keys(f.channel.updateMetadata())).toEqual(['1', '2', '3', '4']);
    expect(zk.calls).toEqual([]);
  });

  it('NonExistentReplica -> NewReplica of a partition without leadership only changes the state', async () => {
    givenPartition(tp, [1, 2, 3]);
    await rsm.handleStateChanges([{ tp, replica: 3 }], 'NewReplica');
    expect(f.context.replicaState(tp, 3)).toBe('NewReplica');
    expect(f.channel.sent).toEqual([]);
  });

  it('NonExistentReplica -> NewReplica is refused for the replica that leads the partition', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]));
    await rsm.handleStateChanges([{ tp, replica: 1 }], 'NewReplica');
    expect(f.context.replicaState(tp, 1)).toBe('NonExistentReplica');
    expect(f.channel.sent).toEqual([]);
  });
});

describe('-> OnlineReplica', () => {
  it('NewReplica -> OnlineReplica sends nothing and leaves an assignment that has the replica alone', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]));
    const r = givenReplica(3, 'NewReplica');
    await rsm.handleStateChanges([r], 'OnlineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
    expect(f.context.replicasFor(tp)).toEqual([1, 2, 3]);
    expect(f.channel.sent).toEqual([]);
    expect(zk.calls).toEqual([]);
  });

  it('NewReplica -> OnlineReplica appends a replica missing from the assignment', async () => {
    givenPartition(tp, [1, 2], lic(1, 2, [1, 2]));
    const r = givenReplica(3, 'NewReplica');
    await rsm.handleStateChanges([r], 'OnlineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
    expect(f.context.replicasFor(tp)).toEqual([1, 2, 3]);
    expect(f.channel.sent).toEqual([]);
  });

  it.each<ReplicaState>(['OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'])(
    '%s -> OnlineReplica sends the replica a LeaderAndIsr (isNew=false) with the current leadership',
    async (from) => {
      givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 7);
      const r = givenReplica(3, from);
      await rsm.handleStateChanges([r], 'OnlineReplica');
      expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
      expect(f.channel.leaderAndIsr()).toEqual({ 3: [entry(lic(1, 2, [1, 2]), 7, [1, 2, 3], false)] });
      expect(f.channel.updateMetadata()).toEqual({
        1: ['t-0 leader=1 leaderEpoch=2 isr=[1,2] offline=[]'],
        2: ['t-0 leader=1 leaderEpoch=2 isr=[1,2] offline=[]'],
        3: ['t-0 leader=1 leaderEpoch=2 isr=[1,2] offline=[]'],
      });
      expect(f.context.replicasFor(tp)).toEqual([1, 2, 3]);
      expect(zk.calls).toEqual([]);
    },
  );

  it('OfflineReplica -> OnlineReplica of a partition without leadership only changes the state', async () => {
    givenPartition(tp, [1, 2, 3]);
    const r = givenReplica(3, 'OfflineReplica');
    await rsm.handleStateChanges([r], 'OnlineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
    expect(f.channel.sent).toEqual([]);
  });
});

describe('-> OfflineReplica', () => {
  it.each<ReplicaState>(['NewReplica', 'OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'])(
    '%s -> OfflineReplica sends StopReplica(delete=false) and takes the replica out of the ISR in ZooKeeper',
    async (from) => {
      givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3], EPOCH - 1), 4);
      const r = givenReplica(3, from);
      await rsm.handleStateChanges([r], 'OfflineReplica');

      const state = lic(1, 3, [1, 2]);
      expect(f.context.replicaState(tp, 3)).toBe('OfflineReplica');
      expect(zk.writes()).toEqual([{ op: 'update', tp: 't-0', state, expectedZkVersion: 4, result: 5 }]);
      expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 5 });
      // The remaining replicas learn the new ISR; the stopped one gets StopReplica, after the LeaderAndIsr/UpdateMetadata.
      expect(f.channel.leaderAndIsr()).toEqual({ 1: [entry(state, 5, [1, 2, 3], false)], 2: [entry(state, 5, [1, 2, 3], false)] });
      expect(f.channel.updateMetadata()[3]).toEqual(['t-0 leader=1 leaderEpoch=3 isr=[1,2] offline=[]']);
      expect(f.channel.stopReplica()).toEqual({ 3: ['delete=false t-0'] });
      expect(f.channel.order()).toEqual(['LeaderAndIsr->1', 'LeaderAndIsr->2', 'UpdateMetadata->1', 'UpdateMetadata->2', 'UpdateMetadata->3', 'StopReplica->3']);
    },
  );

  it('OnlineReplica -> OfflineReplica of the leader leaves the partition without a leader (-1)', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    await rsm.handleStateChanges([givenReplica(1, 'OnlineReplica')], 'OfflineReplica');
    const state = lic(-1, 3, [2, 3]);
    expect(zk.node(tp)).toEqual({ state, zkVersion: 5 });
    expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 5 });
    expect(f.channel.leaderAndIsr()).toEqual({ 2: [entry(state, 5, [1, 2, 3], false)], 3: [entry(state, 5, [1, 2, 3], false)] });
    expect(f.channel.stopReplica()).toEqual({ 1: ['delete=false t-0'] });
  });

  it('OnlineReplica -> OfflineReplica of the last ISR member keeps it in the ISR, with no leader', async () => {
    givenPartition(tp, [1, 2, 3], lic(3, 2, [3]), 4);
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(zk.node(tp)).toEqual({ state: lic(-1, 3, [3]), zkVersion: 5 });
    expect(f.channel.leaderAndIsr()).toEqual({ 1: [entry(lic(-1, 3, [3]), 5, [1, 2, 3], false)], 2: [entry(lic(-1, 3, [3]), 5, [1, 2, 3], false)] });
  });

  it('OnlineReplica -> OfflineReplica on a dead broker: no StopReplica to it, the live replicas get the new ISR', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    kill(3);
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OfflineReplica');
    expect(zk.node(tp)).toEqual({ state: lic(1, 3, [1, 2]), zkVersion: 5 });
    expect(f.channel.order()).toEqual(['LeaderAndIsr->1', 'LeaderAndIsr->2', 'UpdateMetadata->1', 'UpdateMetadata->2']);
    expect(f.channel.updateMetadata()[1]).toEqual(['t-0 leader=1 leaderEpoch=3 isr=[1,2] offline=[3]']);
  });

  it('OnlineReplica -> OfflineReplica of a replica outside the ISR writes nothing, refreshes the cached leadership and tells the others', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 4);
    zk.concurrentWrite(tp, lic(1, 3, [1, 2]));
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OfflineReplica');
    // A stale cached state costs one refused conditional write (first attempt), never a changed znode.
    expect(zk.writes().filter((w) => w.result !== null)).toEqual([]);
    expect(f.context.leadership.get('t-0')).toEqual({ state: lic(1, 3, [1, 2]), zkVersion: 5 });
    // Kafka counts it as removed: the other replicas and every broker's metadata hear the state as read.
    expect(f.channel.order()).toEqual(['LeaderAndIsr->1', 'LeaderAndIsr->2', 'UpdateMetadata->1', 'UpdateMetadata->2', 'UpdateMetadata->3', 'StopReplica->3']);
  });

  // Kafka 2.8's doHandleStateChanges(OfflineReplica) treats a partition whose ISR does not contain the replica as a
  // successful removal too (leaderAndIsrsWithoutReplica in doRemoveReplicasFromIsr) and sends LeaderAndIsr (with
  // the state read from ZooKeeper) to the other replicas, plus UpdateMetadata to every live broker, so their
  // metadata shows the replica offline.
  it('OnlineReplica -> OfflineReplica of a replica outside the ISR still tells the other replicas (Kafka 2.8)', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 4);
    kill(3);
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(f.channel.leaderAndIsr()).toEqual({ 1: [entry(lic(1, 2, [1, 2]), 4, [1, 2, 3], false)], 2: [entry(lic(1, 2, [1, 2]), 4, [1, 2, 3], false)] });
    expect(f.channel.updateMetadata()[1]).toEqual(['t-0 leader=1 leaderEpoch=2 isr=[1,2] offline=[3]']);
  });

  it('OnlineReplica -> OfflineReplica of a topic queued for deletion writes the ISR but sends no LeaderAndIsr', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    f.context.topicsToBeDeleted.add('t');
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(zk.node(tp)).toEqual({ state: lic(1, 3, [1, 2]), zkVersion: 5 });
    expect(f.channel.order()).toEqual(['StopReplica->3']);
  });

  it('OnlineReplica -> OfflineReplica retries the ISR removal after a zkVersion conflict', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    // A new leader epoch is written between the controller's read and its write.
    zk.beforeNextUpdate(tp, () => zk.concurrentWrite(tp, lic(2, 3, [2, 3, 1])));
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    const state = lic(2, 4, [2, 1]);
    expect(zk.writes()).toEqual([
      { op: 'update', tp: 't-0', state: lic(1, 3, [1, 2]), expectedZkVersion: 4, result: null },
      { op: 'update', tp: 't-0', state, expectedZkVersion: 5, result: 6 },
    ]);
    expect(f.context.leadership.get('t-0')).toEqual({ state, zkVersion: 6 });
    expect(f.channel.leaderAndIsr()).toEqual({ 1: [entry(state, 6, [1, 2, 3], false)], 2: [entry(state, 6, [1, 2, 3], false)] });
  });

  it('OnlineReplica -> OfflineReplica gives up the ISR removal after 10 conflicts', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    for (let i = 0; i < 11; i++) zk.beforeNextUpdate(tp, () => zk.concurrentWrite(tp, lic(1, 2, [1, 2, 3])));
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(zk.writes().map((w) => w.result)).toEqual(new Array(10).fill(null));
    expect(f.context.leadership.get('t-0')).toEqual({ state: lic(1, 2, [1, 2, 3]), zkVersion: 4 });
    expect(f.channel.order()).toEqual(['StopReplica->3']);
  });

  it('OnlineReplica -> OfflineReplica does not write a state znode written by a newer controller (controllerEpoch fencing)', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    zk.concurrentWrite(tp, lic(2, 3, [2, 3], EPOCH + 1));
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    // A stale cached state costs one refused conditional write (first attempt), never a changed znode.
    expect(zk.writes().filter((w) => w.result !== null)).toEqual([]);
    expect(zk.node(tp)).toEqual({ state: lic(2, 3, [2, 3], EPOCH + 1), zkVersion: 5 });
    expect(f.context.leadership.get('t-0')).toEqual({ state: lic(1, 2, [1, 2, 3]), zkVersion: 4 });
    expect(f.channel.order()).toEqual(['StopReplica->3']);
  });

  // In Kafka 2.8 a failed ISR removal (state znode written by a newer controller) is a failed state change
  // (logFailedStateChange) and the replica keeps its previous state; only replicas whose removal succeeded become
  // OfflineReplica.
  it('OnlineReplica -> OfflineReplica fenced by a newer controller leaves the replica Online (Kafka 2.8)', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    zk.concurrentWrite(tp, lic(2, 3, [2, 3], EPOCH + 1));
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
  });

  // Kafka 2.8 fails the change (the replica keeps its state) when the state znode is missing and the topic is not
  // being deleted ("the leader and isr path in zookeeper is empty").
  it('OnlineReplica -> OfflineReplica without a state znode leaves the replica Online (Kafka 2.8)', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    zk.nodes.clear();
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OnlineReplica');
  });

  it('OnlineReplica -> OfflineReplica without a state znode writes nothing and still sends StopReplica', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    zk.nodes.clear();
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica')], 'OfflineReplica');
    // A stale cached state costs one refused conditional write (first attempt), never a changed znode.
    expect(zk.writes().filter((w) => w.result !== null)).toEqual([]);
    expect(f.channel.order()).toEqual(['StopReplica->3']);
  });

  it('NewReplica -> OfflineReplica of a partition without leadership sends StopReplica and UpdateMetadata, without reading ZooKeeper', async () => {
    givenPartition(tp, [1, 2, 3]);
    await rsm.handleStateChanges([givenReplica(3, 'NewReplica')], 'OfflineReplica');
    expect(f.context.replicaState(tp, 3)).toBe('OfflineReplica');
    expect(zk.calls).toEqual([]);
    expect(f.channel.order()).toEqual(['UpdateMetadata->1', 'UpdateMetadata->2', 'UpdateMetadata->3', 'StopReplica->3']);
  });

  it('many replicas of one broker: one StopReplica request, one LeaderAndIsr per surviving broker', async () => {
    const tp1 = { topic: 't', partition: 1 };
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    givenPartition(tp1, [2, 3], lic(2, 0, [2, 3]), 0);
    await rsm.handleStateChanges([givenReplica(3, 'OnlineReplica'), givenReplica(3, 'OnlineReplica', tp1)], 'OfflineReplica');
    expect(f.channel.stopReplica()).toEqual({ 3: ['delete=false t-0,t-1'] });
    expect(f.channel.requestCounts('LeaderAndIsr')).toEqual({ 1: 1, 2: 1 });
    expect(f.channel.leaderAndIsr()[2]).toEqual([entry(lic(1, 3, [1, 2]), 5, [1, 2, 3], false), entry(lic(2, 1, [2]), 1, [2, 3], false, tp1)]);
  });

  it("the batch's StopReplica names each partition once per broker, in first-added order, a delete asked for kept", () => {
    const tp1 = { topic: 't', partition: 1 };
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    givenPartition(tp1, [2, 3], lic(2, 0, [2, 3]), 0);
    f.batch.newBatch();
    f.batch.addStopReplicaRequestForBrokers([3], tp1, false);
    f.batch.addStopReplicaRequestForBrokers([3], tp, true);
    f.batch.addStopReplicaRequestForBrokers([3, 2], tp1, true);
    f.batch.addStopReplicaRequestForBrokers([3], tp, false);
    f.batch.sendRequestsToBrokers(EPOCH);
    const requests = f.channel.sent.flatMap((s) => (s.api === 'StopReplica' ? [[s.brokerId, s.request.topicStates.flatMap((t) => t.partitionStates.map((p) => `${t.topicName}-${p.partitionIndex}:${p.deletePartition}`))]] : []));
    expect(requests).toEqual([
      [3, ['t-1:true', 't-0:true']],
      [2, ['t-1:true']],
    ]);
  });
});

describe('topic deletion states', () => {
  it('OfflineReplica -> ReplicaDeletionStarted sends StopReplica(delete=true); its response reaches the deletion callback', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 4);
    await rsm.handleStateChanges([givenReplica(3, 'OfflineReplica')], 'ReplicaDeletionStarted');
    expect(f.context.replicaState(tp, 3)).toBe('ReplicaDeletionStarted');
    expect(f.channel.order()).toEqual(['StopReplica->3']);
    expect(f.channel.stopReplica()).toEqual({ 3: ['delete=true t-0'] });
    expect(zk.calls).toEqual([]);
    const sent = f.channel.sent[0];
    if (sent?.api !== 'StopReplica') throw new Error('expected a StopReplica');
    expect(sent.request).toMatchObject({ controllerId: CONTROLLER_ID, controllerEpoch: EPOCH, brokerEpoch: 103, topics: [{ name: 't', partitionIndexes: [0] }] });
    sent.onResponse?.({ errorCode: 0, partitionErrors: [{ topicName: 't', partitionIndex: 0, errorCode: 0 }] });
    expect(f.stopReplicaResponses).toEqual([[3, [{ tp: { topic: 't', partition: 0 }, errorCode: 0 }], true]]);
  });

  it('ReplicaDeletionStarted -> ReplicaDeletionSuccessful only changes the state', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 4);
    await rsm.handleStateChanges([givenReplica(3, 'ReplicaDeletionStarted')], 'ReplicaDeletionSuccessful');
    expect(f.context.replicaState(tp, 3)).toBe('ReplicaDeletionSuccessful');
    expect(f.channel.sent).toEqual([]);
    expect(zk.calls).toEqual([]);
  });

  it.each<ReplicaState>(['OfflineReplica', 'ReplicaDeletionStarted'])('%s -> ReplicaDeletionIneligible only changes the state', async (from) => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2]), 4);
    await rsm.handleStateChanges([givenReplica(3, from)], 'ReplicaDeletionIneligible');
    expect(f.context.replicaState(tp, 3)).toBe('ReplicaDeletionIneligible');
    expect(f.channel.sent).toEqual([]);
    expect(zk.calls).toEqual([]);
  });

  it('ReplicaDeletionSuccessful -> NonExistentReplica removes the replica from the assignment and forgets its state', async () => {
    givenPartition(tp, [1, 3, 2], lic(1, 2, [1, 2]), 4);
    await rsm.handleStateChanges([givenReplica(3, 'ReplicaDeletionSuccessful')], 'NonExistentReplica');
    expect(f.context.replicaState(tp, 3)).toBe('NonExistentReplica');
    expect(f.context.replicaStates.has('t-0:3')).toBe(false);
    expect(f.context.replicasFor(tp)).toEqual([1, 2]);
    expect(f.channel.sent).toEqual([]);
    expect(zk.calls).toEqual([]);
  });
});

describe('illegal transitions', () => {
  const legal: Record<ReplicaState, ReplicaState[]> = {
    NewReplica: ['NonExistentReplica'],
    OnlineReplica: ['NewReplica', 'OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'],
    OfflineReplica: ['NewReplica', 'OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'],
    ReplicaDeletionStarted: ['OfflineReplica'],
    ReplicaDeletionSuccessful: ['ReplicaDeletionStarted'],
    ReplicaDeletionIneligible: ['OfflineReplica', 'ReplicaDeletionStarted'],
    NonExistentReplica: ['ReplicaDeletionSuccessful'],
  };
  const illegal = ALL_STATES.flatMap((from) => ALL_STATES.filter((to) => !legal[to].includes(from)).map((to): [ReplicaState, ReplicaState] => [from, to]));

  it('35 of the 49 pairs are illegal', () => {
    expect(illegal).toHaveLength(35);
  });

  it.each(illegal)('%s -> %s is refused: state, assignment and leadership unchanged, nothing written or sent', async (from, to) => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    const r = givenReplica(3, from);
    await rsm.handleStateChanges([r], to);
    expect(f.context.replicaState(tp, 3)).toBe(from);
    expect(f.context.replicasFor(tp)).toEqual([1, 2, 3]);
    expect(f.context.leadership.get('t-0')).toEqual({ state: lic(1, 2, [1, 2, 3]), zkVersion: 4 });
    expect(zk.calls).toEqual([]);
    expect(f.channel.sent).toEqual([]);
  });

  it('an illegal replica does not stop the legal ones in the same call', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    await rsm.handleStateChanges([givenReplica(2, 'ReplicaDeletionSuccessful'), givenReplica(3, 'OfflineReplica')], 'ReplicaDeletionStarted');
    expect(f.context.replicaState(tp, 2)).toBe('ReplicaDeletionSuccessful');
    expect(f.context.replicaState(tp, 3)).toBe('ReplicaDeletionStarted');
    expect(f.channel.stopReplica()).toEqual({ 3: ['delete=true t-0'] });
  });
});

describe('startup', () => {
  it('startup() marks replicas on live brokers OnlineReplica and the others ReplicaDeletionIneligible, then moves them', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    f.context.shuttingDownBrokerIds.add(2);
    kill(3);
    const calls: [string[], ReplicaState, Record<string, ReplicaState>][] = [];
    jest.spyOn(rsm, 'handleStateChanges').mockImplementation(async (replicas, target) => {
      calls.push([replicas.map((r) => `${tpString(r.tp)}:${r.replica}`), target, Object.fromEntries(f.context.replicaStates)]);
    });
    await rsm.startup();
    const initial = { 't-0:1': 'OnlineReplica', 't-0:2': 'ReplicaDeletionIneligible', 't-0:3': 'ReplicaDeletionIneligible' };
    expect(calls).toEqual([
      [['t-0:1'], 'OnlineReplica', initial],
      [['t-0:2', 't-0:3'], 'OfflineReplica', initial],
    ]);
  });

  it('startup() sends the online replicas their LeaderAndIsr, then takes the offline ones out of the ISR', async () => {
    givenPartition(tp, [1, 2, 3], lic(1, 2, [1, 2, 3]), 4);
    kill(3);
    await rsm.startup();
    expect(Object.fromEntries(f.context.replicaStates)).toEqual({ 't-0:1': 'OnlineReplica', 't-0:2': 'OnlineReplica', 't-0:3': 'OfflineReplica' });
    // Two batches: the current state to replicas 1 and 2; then, after the ISR write, the new state to them.
    expect(f.channel.order()).toEqual([
      'LeaderAndIsr->1',
      'LeaderAndIsr->2',
      'UpdateMetadata->1',
      'UpdateMetadata->2',
      'LeaderAndIsr->1',
      'LeaderAndIsr->2',
      'UpdateMetadata->1',
      'UpdateMetadata->2',
    ]);
    expect(f.channel.leaderAndIsr()[1]).toEqual([entry(lic(1, 2, [1, 2, 3]), 4, [1, 2, 3], false), entry(lic(1, 3, [1, 2]), 5, [1, 2, 3], false)]);
    expect(zk.node(tp)).toEqual({ state: lic(1, 3, [1, 2]), zkVersion: 5 });
  });
});
