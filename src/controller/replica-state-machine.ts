import { asError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk, LeaderIsrWithVersion } from '../zk/controller-zk';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';
import { ControllerContext, ReplicaState } from './controller-context';
import { ControllerRequestBatch } from './controller-request-batch';
import { partitionStatesFor } from './partition-state-reads';
import { leaderIsrAndControllerEpoch, partitionAndReplica } from './scala-render';

export interface PartitionReplica {
  tp: TopicPartition;
  replica: number;
}

/**
 * Legal previous states of each replica state (Kafka's ReplicaStateMachine):
 *   NewReplica                <- NonExistent              (LeaderAndIsr to the new replica)
 *   OnlineReplica             <- New, Online, Offline, DeletionIneligible (LeaderAndIsr with the current state)
 *   OfflineReplica            <- New, Online, Offline, DeletionIneligible (StopReplica(delete=false); out of the ISR)
 *   ReplicaDeletionStarted    <- Offline                  (StopReplica(delete=true))
 *   ReplicaDeletionSuccessful <- DeletionStarted
 *   ReplicaDeletionIneligible <- Offline, DeletionStarted
 *   NonExistentReplica        <- DeletionSuccessful       (dropped from the assignment)
 */
const VALID_PREVIOUS: Record<ReplicaState, readonly ReplicaState[]> = {
  NewReplica: ['NonExistentReplica'],
  OnlineReplica: ['NewReplica', 'OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'],
  OfflineReplica: ['NewReplica', 'OnlineReplica', 'OfflineReplica', 'ReplicaDeletionIneligible'],
  ReplicaDeletionStarted: ['OfflineReplica'],
  ReplicaDeletionSuccessful: ['ReplicaDeletionStarted'],
  ReplicaDeletionIneligible: ['OfflineReplica', 'ReplicaDeletionStarted'],
  NonExistentReplica: ['ReplicaDeletionSuccessful'],
};

/** The ZooKeeper operations the replica state machine uses (narrow, so tests can fake them). */
export type ReplicaStateMachineZk = Pick<ControllerZk, 'getPartitionStates' | 'updatePartitionStates'>;

export interface ReplicaStateMachineDeps {
  controllerId: number;
  context: ControllerContext;
  zk: ReplicaStateMachineZk;
  batch: ControllerRequestBatch;
}

export class ReplicaStateMachine {
  private readonly log: Logger;
  private readonly stateChangeLog: Logger;
  private scLogCached: Logger | undefined;
  private scLogEpoch = -1;

  constructor(private readonly deps: ReplicaStateMachineDeps) {
    this.log = getLogger('kafka.controller.ZkReplicaStateMachine', `[ReplicaStateMachine controllerId=${deps.controllerId}] `);
    this.stateChangeLog = getLogger('state.change.logger');
  }

  /** The state-change logger with this epoch's prefix, made once per epoch: it is used once per partition. */
  private get scLog(): Logger {
    const epoch = this.deps.context.epoch;
    if (this.scLogEpoch !== epoch || this.scLogCached === undefined) {
      this.scLogCached = this.stateChangeLog.withPrefix(`[Controller id=${this.deps.controllerId} epoch=${epoch}] `);
      this.scLogEpoch = epoch;
    }
    return this.scLogCached;
  }

  async startup(): Promise<void> {
    this.log.info('Initializing replica state');
    const { context } = this.deps;
    const online: PartitionReplica[] = [];
    const offline: PartitionReplica[] = [];
    for (const tp of context.allPartitions()) {
      for (const replica of context.replicasFor(tp)) {
        if (context.isReplicaOnline(replica, tp)) {
          context.setReplicaState(tp, replica, 'OnlineReplica');
          online.push({ tp, replica });
        } else {
          context.setReplicaState(tp, replica, 'ReplicaDeletionIneligible');
          offline.push({ tp, replica });
        }
      }
    }
    this.log.info('Triggering online replica state changes');
    await this.handleStateChanges(online, 'OnlineReplica');
    this.log.info('Triggering offline replica state changes');
    await this.handleStateChanges(offline, 'OfflineReplica');
    if (this.log.isDebugEnabled()) {
      const states = [...context.replicaStates].map(([k, s]) => `${partitionAndReplica(k.slice(0, k.lastIndexOf(':')), Number(k.slice(k.lastIndexOf(':') + 1)))} -> ${s}`);
      this.log.debug(`Started replica state machine with initial state -> HashMap(${states.join(', ')})`);
    }
  }

  shutdown(): void {
    this.log.info('Stopped replica state machine');
  }

  async handleStateChanges(replicas: readonly PartitionReplica[], target: ReplicaState): Promise<void> {
    if (replicas.length === 0) return;
    this.deps.batch.newBatch();
    try {
      await this.doHandleStateChanges(replicas, target);
    } finally {
      this.deps.batch.sendRequestsToBrokers(this.deps.context.epoch);
    }
  }

  private async doHandleStateChanges(replicas: readonly PartitionReplica[], target: ReplicaState): Promise<void> {
    const { context, batch, controllerId } = this.deps;
    const offlineRemovals: { pr: PartitionReplica; current: ReplicaState }[] = [];
    // Kafka's trace lines are by-name: built only when state.change.logger is at TRACE (INFO by default).
    const scLog = this.scLog;
    const trace = scLog.isTraceEnabled();
    for (const pr of replicas) {
      const current = context.replicaState(pr.tp, pr.replica);
      if (!VALID_PREVIOUS[target].includes(current)) {
        this.scLog.error(
          `Controller ${controllerId} epoch ${context.epoch} initiated state change of replica ${pr.replica} for partition ${tpString(pr.tp)} from ${current} to ${target} failed`,
          new Error(`Replica ${pr.replica} for partition ${tpString(pr.tp)} should be in the ${VALID_PREVIOUS[target].join(',')} states before moving to ${target} state. Instead it is in ${current} state`),
        );
        continue;
      }
      const leadership = context.leadership.get(tpString(pr.tp));
      switch (target) {
        case 'NewReplica':
          if (leadership !== undefined && leadership.state.leader === pr.replica) {
            this.scLog.error(`Controller ${controllerId} epoch ${context.epoch} initiated state change of replica ${pr.replica} for partition ${tpString(pr.tp)} from ${current} to NewReplica failed`, new Error(`Replica ${pr.replica} for partition ${tpString(pr.tp)} cannot be moved to NewReplica state as it is being requested to become leader`));
            continue;
          }
          if (leadership !== undefined) batch.addLeaderAndIsrRequestForBrokers([pr.replica], pr.tp, true);
          break;
        case 'OnlineReplica':
          if (current === 'NewReplica') {
            const assigned = context.replicasFor(pr.tp);
            if (!assigned.includes(pr.replica)) context.setReplicas(pr.tp, [...assigned, pr.replica]);
          } else if (leadership !== undefined) {
            batch.addLeaderAndIsrRequestForBrokers([pr.replica], pr.tp, false);
          }
          break;
        case 'OfflineReplica':
          batch.addStopReplicaRequestForBrokers([pr.replica], pr.tp, false);
          if (leadership !== undefined) {
            // Offline once it is out of the ISR in ZooKeeper (below); until then it keeps its state.
            offlineRemovals.push({ pr, current });
            continue;
          }
          // No leader to tell; every broker's metadata still has to show the replica offline.
          batch.addUpdateMetadataRequestForBrokers(context.liveOrShuttingDownBrokerIds(), [pr.tp]);
          break;
        case 'ReplicaDeletionStarted':
          batch.addStopReplicaRequestForBrokers([pr.replica], pr.tp, true);
          break;
        case 'NonExistentReplica':
          context.setReplicas(pr.tp, context.replicasFor(pr.tp).filter((r) => r !== pr.replica));
          break;
        default:
          break;
      }
      if (trace) scLog.trace(`Changed state of replica ${pr.replica} for partition ${tpString(pr.tp)} from ${current} to ${target}`);
      context.setReplicaState(pr.tp, pr.replica, target);
    }
    const removed = await this.removeReplicasFromIsr(offlineRemovals.map(({ pr }) => pr));
    for (const { pr, current } of offlineRemovals) {
      if (!removed.has(pr)) continue;
      if (trace) scLog.trace(`Changed state of replica ${pr.replica} for partition ${tpString(pr.tp)} from ${current} to OfflineReplica`);
      context.setReplicaState(pr.tp, pr.replica, 'OfflineReplica');
    }
  }

  /**
   * Takes replicas out of the ISR in ZooKeeper (a leader becomes -1; a last ISR member stays, so the partition
   * remembers who had the data) and tells the other replicas, as Kafka's removeReplicasFromIsr: the states are read
   * together, the writes issued together, and those that met a newer zkVersion tried again. A replica that is not
   * in the ISR counts as removed too, with the state as read. Returns the replicas removed; the others failed (the
   * state znode is missing or was written by a newer controller, ZooKeeper failed, or conflicting writes outlasted
   * the retries), each logged.
   */
  private async removeReplicasFromIsr(replicas: readonly PartitionReplica[]): Promise<Set<PartitionReplica>> {
    const { context, zk, batch, controllerId } = this.deps;
    const removed = new Set<PartitionReplica>();
    const fail = (pr: PartitionReplica, reason: string): void => {
      this.scLog.error(
        `Controller ${controllerId} epoch ${context.epoch} initiated state change of replica ${pr.replica} for partition ${tpString(pr.tp)} from ${context.replicaState(pr.tp, pr.replica)} to OfflineReplica failed`,
        new Error(reason),
      );
    };
    const done = (pr: PartitionReplica, next: LeaderIsrAndControllerEpoch, zkVersion: number): void => {
      context.leadership.set(tpString(pr.tp), { state: next, zkVersion });
      this.scLog.info(`Partition ${tpString(pr.tp)} state changed to ${leaderIsrAndControllerEpoch(next, zkVersion)} after removing replica ${pr.replica} from the ISR as part of transition to OfflineReplica`);
      if (!context.isTopicQueuedForDeletion(pr.tp.topic)) {
        const others = context.replicasFor(pr.tp).filter((r) => r !== pr.replica && context.liveBrokers.has(r));
        batch.addLeaderAndIsrRequestForBrokers(others, pr.tp, false);
      }
      removed.add(pr);
    };
    // One replica per partition at a time: two of the same partition would conflict on its zkVersion.
    let pending = [...replicas];
    for (let attempt = 0; pending.length > 0 && attempt < 10; attempt++) {
      const seen = new Set<string>();
      const round: PartitionReplica[] = [];
      const later: PartitionReplica[] = [];
      for (const pr of pending) {
        const key = tpString(pr.tp);
        if (seen.has(key)) later.push(pr);
        else {
          seen.add(key);
          round.push(pr);
        }
      }
      const reads = await partitionStatesFor(zk, context, round.map((pr) => pr.tp), attempt === 0);
      const rereads: PartitionReplica[] = [];
      const writes: { pr: PartitionReplica; next: LeaderIsrAndControllerEpoch; expectedZkVersion: number }[] = [];
      round.forEach((pr, i) => {
        const read = reads[i] as PromiseSettledResult<LeaderIsrWithVersion | null>;
        if (read.status === 'rejected') return fail(pr, asError(read.reason).message);
        const current = read.value;
        if (current === null) {
          // A topic being deleted may already have lost its state znodes; that is not a failure.
          if (context.isTopicQueuedForDeletion(pr.tp.topic)) removed.add(pr);
          else fail(pr, `Failed to change state of replica ${pr.replica} for partition ${tpString(pr.tp)} since the leader and isr path in zookeeper is empty`);
          return;
        }
        if (current.state.controllerEpoch > context.epoch) {
          return fail(
            pr,
            `Leader and isr path written by another controller. This probably means the current controller with epoch ${context.epoch} went through a soft failure and another controller was elected with epoch ${current.state.controllerEpoch}. Aborting state change by this controller`,
          );
        }
        const { state } = current;
        if (!state.isr.includes(pr.replica)) {
          // Nothing is written, so nothing would check a cached state: the others hear the state as ZooKeeper has it.
          if (attempt === 0) return void rereads.push(pr);
          return done(pr, { ...state, controllerEpoch: context.epoch }, current.zkVersion);
        }
        const next = {
          leader: state.leader === pr.replica ? -1 : state.leader,
          leaderEpoch: state.leaderEpoch + 1,
          isr: state.isr.length === 1 ? state.isr : state.isr.filter((r) => r !== pr.replica),
          controllerEpoch: context.epoch,
        };
        writes.push({ pr, next, expectedZkVersion: current.zkVersion });
      });
      const written = await zk.updatePartitionStates(writes.map((w) => ({ topic: w.pr.tp.topic, partition: w.pr.tp.partition, state: w.next, expectedZkVersion: w.expectedZkVersion })));
      const retry: PartitionReplica[] = [];
      writes.forEach((w, i) => {
        const outcome = written[i] as PromiseSettledResult<number | null>;
        if (outcome.status === 'rejected') fail(w.pr, asError(outcome.reason).message);
        else if (outcome.value === null) retry.push(w.pr);
        else done(w.pr, w.next, outcome.value);
      });
      pending = [...rereads, ...retry, ...later];
    }
    for (const pr of pending) fail(pr, `Failed to remove replica ${pr.replica} from the ISR of partition ${tpString(pr.tp)}: the state znode kept changing`);
    return removed;
  }
}
