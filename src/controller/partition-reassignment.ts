import { ErrorCode, errorName } from '../common/error-codes';
import { Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerMovedError, ControllerZk } from '../zk/controller-zk';
import { ZkPaths } from '../zk/zk-paths';
import { ZkClient } from '../zk/zk-client';
import { PartitionReassignment as ZkReassignment, ReassignPartitionsZNode } from '../zk/znodes/admin-znodes';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';
import { ControllerOps } from './controller-ops';
import { PartitionReassignmentState } from './controller-context';
import type { ApiReassignment, OngoingReassignment, PartitionApiError } from './controller-events';
import { csv, leaderIsrAndControllerEpoch, scalaSet } from './scala-render';

/** Kafka's ReplicaAssignment: the full replica set (TRS ∪ ORS during a reassignment) with AR and RR. */
interface FullAssignment {
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

function renderAssignment(a: FullAssignment): string {
  return `ReplicaAssignment(replicas=${a.replicas.join(',')}, addingReplicas=${a.adding.join(',')}, removingReplicas=${a.removing.join(',')})`;
}

/** ReplicaAssignment.reassignTo: RS = (TRS ++ ORS).distinct, AR = RS − ORS, RR = RS − TRS. */
function assignmentOf(r: PartitionReassignmentState): FullAssignment {
  const replicas = [...new Set([...r.target, ...r.original])];
  return { replicas, adding: replicas.filter((b) => !r.original.includes(b)), removing: replicas.filter((b) => !r.target.includes(b)) };
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Why a reassignment's target replicas cannot be used, in the words of Kafka's validateReplicas; undefined if they
 * can. `seq` is how Scala printed the list: the API's replicas are an `ArrayBuffer` (a Java list's asScala.map),
 * the ZooKeeper node's a `List`.
 */
export function invalidTargetReplicas(replicas: readonly number[], seq = 'List'): string | undefined {
  if (replicas.length === 0) return 'Empty replica list specified in partition reassignment.';
  if (new Set(replicas).size !== replicas.length) return `Duplicate replica ids in partition reassignment replica list: ${seq}(${replicas.join(', ')})`;
  if (replicas.some((r) => r < 0)) return `Invalid broker id in replica list: ${seq}(${replicas.join(', ')})`;
  return undefined;
}

const PARTITION_DOES_NOT_EXIST = 'The partition does not exist.';

/**
 * Partition reassignment (Kafka 2.4+'s algorithm, KafkaController.onPartitionReassignment), requested through
 * the AlterPartitionReassignments API or the /admin/reassign_partitions node; the latest request for a partition
 * wins, whichever way it came. The assignment first grows to TRS ∪ ORS (written to /brokers/topics/<t> with
 * adding_replicas and removing_replicas) so the new replicas start fetching; once every target replica is in the
 * ISR, leadership moves into TRS if needed, the replicas no longer wanted are stopped and deleted, the assignment
 * becomes TRS, and the partition leaves the admin node. A cancellation is a reassignment back to ORS.
 */
export class PartitionReassignment {
  constructor(
    private readonly controller: ControllerOps,
    private readonly czk: ControllerZk,
    private readonly zk: ZkClient,
    private readonly log: Logger,
  ) {}

  /** The partition's full assignment as the controller knows it. */
  private fullAssignment(tp: TopicPartition): FullAssignment {
    const ctx = this.controller.context;
    const ongoing = ctx.partitionsBeingReassigned.get(tpString(tp));
    if (ongoing === undefined) return { replicas: ctx.replicasFor(tp), adding: [], removing: [] };
    const a = assignmentOf(ongoing);
    return { replicas: ctx.replicasFor(tp), adding: a.adding, removing: a.removing };
  }

  /** ORS: the replicas before the ongoing reassignment began, or the current ones. */
  private originReplicas(tp: TopicPartition): readonly number[] {
    const ctx = this.controller.context;
    return ctx.partitionsBeingReassigned.get(tpString(tp))?.original ?? ctx.replicasFor(tp);
  }

  /**
   * Reads the admin node and (re)starts each partition in it (Kafka's processZkPartitionReassignment); returns the
   * partitions it started. A partition already moving to the same target is left alone: the node's own rewrites
   * (partitions leaving it) fire its watch too.
   */
  async processZkPartitionReassignment(): Promise<Set<string>> {
    const started = new Set<string>();
    const node = await this.zk.getData(ZkPaths.reassignPartitions);
    if (node === null) return started;
    const ctx = this.controller.context;
    let requests: ZkReassignment[];
    try {
      requests = ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, node.data);
    } catch (err) {
      // Kafka 2.8 logs this and ignores the node, which then blocks every later reassignment: it goes instead.
      this.log.warn(`Ignoring partition reassignment due to invalid json: ${(err as Error).message}. Deleting zk path ${ZkPaths.reassignPartitions}`);
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
      return started;
    }
    const failed: { tp: TopicPartition; error: PartitionApiError }[] = [];
    for (const r of requests) {
      const tp = { topic: r.topic, partition: r.partition };
      const invalid = invalidTargetReplicas(r.replicas);
      if (invalid !== undefined) {
        // The checks of Kafka's validateReplicas (AlterPartitionReassignments), applied to the ZooKeeper request.
        failed.push({ tp, error: { tp, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT.code, errorMessage: invalid } });
        continue;
      }
      const ongoing = ctx.partitionsBeingReassigned.get(tpString(tp));
      if (ongoing !== undefined && sameList(ongoing.target, r.replicas)) continue;
      const error = await this.maybeTriggerPartitionReassignment({ tp, original: this.originReplicas(tp), target: r.replicas });
      if (error.errorCode === ErrorCode.NONE.code) started.add(tpString(tp));
      else failed.push({ tp, error });
    }
    if (failed.length > 0) {
      const rendered = failed.map((f) => `${tpString(f.tp)} -> ApiError(error=${errorName(f.error.errorCode)}, message=${f.error.errorMessage ?? 'null'})`).join(', ');
      this.log.warn(`Failed reassignment through zk with the following errors: HashMap(${rendered})`);
      const keys = new Set(failed.map((f) => tpString(f.tp)));
      await this.removeFromZk((tp) => keys.has(tpString(tp)));
    }
    return started;
  }

  /**
   * AlterPartitionReassignments (Kafka's processApiPartitionReassignment): each partition with replicas starts or
   * replaces a reassignment, each with null cancels its ongoing one. Any ZooKeeper-requested reassignment of the
   * same partitions is dropped from the admin node first: the latest request wins.
   */
  async processApiPartitionReassignment(reassignments: readonly ApiReassignment[]): Promise<PartitionApiError[]> {
    const results = new Map<string, PartitionApiError>();
    const toReassign = new Map<string, PartitionReassignmentState>();
    for (const { tp, replicas } of reassignments) {
      const key = tpString(tp);
      const invalid = replicas === null ? undefined : this.validateReplicas(tp, replicas);
      if (invalid !== undefined) {
        results.set(key, { tp, errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT.code, errorMessage: invalid });
        continue;
      }
      const built = this.maybeBuildReassignment(tp, replicas);
      if (built === undefined) results.set(key, { tp, errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS.code, errorMessage: null });
      else toReassign.set(key, built);
    }
    if (toReassign.size > 0) await this.removeFromZk((tp) => toReassign.has(tpString(tp)));
    for (const [key, r] of toReassign) results.set(key, await this.maybeTriggerPartitionReassignment(r));
    return [...results.values()];
  }

  /** ListPartitionReassignments: the named partitions (or all) that are being reassigned, with RS, AR and RR. */
  listPartitionReassignments(partitions: readonly TopicPartition[] | null): OngoingReassignment[] {
    const ctx = this.controller.context;
    const list = partitions ?? [...ctx.partitionsBeingReassigned.values()].map((r) => r.tp);
    const result: OngoingReassignment[] = [];
    for (const tp of list) {
      const a = this.fullAssignment(tp);
      if (a.adding.length > 0 || a.removing.length > 0) result.push({ tp, replicas: [...a.replicas], addingReplicas: [...a.adding], removingReplicas: [...a.removing] });
    }
    return result;
  }

  /**
   * After a failover (Kafka's initializePartitionReassignments): the admin node's reassignments first, then those
   * the API started, found in the topics' adding_replicas/removing_replicas.
   */
  async initializePartitionReassignments(): Promise<void> {
    const resumed = await this.processZkPartitionReassignment();
    for (const r of [...this.controller.context.partitionsBeingReassigned.values()]) {
      if (!resumed.has(tpString(r.tp))) await this.onPartitionReassignment(r);
    }
  }

  /** Kafka's validateReplicas for an API request. */
  private validateReplicas(tp: TopicPartition, replicas: readonly number[]): string | undefined {
    const invalid = invalidTargetReplicas(replicas, 'ArrayBuffer');
    if (invalid !== undefined) return invalid;
    const { adding } = assignmentOf({ tp, original: this.originReplicas(tp), target: replicas });
    const live = this.controller.context.liveBrokerIds();
    if (adding.every((b) => live.has(b))) return undefined;
    return `Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(${adding.join(', ')}), live broker list: ${scalaSet([...live].sort((a, b) => a - b))}`;
  }

  /** Kafka's maybeBuildReassignment: a cancellation (target null) targets ORS, and only exists while one is ongoing. */
  private maybeBuildReassignment(tp: TopicPartition, target: readonly number[] | null): PartitionReassignmentState | undefined {
    const ongoing = this.controller.context.partitionsBeingReassigned.get(tpString(tp));
    if (ongoing !== undefined) return { tp, original: ongoing.original, target: target ?? ongoing.original };
    return target === null ? undefined : { tp, original: this.originReplicas(tp), target };
  }

  private async maybeTriggerPartitionReassignment(r: PartitionReassignmentState): Promise<PartitionApiError> {
    const ctx = this.controller.context;
    const tp = r.tp;
    if (ctx.isTopicQueuedForDeletion(tp.topic)) {
      this.log.info(`Skipping reassignment of ${tpString(tp)} since the topic is currently being deleted`);
      return { tp, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, errorMessage: PARTITION_DOES_NOT_EXIST };
    }
    if (ctx.replicasFor(tp).length === 0) return { tp, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, errorMessage: PARTITION_DOES_NOT_EXIST };
    try {
      await this.onPartitionReassignment(r);
      return { tp, errorCode: ErrorCode.NONE.code, errorMessage: null };
    } catch (err) {
      if (err instanceof ControllerMovedError) {
        this.log.info(`Failed completing reassignment of partition ${tpString(tp)} because controller has moved to another broker`);
        throw err;
      }
      this.log.error(`Error completing reassignment of partition ${tpString(tp)}`, err);
      return { tp, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: null };
    }
  }

  /** Kafka's onPartitionReassignment: phase A while TRS is not all in the ISR, else phase B at once. */
  private async onPartitionReassignment(r: PartitionReassignmentState): Promise<void> {
    this.controller.topicDeletionManager.markTopicIneligibleForDeletion([r.tp.topic], 'topic reassignment in progress');
    await this.updateCurrentReassignment(r);
    if (await this.isReassignmentComplete(r)) {
      await this.completeReassignment(r);
      return;
    }
    const a = assignmentOf(r);
    // A1: a new leader epoch tells every replica, old and new, about the grown assignment.
    const state = await this.bumpLeaderEpoch(r.tp);
    if (state !== undefined) {
      this.controller.stateChangeLogger().info(
        `Sent LeaderAndIsr request ${leaderIsrAndControllerEpoch(state.state, state.zkVersion)} with new replica assignment ${renderAssignment(a)} to leader ${state.state.leader} for partition being reassigned ${tpString(r.tp)}`,
      );
    }
    // A2: the adding replicas start as NewReplica.
    await this.controller.replicaStateMachine.handleStateChanges(a.adding.map((replica) => ({ tp: r.tp, replica })), 'NewReplica');
  }

  /**
   * Kafka's updateCurrentReassignment: writes RS, AR and RR (U1, U2) when they change; replicas of a replaced
   * reassignment that the new one does not keep are stopped and deleted at once.
   */
  private async updateCurrentReassignment(r: PartitionReassignmentState): Promise<void> {
    const ctx = this.controller.context;
    const current = this.fullAssignment(r.tp);
    const next = assignmentOf(r);
    if (!sameList(current.replicas, next.replicas) || !sameList(current.adding, next.adding) || !sameList(current.removing, next.removing)) {
      this.log.debug(`Updating assignment of partition ${tpString(r.tp)} from ${renderAssignment(current)} to ${renderAssignment(next)}`);
      await this.writeAssignment(r.tp, next.replicas, next.adding, next.removing);
      ctx.setReplicas(r.tp, [...next.replicas]);
      ctx.partitionsBeingReassigned.set(tpString(r.tp), r);
      const unneeded = current.replicas.filter((b) => !next.replicas.includes(b));
      if (unneeded.length > 0) await this.stopRemovedReplicasOfReassignment(r.tp, unneeded);
    }
    ctx.partitionsBeingReassigned.set(tpString(r.tp), r);
  }

  /** Kafka's isReassignmentComplete: nothing to add or remove, or every target replica is in the ISR. */
  private async isReassignmentComplete(r: PartitionReassignmentState): Promise<boolean> {
    const a = assignmentOf(r);
    if (a.adding.length === 0 && a.removing.length === 0) return true;
    const current = await this.czk.getPartitionState(r.tp.topic, r.tp.partition);
    if (current === null) return false;
    this.controller.context.leadership.set(tpString(r.tp), current);
    return r.target.every((b) => current.state.isr.includes(b));
  }

  /** Called after ISR changes: finishes the reassignments whose targets have all caught up. */
  async onIsrChange(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const r = this.controller.context.partitionsBeingReassigned.get(tpString(tp));
      if (r === undefined || !(await this.isReassignmentComplete(r))) continue;
      this.log.info(`Target replicas ${csv(r.target)} have all caught up with the leader for reassigning partition ${tpString(tp)}`);
      await this.completeReassignment(r);
    }
  }

  /** Phase B (B1-B8 of Kafka's onPartitionReassignment). */
  private async completeReassignment(r: PartitionReassignmentState): Promise<void> {
    const ctx = this.controller.context;
    const { adding, removing } = assignmentOf(r);
    await this.controller.replicaStateMachine.handleStateChanges(adding.map((replica) => ({ tp: r.tp, replica })), 'OnlineReplica');
    ctx.setReplicas(r.tp, [...r.target]);
    const current = await this.czk.getPartitionState(r.tp.topic, r.tp.partition);
    if (current !== null) {
      ctx.leadership.set(tpString(r.tp), current);
      const leader = current.state.leader;
      if (!r.target.includes(leader) || !ctx.isReplicaOnline(leader, r.tp)) {
        this.log.info(`Leader ${leader} for partition ${tpString(r.tp)} being reassigned, is not in the new list of replicas ${csv(r.target)}. Re-electing leader`);
        await this.controller.partitionStateMachine.handleStateChanges([r.tp], 'OnlinePartition', { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map([[tpString(r.tp), r.target]]) });
      } else {
        await this.bumpLeaderEpoch(r.tp);
      }
    }
    await this.stopRemovedReplicasOfReassignment(r.tp, removing);
    await this.writeAssignment(r.tp, r.target, [], []);
    this.log.info(`Successfully updated assignment of partition ${tpString(r.tp)} to ${renderAssignment({ replicas: r.target, adding: [], removing: [] })}`);
    // B7: the admin node keeps the partition only if it asks for something else.
    await this.removeFromZk((tp, replicas) => tpString(tp) === tpString(r.tp) && sameList(replicas, r.target));
    ctx.partitionsBeingReassigned.delete(tpString(r.tp));
    this.controller.sendUpdateMetadataRequest([...ctx.liveOrShuttingDownBrokerIds()], [r.tp]);
    await this.controller.topicDeletionManager.resumeDeletionForTopics([r.tp.topic]);
  }

  /** Kafka's stopRemovedReplicasOfReassignment: offline (out of the ISR), then deleted. */
  private async stopRemovedReplicasOfReassignment(tp: TopicPartition, removed: readonly number[]): Promise<void> {
    if (removed.length === 0) return;
    const replicas = removed.map((replica) => ({ tp, replica }));
    const rsm = this.controller.replicaStateMachine;
    await rsm.handleStateChanges(replicas, 'OfflineReplica');
    await rsm.handleStateChanges(replicas, 'ReplicaDeletionStarted');
    await rsm.handleStateChanges(replicas, 'ReplicaDeletionSuccessful');
    await rsm.handleStateChanges(replicas, 'NonExistentReplica');
  }

  /** A new leader epoch with the same leader and ISR, sent to every replica of the current assignment. */
  private async bumpLeaderEpoch(tp: TopicPartition): Promise<{ state: LeaderIsrAndControllerEpoch; zkVersion: number } | undefined> {
    const ctx = this.controller.context;
    for (let attempt = 0; attempt < 10; attempt++) {
      const current = await this.czk.getPartitionState(tp.topic, tp.partition);
      if (current === null) return undefined;
      const next: LeaderIsrAndControllerEpoch = { ...current.state, leaderEpoch: current.state.leaderEpoch + 1, controllerEpoch: ctx.epoch };
      const zkVersion = await this.czk.updatePartitionState(tp.topic, tp.partition, next, current.zkVersion);
      if (zkVersion === null) continue;
      ctx.leadership.set(tpString(tp), { state: next, zkVersion });
      this.log.info(`Updated leader epoch for partition ${tpString(tp)} to ${next.leaderEpoch}, zkVersion=${zkVersion}`);
      this.controller.sendLeaderAndIsr(ctx.replicasFor(tp).filter((b) => ctx.liveBrokers.has(b)), tp);
      return { state: next, zkVersion };
    }
    return undefined;
  }

  private async writeAssignment(tp: TopicPartition, replicas: readonly number[], adding: readonly number[], removing: readonly number[]): Promise<void> {
    const node = await this.czk.getTopicAssignment(tp.topic);
    if (node === null) return;
    const a = node.assignment;
    if (node.unreadable) {
      // Rewrite the whole assignment from what the controller knows, never a part of it.
      for (const other of this.controller.context.partitionsForTopic(tp.topic)) a.partitions.set(other.partition, [...this.controller.context.replicasFor(other)]);
    }
    a.partitions.set(tp.partition, [...replicas]);
    // As Kafka's updateReplicaAssignmentForPartition: the id the controller knows is written back.
    const topicId = this.controller.context.topicIds.get(tp.topic) ?? a.topicId;
    if (topicId !== undefined) a.topicId = topicId;
    if (adding.length > 0) a.addingReplicas.set(tp.partition, [...adding]);
    else a.addingReplicas.delete(tp.partition);
    if (removing.length > 0) a.removingReplicas.set(tp.partition, [...removing]);
    else a.removingReplicas.delete(tp.partition);
    await this.czk.setTopicAssignment(tp.topic, a, node.zkVersion);
  }

  /** Kafka's maybeRemoveFromZkReassignment: drops the entries `shouldRemove` picks from the admin node. */
  private async removeFromZk(shouldRemove: (tp: TopicPartition, replicas: readonly number[]) => boolean): Promise<void> {
    const node = await this.zk.getData(ZkPaths.reassignPartitions);
    if (node === null) return;
    let all: ZkReassignment[];
    try {
      all = ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, node.data);
    } catch (err) {
      this.log.warn(`Ignoring partition reassignment due to invalid json: ${(err as Error).message}. Deleting zk path ${ZkPaths.reassignPartitions}`);
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
      return;
    }
    const removing = all.filter((r) => shouldRemove({ topic: r.topic, partition: r.partition }, r.replicas));
    if (removing.length === 0) return;
    const remaining = all.filter((r) => !removing.includes(r));
    this.log.info(`Removing partitions HashMap(${removing.map((r) => `${tpString(r)} -> List(${r.replicas.join(', ')})`).join(', ')}) from the list of reassigned partitions in zookeeper`);
    if (remaining.length === 0) {
      this.log.info('No more partitions need to be reassigned. Deleting zk path /admin/reassign_partitions');
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
    } else {
      await this.zk.setData(ZkPaths.reassignPartitions, ReassignPartitionsZNode.encode(remaining), node.stat.version).catch(() => undefined);
    }
  }
}
