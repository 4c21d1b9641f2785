import { compareTp, TopicPartition, tpString } from '../common/topic-partition';
import { BrokerInfo } from '../zk/znodes/broker-info';
import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';

export type PartitionState = 'NonExistentPartition' | 'NewPartition' | 'OnlinePartition' | 'OfflinePartition';

export type ReplicaState =
  | 'NonExistentReplica'
  | 'NewReplica'
  | 'OnlineReplica'
  | 'OfflineReplica'
  | 'ReplicaDeletionStarted'
  | 'ReplicaDeletionSuccessful'
  | 'ReplicaDeletionIneligible';

export interface LeaderIsrCacheEntry {
  state: LeaderIsrAndControllerEpoch;
  zkVersion: number;
}

/**
 * A reassignment in flight: ORS, the original replicas, and TRS, the target replicas (Kafka's notation in
 * KafkaController's reassignment comments; Kafka's ReplicaAssignment with adding and removing replicas).
 */
export interface PartitionReassignmentState {
  readonly tp: TopicPartition;
  readonly original: readonly number[];
  readonly target: readonly number[];
}

/**
 * The controller's in-memory view of the cluster (Kafka's ControllerContext), rebuilt from ZooKeeper on every
 * failover and mutated only by events on the controller's event queue, so it needs no locking.
 */
export class ControllerContext {
  epoch = 0;
  epochZkVersion = 0;
  readonly liveBrokers = new Map<number, BrokerInfo>();
  readonly brokerEpochs = new Map<number, number>();
  readonly shuttingDownBrokerIds = new Set<number>();
  readonly allTopics = new Set<string>();
  /** topic -> its id (KIP-516), as in /brokers/topics/<t>; Kafka's ControllerContext.topicIds. */
  readonly topicIds = new Map<string, string>();
  /** topic -> partition -> replicas (first = preferred leader). */
  readonly assignments = new Map<string, Map<number, number[]>>();
  /** tp string -> leader, ISR, epochs and the state node's zkVersion. */
  readonly leadership = new Map<string, LeaderIsrCacheEntry>();
  readonly partitionStates = new Map<string, PartitionState>();
  /** `${tp}:${replica}` -> state. */
  readonly replicaStates = new Map<string, ReplicaState>();
  readonly topicsToBeDeleted = new Set<string>();
  readonly topicsIneligibleForDeletion = new Set<string>();
  /** tp string -> the reassignment moving it (Kafka's ControllerContext.partitionsBeingReassigned). */
  readonly partitionsBeingReassigned = new Map<string, PartitionReassignmentState>();
  /**
   * broker id -> tp strings of its replicas in a failed log dir, as its LeaderAndIsr responses said
   * (KAFKA_STORAGE_ERROR; Kafka's replicasOnOfflineDirs). Those replicas are not online until the broker
   * registers again.
   */
  readonly replicasOnOfflineDirs = new Map<number, Set<string>>();

  /** Brokers that may lead: live and not shutting down. */
  liveBrokerIds(): Set<number> {
    return new Set([...this.liveBrokers.keys()].filter((id) => !this.shuttingDownBrokerIds.has(id)));
  }

  liveOrShuttingDownBrokerIds(): Set<number> {
    return new Set(this.liveBrokers.keys());
  }

  /**
   * Kafka's isReplicaOnline: the broker is live (and, unless `includeShuttingDownBrokers`, not shutting down) and,
   * when `tp` is given, its replica of `tp` is not in a failed log dir.
   */
  isReplicaOnline(brokerId: number, tp?: TopicPartition, includeShuttingDownBrokers = false): boolean {
    const brokerOnline = this.liveBrokers.has(brokerId) && (includeShuttingDownBrokers || !this.shuttingDownBrokerIds.has(brokerId));
    return brokerOnline && (tp === undefined || !(this.replicasOnOfflineDirs.get(brokerId)?.has(tpString(tp)) ?? false));
  }

  /** The replicas of `tp` that are online (the live set an election of `tp` chooses from). */
  onlineReplicas(tp: TopicPartition, includeShuttingDownBrokers = false): Set<number> {
    return new Set(this.replicasFor(tp).filter((r) => this.isReplicaOnline(r, tp, includeShuttingDownBrokers)));
  }

  /** Kafka's partitionsWithOfflineLeader: partitions whose leader is not online, topics being deleted aside. */
  partitionsWithOfflineLeader(): TopicPartition[] {
    return this.allPartitions().filter((tp) => {
      const entry = this.leadership.get(tpString(tp));
      return entry !== undefined && !this.isReplicaOnline(entry.state.leader, tp) && !this.isTopicQueuedForDeletion(tp.topic);
    });
  }

  /** Kafka's replicasOnBrokers: every replica that `brokerIds` host. */
  replicasOnBrokers(brokerIds: ReadonlySet<number>): { tp: TopicPartition; replica: number }[] {
    return this.allPartitions().flatMap((tp) => this.replicasFor(tp).filter((r) => brokerIds.has(r)).map((replica) => ({ tp, replica })));
  }

  replicasFor(tp: TopicPartition): number[] {
    return this.assignments.get(tp.topic)?.get(tp.partition) ?? [];
  }

  setReplicas(tp: TopicPartition, replicas: number[]): void {
    let topic = this.assignments.get(tp.topic);
    if (!topic) this.assignments.set(tp.topic, (topic = new Map()));
    topic.set(tp.partition, replicas);
  }

  partitionsForTopic(topic: string): TopicPartition[] {
    return [...(this.assignments.get(topic)?.keys() ?? [])].sort((a, b) => a - b).map((partition) => ({ topic, partition }));
  }

  allPartitions(): TopicPartition[] {
    return [...this.assignments.keys()].flatMap((t) => this.partitionsForTopic(t)).sort(compareTp);
  }

  partitionsOnBroker(brokerId: number): TopicPartition[] {
    return this.allPartitions().filter((tp) => this.replicasFor(tp).includes(brokerId));
  }

  partitionsLedBy(brokerId: number): TopicPartition[] {
    return this.allPartitions().filter((tp) => this.leadership.get(tpString(tp))?.state.leader === brokerId);
  }

  partitionState(tp: TopicPartition): PartitionState {
    return this.partitionStates.get(tpString(tp)) ?? 'NonExistentPartition';
  }

  replicaState(tp: TopicPartition, replica: number): ReplicaState {
    return this.replicaStates.get(`${tpString(tp)}:${replica}`) ?? 'NonExistentReplica';
  }

  setReplicaState(tp: TopicPartition, replica: number, state: ReplicaState): void {
    if (state === 'NonExistentReplica') this.replicaStates.delete(`${tpString(tp)}:${replica}`);
    else this.replicaStates.set(`${tpString(tp)}:${replica}`, state);
  }

  /** Kafka's ControllerContext.topicNames: the topic that has `topicId`. */
  topicName(topicId: string): string | undefined {
    for (const [topic, id] of this.topicIds) if (id === topicId) return topic;
    return undefined;
  }

  isTopicQueuedForDeletion(topic: string): boolean {
    return this.topicsToBeDeleted.has(topic);
  }

  removeTopic(topic: string): void {
    for (const tp of this.partitionsForTopic(topic)) {
      this.leadership.delete(tpString(tp));
      this.partitionStates.delete(tpString(tp));
    }
    for (const key of [...this.replicaStates.keys()]) if (key.startsWith(`${topic}-`) && this.tpOfReplicaKey(key) === topic) this.replicaStates.delete(key);
    this.assignments.delete(topic);
    this.allTopics.delete(topic);
    this.topicIds.delete(topic);
    this.topicsToBeDeleted.delete(topic);
    this.topicsIneligibleForDeletion.delete(topic);
    for (const key of [...this.partitionsBeingReassigned.keys()]) if (this.partitionsBeingReassigned.get(key)?.tp.topic === topic) this.partitionsBeingReassigned.delete(key);
  }

  private tpOfReplicaKey(key: string): string {
    const tp = key.slice(0, key.lastIndexOf(':'));
    return tp.slice(0, tp.lastIndexOf('-'));
  }

  reset(): void {
    this.liveBrokers.clear();
    this.brokerEpochs.clear();
    this.shuttingDownBrokerIds.clear();
    this.allTopics.clear();
    this.topicIds.clear();
    this.assignments.clear();
    this.leadership.clear();
    this.partitionStates.clear();
    this.replicaStates.clear();
    this.topicsToBeDeleted.clear();
    this.topicsIneligibleForDeletion.clear();
    this.partitionsBeingReassigned.clear();
    this.replicasOnOfflineDirs.clear();
  }
}
