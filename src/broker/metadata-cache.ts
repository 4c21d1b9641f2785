import { ErrorCode } from '../common/error-codes';
import { Clock, SYSTEM_CLOCK } from '../common/time';
import { getLogger, Logger } from '../common/logging/logging';
import { isInternalTopic } from '../common/topic';
import { TopicPartition, tpKey } from '../common/topic-partition';
import { topicIdBytes, topicIdOf } from '../common/uuid';
import { Watchers } from '../common/watchers';
import { MetadataResponseBroker, MetadataResponseTopic } from '../protocol/apis/metadata';
import { UpdateMetadataBroker, UpdateMetadataPartitionState, UpdateMetadataRequest } from '../protocol/apis/update-metadata';

const LEADER_DURING_DELETE = -2;

/**
 * The cluster as the controller last described it with UpdateMetadata (Kafka's MetadataCache): live brokers
 * with their endpoints and every partition's leader, replicas and ISR. Client Metadata requests are answered
 * from here; clients never read ZooKeeper.
 */
export class MetadataCache {
  controllerId = -1;
  private readonly brokers = new Map<number, UpdateMetadataBroker>();
  private readonly partitions = new Map<string, Map<number, UpdateMetadataPartitionState>>();
  /** topic -> id (UpdateMetadata v7, KIP-516), as Kafka 2.8's MetadataCache keeps them. */
  private readonly topicIds = new Map<string, string>();
  private readonly stateChangeLog: Logger;
  /** Woken for every topic an UpdateMetadata touches (CreateTopics and DeleteTopics wait on these). */
  readonly topicWatchers: Watchers<string>;

  constructor(
    private readonly brokerId: number,
    clock: Clock = SYSTEM_CLOCK,
  ) {
    this.topicWatchers = new Watchers<string>((topic) => topic, clock);
    this.stateChangeLog = getLogger('state.change.logger', `[Broker id=${brokerId}] `);
  }

  /** Applies an UpdateMetadata; returns the partitions it deleted (leader -2: topic being deleted). */
  updateMetadata(correlationId: number, request: UpdateMetadataRequest, version: number): TopicPartition[] {
    this.controllerId = request.controllerId;
    this.brokers.clear();
    for (const b of request.liveBrokers) this.brokers.set(b.id, b);
    const states = version >= 5 ? request.topicStates.flatMap((t) => t.partitionStates.map((s) => ({ ...s, topicName: t.topicName }))) : request.ungroupedPartitionStates;
    if (version >= 7) {
      for (const t of request.topicStates) {
        const id = t.topicId === undefined ? undefined : topicIdOf(t.topicId);
        if (id !== undefined) this.topicIds.set(t.topicName, id);
      }
    }
    const deleted: TopicPartition[] = [];
    let added = 0;
    for (const s of states) {
      const tp = { topic: s.topicName, partition: s.partitionIndex };
      if (s.leader === LEADER_DURING_DELETE) {
        const topic = this.partitions.get(s.topicName);
        topic?.delete(s.partitionIndex);
        if (topic?.size === 0) {
          this.partitions.delete(s.topicName);
          this.topicIds.delete(s.topicName);
        }
        deleted.push(tp);
        continue;
      }
      let topic = this.partitions.get(s.topicName);
      if (!topic) this.partitions.set(s.topicName, (topic = new Map()));
      topic.set(s.partitionIndex, s);
      added++;
      if (this.stateChangeLog.isTraceEnabled()) {
        this.stateChangeLog.trace(
          `Cached leader info UpdateMetadataPartitionState(topicName='${s.topicName}', partitionIndex=${s.partitionIndex}, controllerEpoch=${s.controllerEpoch}, leader=${s.leader}, leaderEpoch=${s.leaderEpoch}, isr=[${s.isr.join(', ')}], zkVersion=${s.zkVersion}, replicas=[${s.replicas.join(', ')}], offlineReplicas=[${s.offlineReplicas.join(', ')}]) for partition ${tpKey(s.topicName, s.partitionIndex)} in response to UpdateMetadata request sent by controller ${request.controllerId} epoch ${request.controllerEpoch} with correlation id ${correlationId}`,
        );
      }
    }
    for (const topic of new Set(states.map((s) => s.topicName))) this.topicWatchers.notify(topic);
    this.stateChangeLog.info(
      `Add ${added} partitions and deleted ${deleted.length} partitions from metadata cache in response to UpdateMetadata request sent by controller ${request.controllerId} epoch ${request.controllerEpoch} with correlation id ${correlationId}`,
    );
    return deleted;
  }

  contains(topic: string): boolean {
    return this.partitions.has(topic);
  }

  /** The topic's id, undefined when it has none (Kafka's getTopicId gives the zero Uuid). */
  topicId(topic: string): string | undefined {
    return this.partitions.has(topic) ? this.topicIds.get(topic) : undefined;
  }

  /** The topic that has `topicId` (Kafka's getTopicName). */
  topicName(topicId: string): string | undefined {
    for (const [topic, id] of this.topicIds) if (id === topicId && this.partitions.has(topic)) return topic;
    return undefined;
  }

  allTopics(): string[] {
    return [...this.partitions.keys()].sort();
  }

  /** Every partition in the cache, by topic then partition (Kafka's getAllPartitions; ElectLeaders for all). */
  allPartitions(): TopicPartition[] {
    return this.allTopics().flatMap((topic) => [...(this.partitions.get(topic)?.keys() ?? [])].sort((a, b) => a - b).map((partition) => ({ topic, partition })));
  }

  numPartitions(topic: string): number | undefined {
    return this.partitions.get(topic)?.size;
  }

  partitionState(tp: TopicPartition): UpdateMetadataPartitionState | undefined {
    return this.partitions.get(tp.topic)?.get(tp.partition);
  }

  isBrokerAlive(id: number): boolean {
    return this.brokers.has(id);
  }

  liveBrokerIds(): number[] {
    return [...this.brokers.keys()].sort((a, b) => a - b);
  }

  /** The endpoint of `brokerId` on `listenerName`, as clients of that listener must use it. */
  endpoint(brokerId: number, listenerName: string): { host: string; port: number } | undefined {
    const b = this.brokers.get(brokerId);
    const e = b?.endpoints.find((x) => x.listener === listenerName) ?? b?.endpoints[0];
    return e === undefined ? undefined : { host: e.host, port: e.port };
  }

  aliveBrokers(listenerName: string): MetadataResponseBroker[] {
    const result: MetadataResponseBroker[] = [];
    for (const b of this.brokers.values()) {
      const e = b.endpoints.find((x) => x.listener === listenerName);
      if (e !== undefined) result.push({ nodeId: b.id, host: e.host, port: e.port, rack: b.rack });
    }
    return result.sort((a, b) => a.nodeId - b.nodeId);
  }

  /**
   * Topic metadata as Kafka's MetadataCache.getTopicMetadata: a partition whose leader has no endpoint on the
   * listener reports LEADER_NOT_AVAILABLE with leader -1; otherwise replicas and ISR are given in full.
   */
  topicMetadata(topic: string, listenerName: string): MetadataResponseTopic | undefined {
    const partitions = this.partitions.get(topic);
    if (partitions === undefined) return undefined;
    return {
      errorCode: ErrorCode.NONE.code,
      name: topic,
      topicId: topicIdBytes(this.topicIds.get(topic)),
      isInternal: isInternalTopic(topic),
      partitions: [...partitions.values()]
        .sort((a, b) => a.partitionIndex - b.partitionIndex)
        .map((s) => {
          const leaderAlive = s.leader >= 0 && this.endpoint(s.leader, listenerName) !== undefined;
          return {
            errorCode: leaderAlive ? ErrorCode.NONE.code : ErrorCode.LEADER_NOT_AVAILABLE.code,
            partitionIndex: s.partitionIndex,
            leaderId: leaderAlive ? s.leader : -1,
            leaderEpoch: s.leaderEpoch,
            replicaNodes: [...s.replicas],
            isrNodes: [...s.isr],
            offlineReplicas: [...s.offlineReplicas],
          };
        }),
    };
  }

  get localBrokerId(): number {
    return this.brokerId;
  }
}
