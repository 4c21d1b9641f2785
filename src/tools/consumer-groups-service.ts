import { TopicPartition } from '../common/topic-partition';
import { TopicPartitionOffset } from '../rebalance/zk-offset-store';

/** Who consumes a partition, as kafka-consumer-groups shows it ('-' where a store does not know). */
export interface PartitionOwner extends TopicPartition {
  consumerId: string;
  host: string;
  clientId: string;
}

/** One member as `--describe --members` shows it. */
export interface MemberSummary {
  consumerId: string;
  /** The static member's group.instance.id, "" for a dynamic one (Kafka's groupInstanceId.orElse("")). */
  groupInstanceId: string;
  host: string;
  clientId: string;
  assignment: TopicPartition[];
}

export interface GroupDescription {
  /** Kafka's group state: Stable, PreparingRebalance, CompletingRebalance, Empty, or Dead (no such group). */
  state: string;
  /** The group coordinator (`--bootstrap-server` only). */
  coordinator?: { id: number; host: string; port: number };
  /** The chosen protocol (the partition assignor of a consumer group), "" when none. */
  assignmentStrategy?: string;
  /** Every member in the coordinator's order (`--bootstrap-server` only). */
  members?: MemberSummary[];
  owners: PartitionOwner[];
  /** Members holding no partition (shown as a row without topic). */
  idleMembers: { consumerId: string; host: string; clientId: string }[];
  committed: TopicPartitionOffset[];
}

/**
 * What kafka-consumer-groups needs from a cluster, with one implementation per connection kind:
 * `--zookeeper` (ZooKeeper-based consumers: /consumers) and `--bootstrap-server` (the group coordinator).
 * Offsets live in ZooKeeper in both cases, so both see every group's committed offsets.
 */
export interface ConsumerGroupService {
  listGroups(): Promise<string[]>;
  /** Each group with its state, only those in `states` unless it is empty (`--list --state`, ListGroups v4). */
  listGroupsWithState?(states: readonly string[]): Promise<{ groupId: string; state: string }[]>;
  describeGroup(group: string): Promise<GroupDescription>;
  /** The partition ids of a topic, or [] when it does not exist. */
  partitionsOf(topic: string): Promise<number[]>;
  /** -2 earliest, -1 latest (log end offset), per partition from its leader. */
  listOffsets(tps: readonly TopicPartition[], timestamp: -1 | -2): Promise<number[]>;
  /** The first offset whose timestamp is at or after `timestamp`, per partition; -1 when there is none. */
  offsetsForTimes?(tps: readonly TopicPartition[], timestamp: number): Promise<number[]>;
  commitOffsets(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /**
   * Deletes committed offsets of the group (OffsetDelete to its coordinator): the group-level error code, and
   * each partition's.
   */
  deleteOffsets(group: string, partitions: readonly TopicPartition[]): Promise<{ errorCode: number; partitions: (TopicPartition & { errorCode: number })[] }>;
  /** Deletes an inactive group; resolves with an error message when it could not. */
  deleteGroup(group: string): Promise<string | null>;
  close(): void;
}
