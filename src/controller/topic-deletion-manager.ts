import { ErrorCode } from '../common/error-codes';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk } from '../zk/controller-zk';
import { ControllerContext } from './controller-context';
import { ControllerRequestBatch, PartitionError } from './controller-request-batch';
import { PartitionStateMachine } from './partition-state-machine';
import { PartitionReplica, ReplicaStateMachine } from './replica-state-machine';
import { csv, hashSet, scalaSet } from './scala-render';

/**
 * Kafka's TopicDeletionManager: a topic queued in /admin/delete_topics has its partitions taken offline and
 * out of every broker's metadata (UpdateMetadata with leader -2), its live replicas stopped and deleted
 * (StopReplica delete=false, then delete=true), and, when every replica reports success, its znodes removed.
 * Replicas on dead brokers make the topic ineligible until they come back.
 */
export class TopicDeletionManager {
  private readonly log: Logger;

  constructor(
    controllerId: number,
    private readonly deleteTopicEnabled: boolean,
    private readonly context: ControllerContext,
    private readonly zk: ControllerZk,
    private readonly batch: ControllerRequestBatch,
    private readonly partitionStateMachine: PartitionStateMachine,
    private readonly replicaStateMachine: ReplicaStateMachine,
  ) {
    this.log = getLogger('kafka.controller.TopicDeletionManager', `[Topic Deletion Manager ${controllerId}] `);
  }

  async init(initialDeletions: readonly string[], ineligible: readonly string[]): Promise<void> {
    this.log.info(`Initializing manager with initial deletions: ${scalaSet(initialDeletions)}, initial ineligible deletions: ${hashSet(ineligible)}`);
    if (!this.deleteTopicEnabled) {
      await this.zk.deleteTopicDeletionNodes(initialDeletions);
      return;
    }
    for (const t of initialDeletions) this.context.topicsToBeDeleted.add(t);
    for (const t of ineligible) this.context.topicsIneligibleForDeletion.add(t);
  }

  async enqueueTopicsForDeletion(topics: readonly string[]): Promise<void> {
    if (!this.deleteTopicEnabled) return;
    for (const t of topics) this.context.topicsToBeDeleted.add(t);
    await this.resumeDeletions();
  }

  /** After a broker comes back: its replicas of topics being deleted may be retried. */
  async resumeDeletionForTopics(topics: readonly string[]): Promise<void> {
    const retry = topics.filter((t) => this.context.topicsToBeDeleted.has(t));
    for (const t of retry) {
      this.context.topicsIneligibleForDeletion.delete(t);
      const ineligible = this.replicasOf(t).filter((pr) => this.context.replicaState(pr.tp, pr.replica) === 'ReplicaDeletionIneligible');
      await this.replicaStateMachine.handleStateChanges(ineligible, 'OfflineReplica');
    }
    if (retry.length > 0) await this.resumeDeletions();
  }

  markTopicIneligibleForDeletion(topics: readonly string[], reason: string): void {
    const marked = topics.filter((t) => this.context.topicsToBeDeleted.has(t));
    for (const t of marked) this.context.topicsIneligibleForDeletion.add(t);
    if (marked.length > 0) this.log.info(`Halted deletion of topics ${csv(marked)} due to ${reason}`);
  }

  /** Called with the per-partition results of a StopReplica(delete=true) from one broker. */
  async completeReplicaDeletion(brokerId: number, partitionErrors: readonly PartitionError[]): Promise<void> {
    const failed: PartitionReplica[] = [];
    const succeeded: PartitionReplica[] = [];
    for (const { tp, errorCode } of partitionErrors) {
      if (this.context.replicaState(tp, brokerId) !== 'ReplicaDeletionStarted') continue;
      (errorCode === ErrorCode.NONE.code ? succeeded : failed).push({ tp, replica: brokerId });
    }
    if (failed.length > 0) {
      await this.replicaStateMachine.handleStateChanges(failed, 'ReplicaDeletionIneligible');
      this.markTopicIneligibleForDeletion([...new Set(failed.map((pr) => pr.tp.topic))], 'replica deletion failure');
    }
    await this.replicaStateMachine.handleStateChanges(succeeded, 'ReplicaDeletionSuccessful');
    await this.resumeDeletions();
  }

  async resumeDeletions(): Promise<void> {
    const topics = [...this.context.topicsToBeDeleted];
    if (topics.length === 0) return;
    this.log.info(`Handling deletion for topics ${csv(topics)}`);
    for (const topic of topics) {
      const replicas = this.replicasOf(topic);
      if (replicas.every((pr) => this.context.replicaState(pr.tp, pr.replica) === 'ReplicaDeletionSuccessful')) {
        await this.completeDeleteTopic(topic);
      } else if (replicas.some((pr) => this.context.replicaState(pr.tp, pr.replica) === 'ReplicaDeletionStarted')) {
        continue;
      } else if (!this.context.topicsIneligibleForDeletion.has(topic)) {
        await this.onTopicDeletion(topic);
      }
    }
  }

  private replicasOf(topic: string): PartitionReplica[] {
    return this.context.partitionsForTopic(topic).flatMap((tp) => this.context.replicasFor(tp).map((replica) => ({ tp, replica })));
  }

  private async onTopicDeletion(topic: string): Promise<void> {
    this.log.info(`Deletion of topic ${topic} (re)started`);
    const partitions: TopicPartition[] = this.context.partitionsForTopic(topic);
    // Brokers drop the partitions from their metadata first, so clients stop producing to them.
    this.batch.newBatch();
    this.batch.addUpdateMetadataRequestForBrokers(this.context.liveOrShuttingDownBrokerIds(), partitions);
    this.batch.sendRequestsToBrokers(this.context.epoch);
    await this.partitionStateMachine.handleStateChanges(partitions, 'OfflinePartition');
    await this.partitionStateMachine.handleStateChanges(partitions, 'NonExistentPartition');
    const replicas = this.replicasOf(topic);
    const dead = replicas.filter((pr) => !this.context.liveBrokers.has(pr.replica));
    const live = replicas.filter((pr) => this.context.liveBrokers.has(pr.replica) && this.context.replicaState(pr.tp, pr.replica) !== 'ReplicaDeletionSuccessful');
    if (dead.length > 0) {
      await this.replicaStateMachine.handleStateChanges(dead.filter((pr) => this.context.replicaState(pr.tp, pr.replica) !== 'ReplicaDeletionIneligible'), 'OfflineReplica');
      await this.replicaStateMachine.handleStateChanges(dead, 'ReplicaDeletionIneligible');
      this.markTopicIneligibleForDeletion([topic], 'offline replicas');
    }
    await this.replicaStateMachine.handleStateChanges(live, 'OfflineReplica');
    await this.replicaStateMachine.handleStateChanges(live, 'ReplicaDeletionStarted');
  }

  private async completeDeleteTopic(topic: string): Promise<void> {
    const replicas = this.replicasOf(topic);
    await this.replicaStateMachine.handleStateChanges(replicas, 'NonExistentReplica');
    await this.zk.deleteTopicZNodes(topic);
    this.context.removeTopic(topic);
    for (const pr of replicas) this.context.partitionStates.delete(tpString(pr.tp));
    this.log.info(`Deletion of topic ${topic} successfully completed`);
  }
}
