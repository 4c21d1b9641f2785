import { getLogger, Logger } from '../common/logging/logging';
import { topicIdBytes, topicIdOf } from '../common/uuid';
import { compareTp, TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { LeaderAndIsrPartitionState, LeaderAndIsrRequest } from '../protocol/apis/leader-and-isr';
import { EPOCH_DURING_DELETE, NO_LEADER_EPOCH, StopReplicaRequest } from '../protocol/apis/stop-replica';
import { UpdateMetadataPartitionState, UpdateMetadataRequest } from '../protocol/apis/update-metadata';
import { ControllerChannel } from './controller-channel';
import { ControllerContext } from './controller-context';
import { hashSet } from './scala-render';

/** Leader -2 in UpdateMetadata: the topic is being deleted, brokers drop it from their caches. */
export const LEADER_DURING_DELETE = -2;

/** One partition's outcome in a broker's response. */
export interface PartitionError {
  readonly tp: TopicPartition;
  readonly errorCode: number;
}

interface StopReplicaEntry {
  tp: TopicPartition;
  leaderEpoch: number;
  deletePartition: boolean;
}

/**
 * Requests accumulated during one state change and sent together (Kafka's ControllerBrokerRequestBatch): one
 * LeaderAndIsr per broker, then one UpdateMetadata per broker, then StopReplica. Adding a LeaderAndIsr entry
 * also adds the partition to the UpdateMetadata sent to every live broker.
 */
export class ControllerRequestBatch {
  private readonly leaderAndIsr = new Map<number, Map<string, LeaderAndIsrPartitionState>>();
  private readonly updateMetadataBrokers = new Set<number>();
  private readonly updateMetadataPartitions = new Map<string, UpdateMetadataPartitionState>();
  /** broker id -> tp string -> entry: each partition once per broker, found without a scan (30,000 at failover). */
  private readonly stopReplica = new Map<number, Map<string, StopReplicaEntry>>();
  private readonly stateChangeLog: Logger;
  private open = false;

  constructor(
    private readonly controllerId: number,
    private readonly context: ControllerContext,
    private readonly channel: ControllerChannel,
    private readonly onStopReplicaResponse: (brokerId: number, partitionErrors: readonly PartitionError[], deletePartitions: boolean) => void,
    /** A broker's LeaderAndIsr response (Kafka's LeaderAndIsrResponseReceived event): its error and each partition's. */
    private readonly onLeaderAndIsrResponse?: (brokerId: number, errorCode: number, partitionErrors: readonly PartitionError[]) => void,
    /** inter.broker.listener.name: live leaders are named by their endpoint on it (Kafka's brokerEndPoint(interBrokerListenerName)). */
    private readonly interBrokerListenerName?: string,
  ) {
    this.stateChangeLog = getLogger('state.change.logger');
  }

  newBatch(): void {
    if (this.open) throw new Error('Controller to broker state change requests batch is not empty while creating a new one');
    this.open = true;
  }

  addLeaderAndIsrRequestForBrokers(brokerIds: Iterable<number>, tp: TopicPartition, isNew: boolean): void {
    const key = tpString(tp);
    const entry = this.context.leadership.get(key);
    if (entry === undefined) return;
    for (const brokerId of brokerIds) {
      if (brokerId < 0) continue;
      let perBroker = this.leaderAndIsr.get(brokerId);
      if (!perBroker) this.leaderAndIsr.set(brokerId, (perBroker = new Map()));
      const previous = perBroker.get(key);
      perBroker.set(key, {
        topicName: tp.topic,
        partitionIndex: tp.partition,
        controllerEpoch: entry.state.controllerEpoch,
        leader: entry.state.leader,
        leaderEpoch: entry.state.leaderEpoch,
        isr: [...entry.state.isr],
        zkVersion: entry.zkVersion,
        replicas: this.context.replicasFor(tp),
        addingReplicas: [],
        removingReplicas: [],
        isNew: isNew || (previous?.isNew ?? false),
      });
    }
    // Every live broker gets the partition's metadata (Kafka's addUpdateMetadataRequestForBrokers(liveOrShuttingDownBrokerIds)).
    for (const id of this.context.liveBrokers.keys()) this.updateMetadataBrokers.add(id);
    this.addUpdateMetadataPartition(tp, key);
  }

  /**
   * Kafka's addStopReplicaRequestForBrokers: each partition once per broker (a delete already asked for stays),
   * with the leader epoch the broker fences on: -2 (EpochDuringDelete) for a topic queued for deletion, which
   * overrides any epoch, else the current one, or -1 (NoEpoch) when none is known.
   */
  addStopReplicaRequestForBrokers(brokerIds: Iterable<number>, tp: TopicPartition, deletePartition: boolean): void {
    const leaderEpoch = this.context.isTopicQueuedForDeletion(tp.topic) ? EPOCH_DURING_DELETE : (this.context.leadership.get(tpString(tp))?.state.leaderEpoch ?? NO_LEADER_EPOCH);
    const key = tpString(tp);
    for (const brokerId of brokerIds) {
      if (brokerId < 0) continue;
      let entries = this.stopReplica.get(brokerId);
      if (!entries) this.stopReplica.set(brokerId, (entries = new Map()));
      const existing = entries.get(key);
      if (existing !== undefined) {
        existing.leaderEpoch = leaderEpoch;
        existing.deletePartition ||= deletePartition;
      } else {
        entries.set(key, { tp, leaderEpoch, deletePartition });
      }
    }
  }

  /** Metadata for `partitions` (all known partitions when empty and `all` is set) to `brokerIds`. */
  addUpdateMetadataRequestForBrokers(brokerIds: Iterable<number>, partitions: readonly TopicPartition[]): void {
    for (const id of brokerIds) this.updateMetadataBrokers.add(id);
    for (const tp of partitions) this.addUpdateMetadataPartition(tp, tpString(tp));
  }

  private addUpdateMetadataPartition(tp: TopicPartition, key: string): void {
    const entry = this.context.leadership.get(key);
    if (entry === undefined) return;
    const replicas = this.context.replicasFor(tp);
    const beingDeleted = this.context.isTopicQueuedForDeletion(tp.topic);
    this.updateMetadataPartitions.set(key, {
      topicName: tp.topic,
      partitionIndex: tp.partition,
      controllerEpoch: entry.state.controllerEpoch,
      leader: beingDeleted ? LEADER_DURING_DELETE : entry.state.leader,
      leaderEpoch: entry.state.leaderEpoch,
      isr: [...entry.state.isr],
      zkVersion: entry.zkVersion,
      replicas,
      offlineReplicas: replicas.filter((r) => !this.context.isReplicaOnline(r, tp, true)),
    });
  }

  sendRequestsToBrokers(controllerEpoch: number): void {
    try {
      this.sendLeaderAndIsr(controllerEpoch);
      this.sendUpdateMetadata(controllerEpoch);
      this.sendStopReplica(controllerEpoch);
    } finally {
      this.leaderAndIsr.clear();
      this.updateMetadataBrokers.clear();
      this.updateMetadataPartitions.clear();
      this.stopReplica.clear();
      this.open = false;
    }
  }

  private prefix(controllerEpoch: number): Logger {
    return this.stateChangeLog.withPrefix(`[Controller id=${this.controllerId} epoch=${controllerEpoch}] `);
  }

  /** The topic's id for LeaderAndIsr v5 and UpdateMetadata v7 (the zero Uuid when it has none). */
  private topicIdBytes(topic: string): Buffer {
    return topicIdBytes(this.context.topicIds.get(topic));
  }

  private topicNameOf(topicId: Buffer): string | undefined {
    const id = topicIdOf(topicId);
    return id === undefined ? undefined : this.context.topicName(id);
  }

  private brokerEpoch(brokerId: number): number {
    return this.context.brokerEpochs.get(brokerId) ?? -1;
  }

  private sendLeaderAndIsr(controllerEpoch: number): void {
    const log = this.prefix(controllerEpoch);
    for (const [brokerId, states] of this.leaderAndIsr) {
      if (!this.context.liveBrokers.has(brokerId)) continue;
      const list = [...states.values()];
      const leaders = list.filter((s) => s.leader === brokerId).length;
      log.info(`Sending LeaderAndIsr request to broker ${brokerId} with ${leaders} become-leader and ${list.length - leaders} become-follower partitions`);
      if (log.isTraceEnabled()) {
        for (const s of list) {
          const kind = s.leader === brokerId ? 'become-leader' : 'become-follower';
          log.trace(`Sending ${kind} LeaderAndIsr request ${renderPartitionState(s)} to broker ${brokerId} for partition ${tpKey(s.topicName, s.partitionIndex)}`);
        }
      }
      const leaderIds = new Set(list.map((s) => s.leader));
      const request: LeaderAndIsrRequest = {
        controllerId: this.controllerId,
        controllerEpoch,
        brokerEpoch: this.brokerEpoch(brokerId),
        ungroupedPartitionStates: list,
        topicStates: groupByTopic(list, (s) => s.topicName).map(([topicName, partitionStates]) => ({ topicName, topicId: this.topicIdBytes(topicName), partitionStates })),
        liveLeaders: [...leaderIds]
          .map((id) => this.context.liveBrokers.get(id))
          .filter((b) => b !== undefined)
          .map((b) => {
            const e = b.endpoints.find((x) => x.listenerName === this.interBrokerListenerName) ?? b.endpoints[0];
            return { brokerId: b.id, hostName: e?.host ?? '', port: e?.port ?? -1 };
          }),
      };
      this.channel.sendLeaderAndIsr(brokerId, request, (response) => {
        // v5+ answers per topic id (LeaderAndIsrResponse.partitionErrors(topicNames)); an id the controller no
        // longer knows (the topic was deleted meanwhile) is dropped, as Kafka drops it.
        const byId = response.topics?.flatMap((t) => {
          const topic = this.topicNameOf(t.topicId);
          return topic === undefined ? [] : t.partitionErrors.map((e) => ({ ...e, topicName: topic }));
        });
        const partitionErrors = response.topics !== undefined && response.topics.length > 0 ? (byId ?? []) : response.partitionErrors;
        const errors = partitionErrors.map((e) => ({ tp: { topic: e.topicName, partition: e.partitionIndex }, errorCode: e.errorCode }));
        this.onLeaderAndIsrResponse?.(brokerId, response.errorCode, errors);
      });
    }
  }

  private sendUpdateMetadata(controllerEpoch: number): void {
    const log = this.prefix(controllerEpoch);
    const brokers = [...this.updateMetadataBrokers].filter((id) => this.context.liveBrokers.has(id)).sort((a, b) => a - b);
    const partitions = [...this.updateMetadataPartitions.values()].sort((a, b) => compareTp({ topic: a.topicName, partition: a.partitionIndex }, { topic: b.topicName, partition: b.partitionIndex }));
    log.info(`Sending UpdateMetadata request to brokers ${hashSet(brokers)} for ${partitions.length} partitions`);
    const liveBrokers = [...this.context.liveBrokers.values()].map((b) => {
      const plaintext = b.endpoints.find((e) => b.listenerSecurityProtocolMap[e.listenerName] === 'PLAINTEXT') ?? b.endpoints[0];
      return {
        id: b.id,
        v0Host: plaintext?.host ?? '',
        v0Port: plaintext?.port ?? -1,
        endpoints: b.endpoints.map((e) => ({ host: e.host, port: e.port, listener: e.listenerName, securityProtocol: securityProtocolId(b.listenerSecurityProtocolMap[e.listenerName]) })),
        rack: b.rack,
      };
    });
    for (const brokerId of brokers) {
      const request: UpdateMetadataRequest = {
        controllerId: this.controllerId,
        controllerEpoch,
        brokerEpoch: this.brokerEpoch(brokerId),
        ungroupedPartitionStates: partitions,
        topicStates: groupByTopic(partitions, (s) => s.topicName).map(([topicName, partitionStates]) => ({ topicName, topicId: this.topicIdBytes(topicName), partitionStates })),
        liveBrokers,
      };
      this.channel.sendUpdateMetadata(brokerId, request);
    }
  }

  /**
   * One StopReplica v3 per live broker (Kafka 2.8 at IBP >= 2.6): every partition with its leader epoch and its own
   * delete flag. The v0-2 fields are filled too for the codec's sake, but a request mixing both flags only has a
   * v3 form; every broker of this tree speaks v3. The response's errors for deleted partitions go to topic deletion.
   */
  private sendStopReplica(controllerEpoch: number): void {
    const log = this.prefix(controllerEpoch);
    for (const [brokerId, byTp] of this.stopReplica) {
      if (!this.context.liveBrokers.has(brokerId)) continue;
      const entries = [...byTp.values()];
      log.info(`Sending StopReplica request for ${entries.length} replicas to broker ${brokerId}`);
      const request: StopReplicaRequest = {
        controllerId: this.controllerId,
        controllerEpoch,
        brokerEpoch: this.brokerEpoch(brokerId),
        deletePartitions: entries.every((e) => e.deletePartition),
        ungroupedPartitions: entries.map((e) => ({ topicName: e.tp.topic, partitionIndex: e.tp.partition })),
        topics: groupByTopic(entries, (e) => e.tp.topic).map(([name, list]) => ({ name, partitionIndexes: list.map((e) => e.tp.partition) })),
        topicStates: groupByTopic(entries, (e) => e.tp.topic).map(([topicName, list]) => ({
          topicName,
          partitionStates: list.map((e) => ({ partitionIndex: e.tp.partition, leaderEpoch: e.leaderEpoch, deletePartition: e.deletePartition })),
        })),
      };
      const deleted = entries.filter((e) => e.deletePartition);
      this.channel.sendStopReplica(brokerId, request, (response) => {
        if (deleted.length === 0) return;
        // A partition the broker did not report carries the response's top-level error.
        const reported = new Map(response.partitionErrors.map((e) => [tpKey(e.topicName, e.partitionIndex), e.errorCode]));
        const errors = deleted.map((e) => ({ tp: e.tp, errorCode: reported.get(tpString(e.tp)) ?? response.errorCode }));
        this.onStopReplicaResponse(brokerId, errors, true);
      });
    }
  }
}

function groupByTopic<T>(items: readonly T[], topicOf: (t: T) => string): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const topic = topicOf(item);
    let list = groups.get(topic);
    if (!list) groups.set(topic, (list = []));
    list.push(item);
  }
  return [...groups.entries()];
}

/** Kafka 2.4+'s generated toString of a LeaderAndIsrPartitionState. */
export function renderPartitionState(s: LeaderAndIsrPartitionState): string {
  return (
    `LeaderAndIsrPartitionState(topicName='${s.topicName}', partitionIndex=${s.partitionIndex}, controllerEpoch=${s.controllerEpoch}, ` +
    `leader=${s.leader}, leaderEpoch=${s.leaderEpoch}, isr=[${s.isr.join(', ')}], zkVersion=${s.zkVersion}, replicas=[${s.replicas.join(', ')}], ` +
    `addingReplicas=[], removingReplicas=[], isNew=${s.isNew})`
  );
}

/** SecurityProtocol ids as UpdateMetadata carries them (PLAINTEXT 0, SSL 1, SASL_PLAINTEXT 2, SASL_SSL 3). */
function securityProtocolId(protocol: string | undefined): number {
  const id = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'].indexOf(protocol ?? 'PLAINTEXT');
  return id < 0 ? 0 : id;
}
