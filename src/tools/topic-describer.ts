import { AdminZk } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';

export interface DescribeFilters {
  underReplicatedPartitions?: boolean;
  unavailablePartitions?: boolean;
  topicsWithOverrides?: boolean;
}

/**
 * `kafka-topics --describe` in Kafka 2.4-2.8's layout:
 * `Topic: t\tTopicId: <id>\tPartitionCount: 3\tReplicationFactor: 2\tConfigs: k=v` and one
 * `\tTopic: t\tPartition: 0\tLeader: 2\tReplicas: 2,3\tIsr: 2,3` line per partition, in numeric order.
 */
export class TopicDescriber {
  private readonly admin: AdminZk;

  constructor(
    private readonly zk: ZkClient,
    private readonly out: (line: string) => void,
  ) {
    this.admin = new AdminZk(zk);
  }

  async describe(topics: readonly string[], filters: DescribeFilters): Promise<void> {
    const liveBrokers = new Set(await new BrokerRegistryZk(this.zk).getBrokerIds());
    const marked = new Set(await this.admin.getTopicsMarkedForDeletion());
    const filtering = Boolean(filters.underReplicatedPartitions || filters.unavailablePartitions);
    for (const topic of topics) {
      const assignment = await this.admin.getTopicAssignment(topic);
      if (assignment === null) {
        this.out(`Topic ${topic} doesn't exist!`);
        continue;
      }
      const config = await this.admin.getTopicConfig(topic);
      if (filters.topicsWithOverrides && config.size === 0) continue;
      const partitions = [...assignment.partitions.keys()].sort((a, b) => a - b);
      const rf = assignment.partitions.get(partitions[0] ?? 0)?.length ?? 0;
      if (!filtering) {
        const configs = [...config].map(([k, v]) => `${k}=${v}`).join(',');
        const deletion = marked.has(topic) ? '\tMarkedForDeletion: true' : '';
        // Kafka 2.8's TopicDescription.printDescription: the id after the name when the topic has one.
        const topicId = assignment.topicId === undefined ? '' : `\tTopicId: ${assignment.topicId}`;
        this.out(`Topic: ${topic}${topicId}\tPartitionCount: ${partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${configs}${deletion}`);
      }
      if (filters.topicsWithOverrides) continue;
      for (const p of partitions) {
        const replicas = assignment.partitions.get(p) ?? [];
        const state = (await this.admin.getPartitionState(topic, p))?.state;
        const leader = state === undefined || state.leader < 0 ? 'none' : String(state.leader);
        const isr = state?.isr ?? [];
        const unavailable = state === undefined || state.leader < 0 || !liveBrokers.has(state.leader);
        const underReplicated = isr.length < replicas.length;
        if (filters.underReplicatedPartitions && !underReplicated) continue;
        if (filters.unavailablePartitions && !unavailable) continue;
        this.out(`\tTopic: ${topic}\tPartition: ${p}\tLeader: ${leader}\tReplicas: ${replicas.join(',')}\tIsr: ${isr.join(',')}`);
      }
    }
  }
}
