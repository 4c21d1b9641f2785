import { MetadataResponse } from '../protocol/apis/metadata';

export interface BrokerNode {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface PartitionInfo {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly errorCode: number;
}

export interface TopicInfo {
  readonly name: string;
  readonly errorCode: number;
  readonly partitions: readonly PartitionInfo[];
}

/**
 * The client's view of the cluster (Kafka's Metadata/Cluster): brokers, controller, and the topics last asked for.
 * Replaced wholesale by each Metadata response for the brokers; topics are merged so a refresh for one topic does
 * not forget the others.
 */
export class ClusterMetadata {
  brokers = new Map<number, BrokerNode>();
  topics = new Map<string, TopicInfo>();
  controllerId = -1;
  clusterId: string | null = null;
  /** Clock time (ms) of the last successful update; 0 = never. */
  updatedAtMs = 0;

  update(response: MetadataResponse, nowMs: number): void {
    this.brokers = new Map(response.brokers.map((b) => [b.nodeId, { nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack }]));
    this.controllerId = response.controllerId;
    this.clusterId = response.clusterId;
    for (const t of response.topics) {
      this.topics.set(t.name, {
        name: t.name,
        errorCode: t.errorCode,
        partitions: t.partitions
          .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: p.replicaNodes, isr: p.isrNodes, errorCode: p.errorCode }))
          .sort((a, b) => a.partition - b.partition),
      });
    }
    this.updatedAtMs = nowMs;
  }

  leaderFor(topic: string, partition: number): number | undefined {
    const leader = this.topics.get(topic)?.partitions.find((p) => p.partition === partition)?.leader;
    return leader === undefined || leader < 0 ? undefined : leader;
  }

  broker(nodeId: number): BrokerNode | undefined {
    return this.brokers.get(nodeId);
  }
}
