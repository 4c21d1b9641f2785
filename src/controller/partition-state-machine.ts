import { asError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk, LeaderIsrWithVersion } from '../zk/controller-zk';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';
import { ControllerContext, PartitionState } from './controller-context';
import { ControllerRequestBatch } from './controller-request-batch';
import { controlledShutdownPartitionLeaderElection, ElectionResult, offlinePartitionLeaderElection, preferredReplicaPartitionLeaderElection, reassignPartitionLeaderElection } from './election';
import { partitionStatesFor } from './partition-state-reads';
import { csv, leaderAndIsr } from './scala-render';
import type { ControllerStatsObserver } from './controller-stats';

export type ElectionStrategy =
  | { kind: 'OfflinePartitionLeaderElectionStrategy'; allowUnclean: boolean }
  | { kind: 'PreferredReplicaPartitionLeaderElectionStrategy' }
  | { kind: 'ControlledShutdownPartitionLeaderElectionStrategy' }
  | { kind: 'ReassignPartitionLeaderElectionStrategy'; targets: ReadonlyMap<string, readonly number[]> };

export function renderStrategy(s: ElectionStrategy): string {
  return s.kind === 'OfflinePartitionLeaderElectionStrategy' ? `${s.kind}(${s.allowUnclean})` : s.kind;
}

/**
 * Kafka's StateChangeFailedException: the partition cannot get a leader now (as opposed to a ZooKeeper error). An
 * admin-triggered election answers it with PREFERRED_LEADER_NOT_AVAILABLE or ELIGIBLE_LEADERS_NOT_AVAILABLE.
 */
export class StateChangeFailedError extends Error {
  override readonly name = 'StateChangeFailedException';
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
export type PartitionStateMachineZk = Pick<ControllerZk, 'createPartitionStates' | 'getPartitionStates' | 'updatePartitionStates'>;

export interface PartitionStateMachineDeps {
  controllerId: number;
  context: ControllerContext;
  zk: PartitionStateMachineZk;
  batch: ControllerRequestBatch;
  /** Broker default and topic override of unclean.leader.election.enable. */
  uncleanLeaderElectionEnabled: (topic: string) => Promise<boolean>;
  /** Counts unclean elections (ControllerStats' UncleanLeaderElectionsPerSec), when metrics are on. */
  stats?: Pick<ControllerStatsObserver, 'onUncleanLeaderElection'>;
}

export class PartitionStateMachine {
  private readonly log: Logger;
  private readonly stateChangeLog: Logger;
  private scLogCached: Logger | undefined;
  private scLogEpoch = -1;
  /** While electLeadersForAdmin runs: each failed partition's cause (Kafka's Left results). */
  private failureCauses: Map<string, Error> | undefined;

  constructor(private readonly deps: PartitionStateMachineDeps) {
    this.log = getLogger('kafka.controller.ZkPartitionStateMachine', `[PartitionStateMachine controllerId=${deps.controllerId}] `);
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

  /**
   * handleStateChanges to OnlinePartition with `strategy`, answering each failed partition's cause as Kafka's
   * handleStateChanges answers its Either results (for elections an admin client asked for). Runs on the
   * controller's event queue like every state change, so one call's causes never mix with another's.
   */
  async electLeadersForAdmin(partitions: readonly TopicPartition[], strategy: ElectionStrategy): Promise<Map<string, Error>> {
    this.failureCauses = new Map();
    try {
      const failed = await this.handleStateChanges(partitions, 'OnlinePartition', strategy);
      const causes = new Map<string, Error>();
      for (const tp of failed) {
        const key = tpString(tp);
        causes.set(key, this.failureCauses.get(key) ?? new StateChangeFailedError(`Failed to elect leader for partition ${key} under strategy ${renderStrategy(strategy)}`));
      }
      return causes;
    } finally {
      this.failureCauses = undefined;
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
      const trace = this.scLog.isTraceEnabled();
      for (const tp of valid) {
        if (trace) this.scLog.trace(`Changed partition ${tpString(tp)} state from ${context.partitionState(tp)} to ${target}`);
        context.partitionStates.set(tpString(tp), target);
      }
    }
    return failed;
  }

  private logInvalidTransition(tp: TopicPartition, current: PartitionState, target: PartitionState): void {
    const { controllerId, context } = this.deps;
    const cause = new Error(`Partition ${tpString(tp)} should be in one of ${VALID_PREVIOUS[target].join(', ')} states before moving to ${target} state. Instead it is in ${current} state`);
    this.failureCauses?.set(tpString(tp), cause);
    this.scLog.error(`Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from ${current} to ${target}`, cause);
  }

  /**
   * New partitions: leader = first live replica in assignment order, ISR = the live replicas. The state nodes are
   * created with their requests in flight together (Kafka 1.1's asynchronous ZooKeeper work); a ZooKeeper error
   * fails that partition's state change, as in Kafka, and the others go on.
   */
  private async initializeLeaderAndIsr(partitions: readonly TopicPartition[]): Promise<TopicPartition[]> {
    const { context, zk, batch, controllerId } = this.deps;
    const failed: TopicPartition[] = [];
    const live = context.liveBrokerIds();
    const toCreate: { tp: TopicPartition; liveReplicas: number[]; state: LeaderIsrAndControllerEpoch }[] = [];
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
      toCreate.push({ tp, liveReplicas, state: { leader: liveReplicas[0] as number, leaderEpoch: 0, isr: liveReplicas, controllerEpoch: context.epoch } });
    }
    if (toCreate.length === 0) return failed;
    const created = await zk.createPartitionStates(toCreate.map(({ tp, state }) => ({ topic: tp.topic, partition: tp.partition, state })));
    const existing: TopicPartition[] = [];
    toCreate.forEach(({ tp, liveReplicas, state }, i) => {
      const outcome = created[i] as PromiseSettledResult<boolean>;
      if (outcome.status === 'rejected') {
        this.failElection(tp, 'NewPartition', asError(outcome.reason));
        failed.push(tp);
      } else if (!outcome.value) {
        existing.push(tp);
      } else {
        context.leadership.set(tpString(tp), { state, zkVersion: 0 });
        batch.addLeaderAndIsrRequestForBrokers(liveReplicas, tp, true);
        this.scLog.info(`Changed partition ${tpString(tp)} from NewPartition to OnlinePartition with state ${leaderAndIsr(state, 0)}`);
        context.partitionStates.set(tpString(tp), 'OnlinePartition');
      }
    });
    if (existing.length === 0) return failed;
    // Another controller (or an earlier attempt of ours) already initialised them: take what is there and elect.
    const currents = await zk.getPartitionStates(existing);
    const toElect: TopicPartition[] = [];
    existing.forEach((tp, i) => {
      const outcome = currents[i] as PromiseSettledResult<LeaderIsrWithVersion | null>;
      const current = outcome.status === 'fulfilled' ? outcome.value : null;
      if (current === null || current.state.controllerEpoch > context.epoch) {
        this.failElection(tp, 'NewPartition', outcome.status === 'rejected' ? asError(outcome.reason) : new Error('Leader and isr path written by another controller'));
        failed.push(tp);
        return;
      }
      context.leadership.set(tpString(tp), { state: current.state, zkVersion: current.zkVersion });
      context.partitionStates.set(tpString(tp), 'OfflinePartition');
      toElect.push(tp);
    });
    failed.push(...(await this.electLeaders(toElect, { kind: 'OfflinePartitionLeaderElectionStrategy', allowUnclean: false })));
    return failed;
  }

  /**
   * Elects leaders with a strategy and writes them conditionally, retrying after concurrent ISR writes. As Kafka's
   * doElectLeaderForPartitions: all states read together, elections computed, all writes issued together, and
   * the partitions whose write met a newer zkVersion (BADVERSION) tried again.
   */
  private async electLeaders(partitions: readonly TopicPartition[], strategy: ElectionStrategy): Promise<TopicPartition[]> {
    const failed: TopicPartition[] = [];
    let remaining = [...partitions];
    const unclean = new Map<string, Promise<boolean>>();
    const uncleanFor = (topic: string): Promise<boolean> => {
      let p = unclean.get(topic);
      if (p === undefined) unclean.set(topic, (p = this.deps.uncleanLeaderElectionEnabled(topic)));
      return p;
    };
    for (let attempt = 0; remaining.length > 0 && attempt < 10; attempt++) {
      if (attempt > 0) this.log.info(`Retrying leader election with strategy ${renderStrategy(strategy)} for partitions ${remaining.map(tpString).join(', ')}`);
      const retry: TopicPartition[] = [];
      const reads = await partitionStatesFor(this.deps.zk, this.deps.context, remaining, attempt === 0);
      if (strategy.kind === 'OfflinePartitionLeaderElectionStrategy' && !strategy.allowUnclean) this.askUncleanTogether(remaining, reads, uncleanFor);
      const writes: { tp: TopicPartition; previous: PartitionState; state: LeaderIsrAndControllerEpoch; expectedZkVersion: number; recipients: number[] }[] = [];
      for (let i = 0; i < remaining.length; i++) {
        const tp = remaining[i] as TopicPartition;
        const read = reads[i] as PromiseSettledResult<LeaderIsrWithVersion | null>;
        const previous = this.deps.context.partitionState(tp);
        if (read.status === 'rejected') {
          this.failElection(tp, previous, asError(read.reason));
          failed.push(tp);
          continue;
        }
        const planned = await this.planElection(tp, read.value, strategy, uncleanFor, attempt === 0);
        if (planned === 'reread') retry.push(tp);
        else if (planned === null) failed.push(tp);
        else writes.push({ tp, previous, ...planned });
      }
      const written = await this.deps.zk.updatePartitionStates(writes.map((w) => ({ topic: w.tp.topic, partition: w.tp.partition, state: w.state, expectedZkVersion: w.expectedZkVersion })));
      writes.forEach((w, i) => {
        const outcome = written[i] as PromiseSettledResult<number | null>;
        if (outcome.status === 'rejected') {
          this.failElection(w.tp, w.previous, asError(outcome.reason));
          failed.push(w.tp);
        } else if (outcome.value === null) {
          retry.push(w.tp);
        } else {
          const { context, batch } = this.deps;
          context.leadership.set(tpString(w.tp), { state: w.state, zkVersion: outcome.value });
          batch.addLeaderAndIsrRequestForBrokers(w.recipients, w.tp, false);
          this.scLog.info(`Changed partition ${tpString(w.tp)} from ${w.previous} to OnlinePartition with state ${leaderAndIsr(w.state, outcome.value)}`);
          context.partitionStates.set(tpString(w.tp), 'OnlinePartition');
        }
      });
      remaining = retry;
    }
    return [...failed, ...remaining];
  }

  /**
   * Starts the unclean.leader.election.enable reads of every topic with a partition that has no live in-sync
   * replica, so that they are in flight together (Kafka's getLogConfigs for those topics) rather than one
   * round trip per topic as the elections come to them.
   */
  private askUncleanTogether(partitions: readonly TopicPartition[], reads: readonly PromiseSettledResult<LeaderIsrWithVersion | null>[], uncleanFor: (topic: string) => Promise<boolean>): void {
    const { context } = this.deps;
    partitions.forEach((tp, i) => {
      const read = reads[i];
      if (read?.status !== 'fulfilled' || read.value === null) return;
      if (!read.value.state.isr.some((r) => context.isReplicaOnline(r, tp))) uncleanFor(tp.topic).catch(() => undefined);
    });
  }

  /**
   * One partition's election from its state as read; null (logged) when it cannot have a leader now, 'reread'
   * when that was decided on a cached state (which no write would check).
   */
  private async planElection(
    tp: TopicPartition,
    current: LeaderIsrWithVersion | null,
    strategy: ElectionStrategy,
    uncleanFor: (topic: string) => Promise<boolean>,
    fromCache: boolean,
  ): Promise<{ state: LeaderIsrAndControllerEpoch; expectedZkVersion: number; recipients: number[] } | null | 'reread'> {
    const { context } = this.deps;
    const previous = context.partitionState(tp);
    if (current === null) {
      this.failElection(tp, previous, new StateChangeFailedError(`LeaderAndIsr for partition ${tpString(tp)} is not in zookeeper`));
      return null;
    }
    if (current.state.controllerEpoch > context.epoch) {
      this.failElection(
        tp,
        previous,
        new StateChangeFailedError(
          `Leader and isr path written by another controller. This probably means the current controller with epoch ${context.epoch} went through a soft failure and another controller was elected with epoch ${current.state.controllerEpoch}. Aborting state change by this controller`,
        ),
      );
      return null;
    }
    const replicas = context.replicasFor(tp);
    const isr = current.state.isr;
    let result: ElectionResult | null;
    let recipients: number[];
    switch (strategy.kind) {
      case 'OfflinePartitionLeaderElectionStrategy': {
        const online = context.onlineReplicas(tp);
        // The topic's config matters only without a live in-sync replica (Kafka's collectUncleanLeaderElectionState).
        const unclean = strategy.allowUnclean || (!isr.some((r) => online.has(r)) && (await uncleanFor(tp.topic)));
        const elected = offlinePartitionLeaderElection(replicas, isr, online, unclean);
        if (elected?.unclean === true) this.deps.stats?.onUncleanLeaderElection();
        result = elected;
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
      // No write would check a cached state: a failure is decided on what ZooKeeper holds.
      if (fromCache) return 'reread';
      context.leadership.set(tpString(tp), { state: current.state, zkVersion: current.zkVersion });
      this.failElection(tp, previous, new StateChangeFailedError(`Failed to elect leader for partition ${tpString(tp)} under strategy ${renderStrategy(strategy)}`));
      return null;
    }
    return { state: { leader: result.leader, leaderEpoch: current.state.leaderEpoch + 1, isr: result.isr, controllerEpoch: context.epoch }, expectedZkVersion: current.zkVersion, recipients };
  }

  private failElection(tp: TopicPartition, previous: PartitionState, cause: Error): void {
    const { controllerId, context } = this.deps;
    this.failureCauses?.set(tpString(tp), cause);
    this.scLog.error(`Controller ${controllerId} epoch ${context.epoch} failed to change state for partition ${tpString(tp)} from ${previous} to OnlinePartition`, cause);
  }
}
