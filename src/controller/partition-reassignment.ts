import { Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk } from '../zk/controller-zk';
import { ZkPaths } from '../zk/zk-paths';
import { ZkClient } from '../zk/zk-client';
import { ReassignPartitionsZNode } from '../zk/znodes/admin-znodes';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';
import { ControllerOps } from './controller-ops';
import { PartitionReassignmentState } from './controller-context';
import { csv, leaderIsrAndControllerEpoch } from './scala-render';

function replicaAssignment(replicas: readonly number[], adding: readonly number[], removing: readonly number[]): string {
  return `ReplicaAssignment(replicas=${replicas.join(',')}, addingReplicas=${adding.join(',')}, removingReplicas=${removing.join(',')})`;
}

/** Why a reassignment's target replicas cannot be used, in the words of Kafka's validateReplicas; undefined if they can. */
export function invalidTargetReplicas(replicas: readonly number[]): string | undefined {
  if (replicas.length === 0) return 'Empty replica list specified in partition reassignment.';
  if (new Set(replicas).size !== replicas.length) return `Duplicate replica ids in partition reassignment replica list: List(${replicas.join(', ')})`;
  if (replicas.some((r) => r < 0)) return `Invalid broker id in replica list: List(${replicas.join(', ')})`;
  return undefined;
}

/**
 * Partition reassignment requested through /admin/reassign_partitions (Kafka 2.4+'s algorithm, ZooKeeper-
 * triggered). The assignment first grows to TRS ∪ ORS so the new replicas start fetching; once every target
 * replica is in the ISR, leadership moves into TRS if needed, the replicas that are no longer wanted are stopped
 * and deleted, the assignment becomes TRS, and the partition leaves the admin node.
 */
export class PartitionReassignment {
  constructor(
    private readonly controller: ControllerOps,
    private readonly czk: ControllerZk,
    private readonly zk: ZkClient,
    private readonly log: Logger,
  ) {}

  /** Reads the admin node and starts every partition not already moving. */
  async processZkPartitionReassignment(): Promise<void> {
    const node = await this.zk.getData(ZkPaths.reassignPartitions);
    if (node === null) return;
    const ctx = this.controller.context;
    let requests;
    try {
      requests = ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, node.data);
    } catch (err) {
      // Kafka 2.8 logs this and ignores the node, which then blocks every later reassignment: it goes instead.
      this.log.warn(`Ignoring partition reassignment due to invalid json: ${(err as Error).message}. Deleting zk path ${ZkPaths.reassignPartitions}`);
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
      return;
    }
    for (const r of requests) {
      const tp = { topic: r.topic, partition: r.partition };
      const invalid = invalidTargetReplicas(r.replicas);
      if (invalid !== undefined) {
        // The checks of Kafka's validateReplicas (AlterPartitionReassignments), applied to the ZooKeeper request.
        this.log.warn(`Skipping reassignment of ${tpString(tp)}: ${invalid}`);
        await this.removeFromZk([tp]);
        continue;
      }
      const original = ctx.replicasFor(tp);
      if (original.length === 0 || ctx.isTopicQueuedForDeletion(r.topic)) {
        this.log.warn(`Skipping reassignment of ${tpString(tp)}: the partition does not exist or is being deleted`);
        await this.removeFromZk([tp]);
        continue;
      }
      if (this.controller.context.partitionsBeingReassigned.has(tpString(tp))) continue;
      if (r.replicas.join(',') === original.join(',')) {
        await this.removeFromZk([tp]);
        continue;
      }
      await this.start({ tp, original, target: r.replicas });
    }
  }

  private async start(r: PartitionReassignmentState): Promise<void> {
    const ctx = this.controller.context;
    const adding = r.target.filter((b) => !r.original.includes(b));
    const removing = r.original.filter((b) => !r.target.includes(b));
    const union = [...r.target, ...r.original.filter((b) => !r.target.includes(b))];
    this.controller.context.partitionsBeingReassigned.set(tpString(r.tp), r);
    await this.writeAssignment(r.tp, union, adding, removing);
    ctx.setReplicas(r.tp, union);
    // Phase A: a new leader epoch tells every replica, old and new, about the grown assignment.
    const state = await this.bumpLeaderEpoch(r.tp);
    await this.controller.replicaStateMachine.handleStateChanges(adding.map((replica) => ({ tp: r.tp, replica })), 'NewReplica');
    if (state !== undefined) {
      this.controller.stateChangeLogger().info(
        `Sent LeaderAndIsr request ${leaderIsrAndControllerEpoch(state.state, state.zkVersion)} with new replica assignment ${replicaAssignment(union, adding, removing)} to leader ${state.state.leader} for partition being reassigned ${tpString(r.tp)}`,
      );
    }
    await this.maybeComplete(r);
  }

  /** Called after ISR changes: finishes the reassignments whose targets have all caught up. */
  async onIsrChange(partitions: readonly TopicPartition[]): Promise<void> {
    for (const tp of partitions) {
      const r = this.controller.context.partitionsBeingReassigned.get(tpString(tp));
      if (r !== undefined) await this.maybeComplete(r);
    }
  }

  private async maybeComplete(r: PartitionReassignmentState): Promise<void> {
    const ctx = this.controller.context;
    const current = await this.czk.getPartitionState(r.tp.topic, r.tp.partition);
    if (current === null) return;
    ctx.leadership.set(tpString(r.tp), current);
    if (!r.target.every((b) => current.state.isr.includes(b))) return;
    this.log.info(`Target replicas ${csv(r.target)} have all caught up with the leader for reassigning partition ${tpString(r.tp)}`);
    const adding = r.target.filter((b) => !r.original.includes(b));
    const removing = r.original.filter((b) => !r.target.includes(b));
    await this.controller.replicaStateMachine.handleStateChanges(adding.map((replica) => ({ tp: r.tp, replica })), 'OnlineReplica');
    ctx.setReplicas(r.tp, [...r.target]);
    const leader = current.state.leader;
    if (!r.target.includes(leader) || !ctx.isReplicaOnline(leader, r.tp)) {
      this.log.info(`Leader ${leader} for partition ${tpString(r.tp)} being reassigned, is not in the new list of replicas ${csv(r.target)}. Re-electing leader`);
      await this.controller.partitionStateMachine.handleStateChanges([r.tp], 'OnlinePartition', { kind: 'ReassignPartitionLeaderElectionStrategy', targets: new Map([[tpString(r.tp), r.target]]) });
    } else {
      await this.bumpLeaderEpoch(r.tp);
    }
    const removed = removing.map((replica) => ({ tp: r.tp, replica }));
    await this.controller.replicaStateMachine.handleStateChanges(removed, 'OfflineReplica');
    await this.controller.replicaStateMachine.handleStateChanges(removed, 'ReplicaDeletionStarted');
    await this.controller.replicaStateMachine.handleStateChanges(removed, 'ReplicaDeletionSuccessful');
    await this.controller.replicaStateMachine.handleStateChanges(removed, 'NonExistentReplica');
    ctx.setReplicas(r.tp, [...r.target]);
    await this.writeAssignment(r.tp, r.target, [], []);
    this.log.info(`Successfully updated assignment of partition ${tpString(r.tp)} to ${replicaAssignment(r.target, [], [])}`);
    this.controller.context.partitionsBeingReassigned.delete(tpString(r.tp));
    await this.removeFromZk([r.tp]);
    this.controller.sendUpdateMetadataRequest([...ctx.liveOrShuttingDownBrokerIds()], [r.tp]);
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
    if (adding.length > 0) a.addingReplicas.set(tp.partition, [...adding]);
    else a.addingReplicas.delete(tp.partition);
    if (removing.length > 0) a.removingReplicas.set(tp.partition, [...removing]);
    else a.removingReplicas.delete(tp.partition);
    await this.czk.setTopicAssignment(tp.topic, a, node.zkVersion);
  }

  private async removeFromZk(done: readonly TopicPartition[]): Promise<void> {
    const node = await this.zk.getData(ZkPaths.reassignPartitions);
    if (node === null) return;
    const keys = new Set(done.map(tpString));
    let remaining;
    try {
      remaining = ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, node.data).filter((r) => !keys.has(tpString(r)));
    } catch (err) {
      this.log.warn(`Ignoring partition reassignment due to invalid json: ${(err as Error).message}. Deleting zk path ${ZkPaths.reassignPartitions}`);
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
      return;
    }
    this.log.info(`Removing partitions HashMap(${done.map((tp) => `${tpString(tp)} -> ...`).join(', ')}) from the list of reassigned partitions in zookeeper`);
    if (remaining.length === 0) {
      this.log.info('No more partitions need to be reassigned. Deleting zk path /admin/reassign_partitions');
      await this.czk.deleteIfExists(ZkPaths.reassignPartitions);
    } else {
      await this.zk.setData(ZkPaths.reassignPartitions, ReassignPartitionsZNode.encode(remaining), node.stat.version).catch(() => undefined);
    }
  }
}
