import { tpString } from '../../src/common/topic-partition';
import { ControllerChannel } from '../../src/controller/controller-channel';
import { ControllerContext } from '../../src/controller/controller-context';
import { ControllerRequestBatch, PartitionError } from '../../src/controller/controller-request-batch';
import { LeaderAndIsrRequest, LeaderAndIsrResponse } from '../../src/protocol/apis/leader-and-isr';
import { StopReplicaRequest, StopReplicaResponse } from '../../src/protocol/apis/stop-replica';
import { UpdateMetadataRequest, UpdateMetadataResponse } from '../../src/protocol/apis/update-metadata';
import { BrokerInfo } from '../../src/zk/znodes/broker-info';

export type SentRequest =
  | { api: 'LeaderAndIsr'; brokerId: number; request: LeaderAndIsrRequest; onResponse?: (response: LeaderAndIsrResponse) => void }
  | { api: 'UpdateMetadata'; brokerId: number; request: UpdateMetadataRequest }
  | { api: 'StopReplica'; brokerId: number; request: StopReplicaRequest; onResponse?: (response: StopReplicaResponse) => void };

/** A LeaderAndIsr partition entry, reduced to what the state machines decide. */
export interface LeaderAndIsrEntry {
  tp: string;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  controllerEpoch: number;
  replicas: number[];
  isNew: boolean;
}

/**
 * A ControllerChannel (Kafka's ControllerChannelManager) that sends nothing: it records each request with its
 * destination, in order, so a test can drive the real ControllerRequestBatch and inspect what it sent.
 */
export class RecordingControllerChannel implements ControllerChannel {
  readonly sent: SentRequest[] = [];
  readonly brokers = new Set<number>();

  addBroker(broker: BrokerInfo): void {
    this.brokers.add(broker.id);
  }
  removeBroker(brokerId: number): void {
    this.brokers.delete(brokerId);
  }
  sendLeaderAndIsr(brokerId: number, request: LeaderAndIsrRequest, onResponse?: (response: LeaderAndIsrResponse) => void): void {
    this.sent.push({ api: 'LeaderAndIsr', brokerId, request, onResponse });
  }
  sendUpdateMetadata(brokerId: number, request: UpdateMetadataRequest, _onResponse?: (response: UpdateMetadataResponse) => void): void {
    this.sent.push({ api: 'UpdateMetadata', brokerId, request });
  }
  sendStopReplica(brokerId: number, request: StopReplicaRequest, onResponse?: (response: StopReplicaResponse) => void): void {
    this.sent.push({ api: 'StopReplica', brokerId, request, onResponse });
  }
  async shutdown(): Promise<void> {}

  clear(): void {
    this.sent.length = 0;
  }

  /** broker id -> the partitions of the LeaderAndIsr requests it was sent (sorted by broker). */
  leaderAndIsr(): Record<number, LeaderAndIsrEntry[]> {
    const out: Record<number, LeaderAndIsrEntry[]> = {};
    for (const s of this.sent) {
      if (s.api !== 'LeaderAndIsr') continue;
      out[s.brokerId] = [
        ...(out[s.brokerId] ?? []),
        ...s.request.ungroupedPartitionStates.map((p) => ({
          tp: tpString({ topic: p.topicName, partition: p.partitionIndex }),
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          isr: p.isr,
          zkVersion: p.zkVersion,
          controllerEpoch: p.controllerEpoch,
          replicas: p.replicas,
          isNew: p.isNew,
        })),
      ];
    }
    return out;
  }

  /** How many requests of `api` went to each broker. */
  requestCounts(api: SentRequest['api']): Record<number, number> {
    const out: Record<number, number> = {};
    for (const s of this.sent) if (s.api === api) out[s.brokerId] = (out[s.brokerId] ?? 0) + 1;
    return out;
  }

  /** broker id -> `tp leader=.. isr=.. offline=..` of each partition in its UpdateMetadata requests. */
  updateMetadata(): Record<number, string[]> {
    const out: Record<number, string[]> = {};
    for (const s of this.sent) {
      if (s.api !== 'UpdateMetadata') continue;
      out[s.brokerId] = [
        ...(out[s.brokerId] ?? []),
        ...s.request.ungroupedPartitionStates.map(
          (p) => `${p.topicName}-${p.partitionIndex} leader=${p.leader} leaderEpoch=${p.leaderEpoch} isr=[${p.isr.join(',')}] offline=[${p.offlineReplicas.join(',')}]`,
        ),
      ];
    }
    return out;
  }

  /** broker id -> `delete=<bool> <tp>,<tp>` per StopReplica request. */
  stopReplica(): Record<number, string[]> {
    const out: Record<number, string[]> = {};
    for (const s of this.sent) {
      if (s.api !== 'StopReplica') continue;
      const tps = s.request.ungroupedPartitions.map((p) => `${p.topicName}-${p.partitionIndex}`).join(',');
      out[s.brokerId] = [...(out[s.brokerId] ?? []), `delete=${s.request.deletePartitions} ${tps}`];
    }
    return out;
  }

  /** The APIs in the order they were sent: `LeaderAndIsr->2`, ... */
  order(): string[] {
    return this.sent.map((s) => `${s.api}->${s.brokerId}`);
  }
}

/** A registered broker with one PLAINTEXT listener on localhost. */
export function brokerInfo(id: number): BrokerInfo {
  return {
    id,
    endpoints: [{ listenerName: 'PLAINTEXT', host: 'localhost', port: 9090 + id }],
    listenerSecurityProtocolMap: { PLAINTEXT: 'PLAINTEXT' },
    jmxPort: -1,
    timestamp: 1_600_000_000_000,
    rack: null,
    version: 5,
  };
}

export interface ControllerFixture {
  context: ControllerContext;
  channel: RecordingControllerChannel;
  batch: ControllerRequestBatch;
  /** StopReplica responses the batch handed back: [broker, tp -> error code, delete]. */
  stopReplicaResponses: [number, readonly PartitionError[], boolean][];
  /** LeaderAndIsr responses the batch handed back: [broker, error code, tp -> error code]. */
  leaderAndIsrResponses: [number, number, readonly PartitionError[]][];
}

/** A ControllerContext at `epoch` with `liveBrokers` registered, and a real request batch over a recording channel. */
export function controllerFixture(options: { controllerId?: number; epoch: number; liveBrokers: number[] }): ControllerFixture {
  const context = new ControllerContext();
  context.epoch = options.epoch;
  for (const id of options.liveBrokers) {
    context.liveBrokers.set(id, brokerInfo(id));
    context.brokerEpochs.set(id, 100 + id);
  }
  const channel = new RecordingControllerChannel();
  const stopReplicaResponses: ControllerFixture['stopReplicaResponses'] = [];
  const leaderAndIsrResponses: ControllerFixture['leaderAndIsrResponses'] = [];
  const batch = new ControllerRequestBatch(
    options.controllerId ?? 0,
    context,
    channel,
    (brokerId, errors, deletePartitions) => stopReplicaResponses.push([brokerId, errors, deletePartitions]),
    (brokerId, errorCode, errors) => leaderAndIsrResponses.push([brokerId, errorCode, errors]),
  );
  return { context, channel, batch, stopReplicaResponses, leaderAndIsrResponses };
}
