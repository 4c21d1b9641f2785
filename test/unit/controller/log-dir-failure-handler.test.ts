import { ErrorCode } from '../../../src/common/error-codes';
import { getLogger } from '../../../src/common/logging/logging';
import { TopicPartition, tpString } from '../../../src/common/topic-partition';
import { BrokerChangeHandler } from '../../../src/controller/broker-change-handler';
import { ControllerOps } from '../../../src/controller/controller-ops';
import { controllerStateOf, describeEvent } from '../../../src/controller/controller-events';
import { LogDirEventZkOps, LogDirFailureHandler } from '../../../src/controller/log-dir-failure-handler';
import { PartitionStateMachine } from '../../../src/controller/partition-state-machine';
import { ReplicaStateMachine } from '../../../src/controller/replica-state-machine';
import { TopicDeletionManager } from '../../../src/controller/topic-deletion-manager';
import { BrokerRegistryZk } from '../../../src/zk/broker-registry-zk';
import { ControllerZk } from '../../../src/zk/controller-zk';
import { BrokerInfo } from '../../../src/zk/znodes/broker-info';
import { LeaderIsrAndControllerEpoch } from '../../../src/zk/znodes/partition-state';
import { FakeControllerZk } from '../../helpers/fake-controller-zk';
import { brokerInfo, ControllerFixture, controllerFixture } from '../../helpers/recording-controller-channel';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * The controller's handling of a failed log dir (Kafka's processLogDirEventNotification, onBrokerLogDirFailure,
 * processLeaderAndIsrResponseReceived, onReplicasBecomeOffline): a real ControllerContext, request batch and state
 * machines over a recording channel; the partition-state znodes and /log_dir_event_notification faked.
 */

const CONTROLLER_ID = 0;
const EPOCH = 5;
const FAILED = 2;
const t0: TopicPartition = { topic: 't', partition: 0 };
const t1: TopicPartition = { topic: 't', partition: 1 };
const u0: TopicPartition = { topic: 'u', partition: 0 };

let restoreLogging: () => void;
beforeAll(() => (restoreLogging = quietLogging()));
afterAll(() => restoreLogging());

/** /log_dir_event_notification in memory: sequence number -> broker id. */
class FakeLogDirEventZk implements LogDirEventZkOps {
  readonly nodes = new Map<string, number>();
  private next = 0;

  add(brokerId: number): void {
    this.nodes.set(String(this.next++).padStart(10, '0'), brokerId);
  }
  async getAllLogDirEventNotifications(): Promise<string[]> {
    return [...this.nodes.keys()].sort();
  }
  async getBrokerIdsFromLogDirEvents(seqs: readonly string[]): Promise<number[]> {
    return seqs.flatMap((s) => (this.nodes.has(s) ? [this.nodes.get(s) as number] : []));
  }
  async deleteLogDirEventNotifications(seqs: readonly string[]): Promise<void> {
    for (const s of seqs) this.nodes.delete(s);
  }
}

let f: ControllerFixture;
let zk: FakeControllerZk;
let events: FakeLogDirEventZk;
let ops: ControllerOps;
let handler: LogDirFailureHandler;

function lic(leader: number, leaderEpoch: number, isr: number[]): LeaderIsrAndControllerEpoch {
  return { leader, leaderEpoch, isr, controllerEpoch: EPOCH };
}

function givenPartition(tp: TopicPartition, replicas: number[], state: LeaderIsrAndControllerEpoch): void {
  f.context.allTopics.add(tp.topic);
  f.context.setReplicas(tp, replicas);
  zk.seed(tp, state, 3);
  f.context.leadership.set(tpString(tp), { state: { ...state, isr: [...state.isr] }, zkVersion: 3 });
  f.context.partitionStates.set(tpString(tp), 'OnlinePartition');
  for (const r of replicas) f.context.setReplicaState(tp, r, 'OnlineReplica');
}

beforeEach(() => {
  f = controllerFixture({ controllerId: CONTROLLER_ID, epoch: EPOCH, liveBrokers: [1, 2, 3] });
  zk = new FakeControllerZk();
  events = new FakeLogDirEventZk();
  const psm = new PartitionStateMachine({ controllerId: CONTROLLER_ID, context: f.context, zk, batch: f.batch, uncleanLeaderElectionEnabled: async () => false });
  const rsm = new ReplicaStateMachine({ controllerId: CONTROLLER_ID, context: f.context, zk, batch: f.batch });
  const tdm = new TopicDeletionManager(CONTROLLER_ID, true, f.context, zk as unknown as ControllerZk, f.batch, psm, rsm);
  ops = {
    context: f.context,
    partitionStateMachine: psm,
    replicaStateMachine: rsm,
    topicDeletionManager: tdm,
    channel: f.channel,
    stateChangeLogger: () => getLogger('state.change.logger'),
    sendUpdateMetadataRequest: (brokers, partitions) => {
      f.batch.newBatch();
      f.batch.addUpdateMetadataRequestForBrokers(brokers, partitions);
      f.batch.sendRequestsToBrokers(EPOCH);
    },
    sendLeaderAndIsr: () => undefined,
  };
  handler = new LogDirFailureHandler(ops, events, getLogger('kafka.controller.KafkaController'));
  // t-0: led by the broker whose dir fails; t-1: it follows; u-0: not on it.
  givenPartition(t0, [2, 1, 3], lic(2, 7, [2, 1, 3]));
  givenPartition(t1, [1, 2, 3], lic(1, 4, [1, 2, 3]));
  givenPartition(u0, [3, 1], lic(3, 1, [3, 1]));
});

/** The broker's answer to the LeaderAndIsr it was sent, through the batch's callback, as the event would carry it. */
async function respond(brokerId: number, errors: Record<string, number>, topLevel = 0): Promise<void> {
  const sent = f.channel.sent.filter((s) => s.api === 'LeaderAndIsr' && s.brokerId === brokerId);
  const last = sent[sent.length - 1];
  if (last === undefined || last.api !== 'LeaderAndIsr') throw new Error(`no LeaderAndIsr sent to ${brokerId}`);
  last.onResponse?.({
    errorCode: topLevel,
    partitionErrors: last.request.ungroupedPartitionStates.map((s) => ({ topicName: s.topicName, partitionIndex: s.partitionIndex, errorCode: errors[`${s.topicName}-${s.partitionIndex}`] ?? 0 })),
  });
  const [broker, code, partitionErrors] = f.leaderAndIsrResponses.shift() ?? [];
  f.channel.clear();
  await handler.processLeaderAndIsrResponseReceived(broker as number, code as number, partitionErrors ?? []);
}

describe('LogDirEventNotification', () => {
  it('has Kafka state LogDirChange; LeaderAndIsrResponseReceived has its own', () => {
    expect(controllerStateOf({ kind: 'LogDirEventNotification' })).toBe('LogDirChange');
    const e = { kind: 'LeaderAndIsrResponseReceived', brokerId: 2, errorCode: 0, partitionErrors: [] } as const;
    expect(controllerStateOf(e)).toBe('LeaderAndIsrResponseReceived');
    expect(describeEvent(e)).toBe('LeaderAndIsrResponseReceived(2)');
  });

  it('sends the broker LeaderAndIsr for all its replicas at their current epochs, then deletes the notifications', async () => {
    events.add(FAILED);
    events.add(FAILED);
    await handler.processLogDirEventNotification();
    expect(events.nodes.size).toBe(0);
    const lai = f.channel.leaderAndIsr();
    expect(Object.keys(lai)).toEqual([String(FAILED)]);
    expect(lai[FAILED]?.map((e) => [e.tp, e.leader, e.leaderEpoch])).toEqual([
      ['t-0', 2, 7],
      ['t-1', 1, 4],
    ]);
    expect(zk.writes()).toEqual([]);
  });

  it('with no notification left, does nothing', async () => {
    await handler.processLogDirEventNotification();
    expect(f.channel.sent).toEqual([]);
  });
});

describe('LeaderAndIsrResponseReceived', () => {
  beforeEach(async () => {
    events.add(FAILED);
    await handler.processLogDirEventNotification();
  });

  it('KAFKA_STORAGE_ERROR: the replica is offline, its partition gets a new leader from the rest of the ISR', async () => {
    await respond(FAILED, { 't-0': ErrorCode.KAFKA_STORAGE_ERROR.code, 't-1': ErrorCode.STALE_CONTROLLER_EPOCH.code });
    expect([...(f.context.replicasOnOfflineDirs.get(FAILED) ?? [])]).toEqual(['t-0']);
    expect(f.context.isReplicaOnline(FAILED, t0)).toBe(false);
    expect(f.context.isReplicaOnline(FAILED, t1)).toBe(true);
    expect(f.context.isReplicaOnline(FAILED)).toBe(true);
    // Offline partition election: the first online ISR member in assignment order, the ISR without the failed replica.
    expect(zk.node(t0)?.state).toEqual(lic(1, 8, [1, 3]));
    expect(f.context.partitionState(t0)).toBe('OnlinePartition');
    expect(f.context.replicaState(t0, FAILED)).toBe('OfflineReplica');
    const lai = f.channel.leaderAndIsr();
    expect(Object.keys(lai).sort()).toEqual(['1', '3']);
    expect(lai[1]?.[0]).toMatchObject({ tp: 't-0', leader: 1, leaderEpoch: 8, isr: [1, 3] });
    expect(f.channel.stopReplica()).toEqual({ [FAILED]: ['delete=false t-0'] });
    // Every live broker hears that the replica is offline.
    for (const b of [1, 2, 3]) expect(f.channel.updateMetadata()[b]).toContain('t-0 leader=1 leaderEpoch=8 isr=[1,3] offline=[2]');
    // The followed partition is untouched.
    expect(zk.node(t1)?.state).toEqual(lic(1, 4, [1, 2, 3]));
  });

  it('a replica the broker follows goes out of the ISR; its leader stays', async () => {
    await respond(FAILED, { 't-0': ErrorCode.STALE_CONTROLLER_EPOCH.code, 't-1': ErrorCode.KAFKA_STORAGE_ERROR.code });
    expect(zk.node(t1)?.state).toEqual(lic(1, 5, [1, 3]));
    expect(f.context.replicaState(t1, FAILED)).toBe('OfflineReplica');
    expect(zk.node(t0)?.state).toEqual(lic(2, 7, [2, 1, 3]));
  });

  it('a replica already known offline is not handled twice; NONE brings one back', async () => {
    await respond(FAILED, { 't-0': ErrorCode.KAFKA_STORAGE_ERROR.code });
    const writes = zk.writes().length;
    events.add(FAILED);
    await handler.processLogDirEventNotification();
    await respond(FAILED, { 't-0': ErrorCode.KAFKA_STORAGE_ERROR.code });
    expect(zk.writes().length).toBe(writes);
    expect(f.channel.stopReplica()).toEqual({});
    await handler.processLeaderAndIsrResponseReceived(FAILED, 0, [{ tp: t0, errorCode: ErrorCode.NONE.code }]);
    expect(f.context.isReplicaOnline(FAILED, t0)).toBe(true);
  });

  it('a response with a top-level error changes nothing', async () => {
    await respond(FAILED, { 't-0': ErrorCode.KAFKA_STORAGE_ERROR.code }, ErrorCode.STALE_CONTROLLER_EPOCH.code);
    expect(f.context.replicasOnOfflineDirs.size).toBe(0);
    expect(zk.writes()).toEqual([]);
  });

  it('offline replicas count as not online in later elections, until the broker registers again', async () => {
    await respond(FAILED, { 't-1': ErrorCode.KAFKA_STORAGE_ERROR.code });
    // t-1's leader dies: broker 2 is live, in the assignment, but its replica is in a failed dir.
    f.context.liveBrokers.delete(1);
    await ops.partitionStateMachine.handleStateChanges([t1], 'OfflinePartition');
    await ops.partitionStateMachine.triggerOnlinePartitionStateChange([t1]);
    expect(zk.node(t1)?.state.leader).toBe(3);
    // The broker bounces (a new registration): its replicas are online again until its LeaderAndIsr says otherwise.
    f.context.liveBrokers.set(1, brokerInfo(1));
    const registered = new Map<number, { info: BrokerInfo; epoch: number }>([1, 2, 3].map((id) => [id, { info: brokerInfo(id), epoch: f.context.brokerEpochs.get(id) ?? 0 }]));
    (registered.get(FAILED) as { epoch: number }).epoch += 1;
    const registry = { getAllBrokersAndEpochs: async () => registered } as unknown as BrokerRegistryZk;
    await new BrokerChangeHandler(ops, registry, getLogger('kafka.controller.KafkaController')).process();
    expect(f.context.replicasOnOfflineDirs.has(FAILED)).toBe(false);
    expect(f.context.isReplicaOnline(FAILED, t1)).toBe(true);
  });

  it('a replica of a topic being deleted fails its deletion instead of going offline', async () => {
    f.context.topicsToBeDeleted.add('t');
    f.context.setReplicaState(t0, FAILED, 'OfflineReplica');
    await respond(FAILED, { 't-0': ErrorCode.KAFKA_STORAGE_ERROR.code });
    expect(f.context.replicaState(t0, FAILED)).toBe('ReplicaDeletionIneligible');
    expect(f.context.topicsIneligibleForDeletion.has('t')).toBe(true);
  });
});
