import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk } from '../zk/controller-zk';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';
import { ControllerContext, PartitionState } from './controller-context';
import { ControllerRequestBatch } from './controller-request-batch';
import { controlledShutdownPartitionLeaderElection, ElectionResult, offlinePartitionLeaderElection, preferredReplicaPartitionLeaderElection, reassignPartitionLeaderElection } from './election';
import { csv, leaderAndIsr } from './scala-render';

export type ElectionStrategy =
  | { kind: 'OfflinePartitionLeaderElectionStrategy'; allowUnclean: boolean }
  | { kind: 'PreferredReplicaPartitionLeaderElectionStrategy' }
  | { kind: 'ControlledShutdownPartitionLeaderElectionStrategy' }
  | { kind: 'ReassignPartitionLeaderElectionStrategy'; targets: ReadonlyMap<string, readonly number[]> };

export function renderStrategy(s: ElectionStrategy): string {
  return s.kind === 'OfflinePartitionLeaderElectionStrategy' ? `${s.kind}(${s.allowUnclean})` : s.kind;
}

/**
 * Legal previous states of each partition state (Kafka's PartitionStateMachine):
 *   NewPartition     <- NonExistentPartition             (assignment known, no leader yet)
 *   OnlinePartition  <- New, Online, Offline             (from New: first live replica leads, ISR = live replicas;
 *                                                         otherwise a leader is elected by a strategy)
 *   OfflinePartition <- New, Online, Offline             (leader gone; marked only)
 *   NonExistentPartition <- Offline                      (topic deleted; marked only)
 */
const VALID_PREVIOUS: Record<PartitionState, readonly PartitionState[]> = {
  NewPartition: ['NonExistentPartition'],
  OnlinePartition: ['NewPartition', 'OnlinePartition', 'OfflinePartition'],
  OfflinePartition: ['NewPartition', 'OnlinePartition', 'OfflinePartition'],
  NonExistentPartition: ['OfflinePartition'],
};

/** The ZooKeeper operations the partition state machine uses (narrow, so tests can fake them). */
export type PartitionStateMachineZk = Pick<ControllerZk, 'getPartitionState' | 'createPartitionState' | 'updatePartitionState'>;

export interface PartitionStateMachineDeps {
  controllerId: number;
  context: ControllerContext;
  zk: PartitionStateMachineZk;
  batch: ControllerRequestBatch;
  /** Broker default and topic override of unclean.leader.election.enable. */
  uncleanLeaderElectionEnabled: (topic: string) => Promise<boolean>;
}

export class PartitionStateMachine {
  private readonly log: Logger;
  private readonly stateChangeLog: Logger;

  constructor(private readonly deps: PartitionStateMachineDeps) {
    this.log = getLogger('kafka.controller.ZkPartitionStateMachine', `[PartitionStateMachine controllerId=${deps.controllerId}] `);
    this.stateChangeLog = getLogger('state.change.logger');
  }

  private get scLog(): Logger {
    return this.stateChangeLog.withPrefix(`[Controller id=${this.deps.controllerId} epoch=${this.deps.context.epoch}] `);
  }

  async startup(): Promise<void> {
    this.log.info('Initializing partition state');
    const { context } = this.deps;
    for (const tp of context.allPartitions()) {
      const entry = context.leadership.get(tpString(tp));
      if (entry === undefined) context.partitionStates.set(tpString(tp), 'NewPartition');
      else context.partitionStates.set(tpString(tp), context.isReplicaOnline(entry.state.leader, tp) ? 'OnlinePartition' : 'OfflinePartition');
    }
    this.log.info('Triggering online partition state changes');
    await this.triggerOnlinePartitionStateChange();
    if (this.log.isDebugEnabled()) {
      const states = [...context.partitionStates].map(([tp, s]) => `${tp} -> ${s}`).join(', ');
      this.log.debug(`Started partition state machine with initial state -> HashMap(${states})`);
    }
  }

  shutdown(): void {
    this.log.info('Stopped partition state machine');
  }

  /** Every New or Offline partition (of topics not being deleted) is taken Online if it can get a leader. */
  async triggerOnlinePartitionStateChange(partitions?: readonly TopicPartition[]): Promise<void> {
    const { context } = this.deps;
    const candidates = (partitions ?? context.allPartitions()).filter((tp) => {
      const s = context.partitionState(tp);
      return (s === 'NewPartition' || s === 'OfflinePartition') && !context.isTopicQueuedForDeletion(tp.topic);
    });
    if (candidates.length === 0) return;
    this.deps.batch.newBatch();
    try {
      await this.doHandleStateChanges(candidates, 'OnlinePartition', { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false });
    } finally {
      this.deps.batch.sendRequestsToBrokers(context.epoch);
    }
  }

  /** One state change for many partitions, with its requests sent as one batch. Returns the partitions that failed. */
  async handleStateChanges(partitions: readonly TopicPartition[], target: PartitionState, strategy?: ElectionStrategy): Promise<TopicPartition[]> {
    if (partitions.length === 0) return [];
    this.deps.batch.newBatch();
    try {
      return await this.doHandleStateChanges(partitions, target, strategy);
    } finally {
      this.deps.batch.sendRequestsToBrokers(this.deps.context.epoch);
    }
  }

  private async doHandleStateChanges(partitions: readonly TopicPartition[], target: PartitionState, strategy?: ElectionStrategy): Promise<TopicPartition[]> {
    const { context } = this.deps;
    const failed: TopicPartition[] = [];
    const valid = partitions.filter((tp) => {
      const current = context.partitionState(tp);
      if (VALID_PREVIOUS[target].includes(current)) return true;
      this.logInvalidTransition(tp, current, target);
      failed.push(tp);
      return false;
    });
    if (target === 'NewPartition') {
      for (const tp of valid) {
        this.scLog.info(`Changed partition ${tpString(tp)} state from ${context.partitionState(tp)} to NewPartition with assigned replicas ${csv(context.replicasFor(tp))}`);
        context.partitionStates.set(tpString(tp), 'NewPartition');
      }
    } else if (target === 'OnlinePartition') {
      const fresh = valid.filter((tp) => context.partitionState(tp) === 'NewPartition');
      const existing = valid.filter((tp) => context.partitionState(tp) !== 'NewPartition');
      failed.push(...(await this.initializeLeaderAndIsr(fresh)));
      if (existing.length > 0) failed.push(...(await this.electLeaders(existing, strategy ?? { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false })));
    } else {
      for (const tp of valid) {
        this.scLog.trace(`Changed partition ${tpString(tp)} state from ${context.partitionState(tp)} to ${target}`);
        context.partitionStates.set(tpString(tp), target);
      }
    }
    return failed;
  }

  private logInvalidTransition(tp: TopicPartition, current: PartitionState, target: PartitionState): void {
    const { controllerId, context } = this.deps;
    this.scLog.error(
      `Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from ${current} to ${target}`,
      new Error(`Partition ${tpString(tp)} should be in one of ${VALID_PREVIOUS[target].join(', ')} states before moving to ${target} state. Instead it is in ${current} state`),
    );
  }

  /** New partitions: leader = first live replica in assignment order, ISR = the live replicas. */
  private async initializeLeaderAndIsr(partitions: readonly TopicPartition[]): Promise<TopicPartition[]> {
    const { context, zk, batch, controllerId } = this.deps;
    const failed: TopicPartition[] = [];
    const live = context.liveBrokerIds();
    for (const tp of partitions) {
      const replicas = context.replicasFor(tp);
      const liveReplicas = replicas.filter((r) => context.isReplicaOnline(r, tp));
      if (liveReplicas.length === 0) {
        this.scLog.error(
          `Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from NewPartition to OnlinePartition`,
          new Error(
            `Controller ${controllerId} epoch ${context.epoch} encountered error during state change of partition ${tpString(tp)} from New to Online, assigned replicas are [${csv(replicas)}], live brokers are [${csv([...live].sort((a, b) => a - b))}]. No assigned replica is alive.`,
          ),
        );
        failed.push(tp);
        continue;
      }
      const state: LeaderIsrAndControllerEpoch = { leader: liveReplicas[0] as number, leaderEpoch: 0, isr: liveReplicas, controllerEpoch: context.epoch };
      if (!(await zk.createPartitionState(tp.topic, tp.partition, state))) {
        // Another controller (or an earlier attempt of ours) already initialised it: take what is there.
        const current = await zk.getPartitionState(tp.topic, tp.partition);
        if (current === null || current.state.controllerEpoch > context.epoch) {
          this.scLog.error(`Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from NewPartition to OnlinePartition`, new Error('Leader and isr path written by another controller'));
          failed.push(tp);
          continue;
        }
        context.leadership.set(tpString(tp), { state: current.state, zkVersion: current.zkVersion });
        context.partitionStates.set(tpString(tp), 'OfflinePartition');
        failed.push(...(await this.electLeaders([tp], { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false })));
        continue;
      }
      context.leadership.set(tpString(tp), { state, zkVersion: 0 });
      batch.addLeaderAndIsrRequestForBrokers(liveReplicas, tp, true);
      this.scLog.info(`Changed partition ${tpString(tp)} from NewPartition to OnlinePartition with state ${leaderAndIsr(state, 0)}`);
      context.partitionStates.set(tpString(tp), 'OnlinePartition');
    }
    return failed;
  }

  /** Elects leaders with a strategy and writes them conditionally, retrying after concurrent ISR writes. */
  private async electLeaders(partitions: readonly TopicPartition[], strategy: ElectionStrategy): Promise<TopicPartition[]> {
    const failed: TopicPartition[] = [];
    let remaining = [...partitions];
    for (let attempt = 0; remaining.length > 0 && attempt < 10; attempt++) {
      if (attempt > 0) this.log.info(`Retrying leader election with strategy ${renderStrategy(strategy)} for partitions ${remaining.map(tpString).join(', ')}`);
      const retry: TopicPartition[] = [];
      for (const tp of remaining) {
        const outcome = await this.electLeader(tp, strategy);
        if (outcome === 'retry') retry.push(tp);
        else if (outcome === 'failed') failed.push(tp);
      }
      remaining = retry;
    }
    return [...failed, ...remaining];
  }

  private async electLeader(tp: TopicPartition, strategy: ElectionStrategy): Promise<'done' | 'failed' | 'retry'> {
    const { context, zk, batch } = this.deps;
    const current = await zk.getPartitionState(tp.topic, tp.partition);
    const previous = context.partitionState(tp);
    if (current === null) {
      this.failElection(tp, previous, new Error(`LeaderAndIsr for partition ${tpString(tp)} is not in zookeeper`));
      return 'failed';
    }
    if (current.state.controllerEpoch > context.epoch) {
      this.failElection(
        tp,
        previous,
        new Error(
          `Leader and isr path written by another controller. This probably means the current controller with epoch ${context.epoch} went through a soft failure and another controller was elected with epoch ${current.state.controllerEpoch}. Aborting state change by this controller`,
        ),
      );
      return 'failed';
    }
    const replicas = context.replicasFor(tp);
    const isr = current.state.isr;
    let result: ElectionResult | null;
    let recipients: number[];
    switch (strategy.kind) {
      case 'OfflinePartitionLeaderElectionStrategy': {
        const unclean = strategy.allowUnclean || (await this.deps.uncleanLeaderElectionEnabled(tp.topic));
        result = offlinePartitionLeaderElection(replicas, isr, context.onlineReplicas(tp), unclean);
        recipients = replicas.filter((r) => context.isReplicaOnline(r, tp));
        break;
      }
      case 'PreferredReplicaPartitionLeaderElectionStrategy':
        result = preferredReplicaPartitionLeaderElection(replicas, isr, context.onlineReplicas(tp));
        recipients = replicas.filter((r) => context.isReplicaOnline(r, tp));
        break;
      case 'ControlledShutdownPartitionLeaderElectionStrategy':
        result = controlledShutdownPartitionLeaderElection(replicas, isr, context.onlineReplicas(tp, true), context.shuttingDownBrokerIds);
        recipients = replicas.filter((r) => context.isReplicaOnline(r, tp, true));
        break;
      case 'ReassignPartitionLeaderElectionStrategy': {
        const targets = strategy.targets.get(tpString(tp)) ?? replicas;
        result = reassignPartitionLeaderElection(targets, isr, new Set(targets.filter((r) => context.isReplicaOnline(r, tp))));
        recipients = targets.filter((r) => context.isReplicaOnline(r, tp));
        break;
      }
    }
    if (result === null) {
      context.leadership.set(tpString(tp), { state: current.state, zkVersion: current.zkVersion });
      this.failElection(tp, previous, new Error(`Failed to elect leader for partition ${tpString(tp)} under strategy ${renderStrategy(strategy)}`));
      return 'failed';
    }
    const state: LeaderIsrAndControllerEpoch = { leader: result.leader, leaderEpoch: current.state.leaderEpoch + 1, isr: result.isr, controllerEpoch: context.epoch };
    const zkVersion = await zk.updatePartitionState(tp.topic, tp.partition, state, current.zkVersion);
    if (zkVersion === null) return 'retry';
    context.leadership.set(tpString(tp), { state, zkVersion });
    batch.addLeaderAndIsrRequestForBrokers(recipients, tp, false);
    this.scLog.info(`Changed partition ${tpString(tp)} from ${previous} to OnlinePartition with state ${leaderAndIsr(state, zkVersion)}`);
    context.partitionStates.set(tpString(tp), 'OnlinePartition');
    return 'done';
  }

  private failElection(tp: TopicPartition, previous: PartitionState, cause: Error): void {
    const { controllerId, context } = this.deps;
    this.scLog.error(`Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from ${previous} to OnlinePartition`, cause);
  }
}
