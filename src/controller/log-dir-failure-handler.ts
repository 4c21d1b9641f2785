import { ErrorCode, errorName } from '../common/error-codes';
import { Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { LogDirEventZk } from '../zk/log-dir-event-zk';
import { ControllerOps } from './controller-ops';
import { PartitionError } from './controller-request-batch';
import { PartitionReplica } from './replica-state-machine';
import { csv } from './scala-render';

/** The ZooKeeper calls the controller makes on `/log_dir_event_notification` (narrow, so tests can fake them). */
export type LogDirEventZkOps = Pick<LogDirEventZk, 'getAllLogDirEventNotifications' | 'getBrokerIdsFromLogDirEvents' | 'deleteLogDirEventNotifications'>;

/**
 * The controller's side of a failed log dir (Kafka's KafkaController: processLogDirEventNotification,
 * onBrokerLogDirFailure, processLeaderAndIsrResponseReceived, onReplicasBecomeOffline), run inside the
 * LogDirEventNotification and LeaderAndIsrResponseReceived events.
 *
 * A broker's notification makes the controller send it LeaderAndIsr for all its replicas (the current leadership,
 * no epoch bump); the broker answers KAFKA_STORAGE_ERROR for those in the failed dir. Those replicas go into
 * `replicasOnOfflineDirs` and count as not online: partitions they led get a new leader from the rest of the
 * ISR, the replicas become OfflineReplica (out of the ISR, StopReplica), and every broker's metadata lists them
 * in offlineReplicas. They stay offline until the broker registers again.
 */
export class LogDirFailureHandler {
  constructor(
    private readonly controller: ControllerOps,
    private readonly zk: LogDirEventZkOps,
    private readonly log: Logger,
  ) {}

  /** Kafka's processLogDirEventNotification: the notifications are deleted once processed, whatever happens. */
  async processLogDirEventNotification(): Promise<void> {
    const sequenceNumbers = await this.zk.getAllLogDirEventNotifications();
    if (sequenceNumbers.length === 0) return;
    try {
      const brokerIds = await this.zk.getBrokerIdsFromLogDirEvents(sequenceNumbers);
      await this.onBrokerLogDirFailure(brokerIds);
    } finally {
      await this.zk.deleteLogDirEventNotifications(sequenceNumbers);
    }
  }

  /** Kafka's onBrokerLogDirFailure: LeaderAndIsr for every replica on those brokers, to learn which are still online. */
  private async onBrokerLogDirFailure(brokerIds: readonly number[]): Promise<void> {
    this.log.info(`Handling log directory failure for brokers ${csv(brokerIds)}`);
    const replicas = this.controller.context.replicasOnBrokers(new Set(brokerIds));
    await this.controller.replicaStateMachine.handleStateChanges(replicas, 'OnlineReplica');
  }

  /**
   * Kafka's processLeaderAndIsrResponseReceived: KAFKA_STORAGE_ERROR partitions join the broker's offline
   * replicas, NONE ones leave them; the newly offline go through onReplicasBecomeOffline.
   */
  async processLeaderAndIsrResponseReceived(brokerId: number, errorCode: number, partitionErrors: readonly PartitionError[]): Promise<void> {
    const ctx = this.controller.context;
    if (errorCode !== ErrorCode.NONE.code) {
      const rendered = partitionErrors.map((e) => `LeaderAndIsrPartitionError(topicName='${e.tp.topic}', partitionIndex=${e.tp.partition}, errorCode=${e.errorCode})`).join(', ');
      this.controller.stateChangeLogger().error(`Received error ${errorName(errorCode)} in LeaderAndIsr response LeaderAndIsrResponseData(errorCode=${errorCode}, partitionErrors=[${rendered}]) from broker ${brokerId}`);
      return;
    }
    const offline = new Map<string, TopicPartition>();
    const online: TopicPartition[] = [];
    for (const { tp, errorCode: code } of partitionErrors) {
      if (code === ErrorCode.KAFKA_STORAGE_ERROR.code) offline.set(tpString(tp), tp);
      else if (code === ErrorCode.NONE.code) online.push(tp);
    }
    const previous = ctx.replicasOnOfflineDirs.get(brokerId) ?? new Set<string>();
    const current = new Set(previous);
    for (const tp of online) current.delete(tpString(tp));
    for (const key of offline.keys()) current.add(key);
    ctx.replicasOnOfflineDirs.set(brokerId, current);
    const newOffline = [...offline].filter(([key]) => !previous.has(key)).map(([, tp]) => tp);
    if (newOffline.length === 0) return;
    this.controller.stateChangeLogger().info(`Mark replicas ${newOffline.map(tpString).join(',')} on broker ${brokerId} as offline`);
    await this.onReplicasBecomeOffline(newOffline.map((tp) => ({ tp, replica: brokerId })));
  }

  /**
   * Kafka's onReplicasBecomeOffline: partitions whose leader is no longer online go offline and get a new leader
   * (OfflinePartitionLeaderElection over the online ISR members), the replicas become OfflineReplica (those of
   * topics being deleted fail their deletion instead), and if nothing changed a leader the brokers still get an
   * UpdateMetadata showing the offline replicas.
   */
  async onReplicasBecomeOffline(newOfflineReplicas: readonly PartitionReplica[]): Promise<void> {
    const { context: ctx, partitionStateMachine: psm, replicaStateMachine: rsm, topicDeletionManager: tdm } = this.controller;
    const forDeletion = newOfflineReplicas.filter((pr) => ctx.isTopicQueuedForDeletion(pr.tp.topic));
    const notForDeletion = newOfflineReplicas.filter((pr) => !ctx.isTopicQueuedForDeletion(pr.tp.topic));
    const withOfflineLeader = ctx.partitionsWithOfflineLeader();
    await psm.handleStateChanges(withOfflineLeader, 'OfflinePartition');
    await psm.triggerOnlinePartitionStateChange();
    await rsm.handleStateChanges(notForDeletion, 'OfflineReplica');
    if (forDeletion.length > 0) {
      // Kafka's failReplicaDeletion: a replica in a failed dir cannot be deleted; its topic waits.
      const topics = [...new Set(forDeletion.map((pr) => pr.tp.topic))];
      this.log.debug(`Deletion failed for replicas ${forDeletion.map((pr) => `${tpString(pr.tp)}:${pr.replica}`).join(',')}. Halting deletion for topics ${topics.join(',')}`);
      await rsm.handleStateChanges(forDeletion, 'ReplicaDeletionIneligible');
      tdm.markTopicIneligibleForDeletion(topics, 'replica deletion failure');
      await tdm.resumeDeletions();
    }
    const leaderElected = withOfflineLeader.some((tp) => ctx.partitionState(tp) === 'OnlinePartition');
    if (notForDeletion.length === 0 && !leaderElected) this.controller.sendUpdateMetadataRequest([...ctx.liveOrShuttingDownBrokerIds()], []);
  }
}
