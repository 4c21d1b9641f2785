/**
 * The page's view model, built from what ZooKeeper and the brokers said (no I/O here, so it is unit-tested): the
 * flags Kafka's own tools compute (`kafka-topics --describe --under-replicated-partitions` / `--unavailable-partitions`)
 * and the lag kafka-consumer-groups prints. Field names are Kafka's words, as the page labels them.
 */

export interface BrokerView {
  id: number;
  host: string;
  port: number;
  rack: string | null;
  controller: boolean;
}

export interface PartitionView {
  partition: number;
  /** -1 when the partition has no leader (Kafka's `Leader: none`). */
  leader: number;
  replicas: number[];
  isr: number[];
  /** Offsets and size from the leader; null while not known (leader down, or not asked yet). */
  logStartOffset: number | null;
  logEndOffset: number | null;
  size: number | null;
  underReplicated: boolean;
  offline: boolean;
}

export interface TopicView {
  topic: string;
  partitionCount: number;
  replicationFactor: number;
  underReplicatedPartitions: number;
  offlinePartitions: number;
  markedForDeletion: boolean;
  partitions: PartitionView[];
}

export interface GroupPartitionView {
  topic: string;
  partition: number;
  currentOffset: number | null;
  logEndOffset: number | null;
  /** Kafka's LAG: log end offset minus the committed offset; null ('-') when either is unknown. */
  lag: number | null;
  consumerId: string;
}

export interface GroupMemberView {
  consumerId: string;
  clientId: string;
  host: string;
  assignment: string[];
}

export interface GroupView {
  group: string;
  /** 'zookeeper': a ZooKeeper-based consumer group (/consumers/<group>/ids); 'coordinator': a group coordinator's. */
  kind: 'zookeeper' | 'coordinator';
  state: string;
  members: GroupMemberView[];
  partitions: GroupPartitionView[];
  totalLag: number;
}

/** A reassignment in flight, in ListPartitionReassignments' words (what `kafka-reassign-partitions --list` prints). */
export interface ReassignmentView {
  topic: string;
  partition: number;
  /** The full replica set while it moves: the target and the original replicas. */
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

/** A partition's assignment as its topic znode has it (Kafka 2.8's TopicZNode, version 2 and later). */
export interface AssignedPartition {
  topic: string;
  partition: number;
  replicas: readonly number[];
  addingReplicas: readonly number[];
  removingReplicas: readonly number[];
}

/**
 * The reassignments in flight: the partitions whose topic znode has adding or removing replicas (the controller
 * is moving them, however they were asked for), and those requested in /admin/reassign_partitions that the
 * controller has not taken up yet, computed as Kafka 2.8's ReplicaAssignment.fromOldAndNewReplicas does.
 */
export function reassignmentsInFlight(
  assigned: readonly AssignedPartition[],
  requested: readonly { topic: string; partition: number; replicas: readonly number[] }[],
): ReassignmentView[] {
  const views = new Map<string, ReassignmentView>();
  for (const a of assigned) {
    if (a.addingReplicas.length > 0 || a.removingReplicas.length > 0) {
      views.set(`${a.topic}-${a.partition}`, { topic: a.topic, partition: a.partition, replicas: [...a.replicas], addingReplicas: [...a.addingReplicas], removingReplicas: [...a.removingReplicas] });
    }
  }
  const current = new Map(assigned.map((a) => [`${a.topic}-${a.partition}`, a.replicas]));
  for (const r of requested) {
    const key = `${r.topic}-${r.partition}`;
    if (views.has(key)) continue;
    const original = current.get(key) ?? [];
    views.set(key, {
      topic: r.topic,
      partition: r.partition,
      replicas: [...new Set([...r.replicas, ...original])],
      addingReplicas: r.replicas.filter((b) => !original.includes(b)),
      removingReplicas: original.filter((b) => !r.replicas.includes(b)),
    });
  }
  return [...views.values()].sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

/** Under-replicated: fewer in sync than assigned; offline: no leader, or the leader is not a live broker. */
export function partitionFlags(replicas: readonly number[], isr: readonly number[], leader: number, liveBrokers: ReadonlySet<number>): { underReplicated: boolean; offline: boolean } {
  return { underReplicated: isr.length < replicas.length, offline: leader < 0 || !liveBrokers.has(leader) };
}

/** kafka-consumer-groups' LAG column: null where it prints '-' (no committed offset or no log end offset). */
export function consumerLag(currentOffset: number | null, logEndOffset: number | null): number | null {
  if (currentOffset === null || currentOffset < 0 || logEndOffset === null || logEndOffset < 0) return null;
  return Math.max(0, logEndOffset - currentOffset);
}

/** The topic row's counts, from its partitions in numeric order. */
export function topicView(topic: string, partitions: PartitionView[], markedForDeletion: boolean): TopicView {
  const sorted = [...partitions].sort((a, b) => a.partition - b.partition);
  return {
    topic,
    partitionCount: sorted.length,
    replicationFactor: sorted[0]?.replicas.length ?? 0,
    underReplicatedPartitions: sorted.filter((p) => p.underReplicated).length,
    offlinePartitions: sorted.filter((p) => p.offline).length,
    markedForDeletion,
    partitions: sorted,
  };
}

/** Each committed partition with its owner and lag, sorted as kafka-consumer-groups --describe sorts them. */
export function groupPartitions(
  committed: readonly { topic: string; partition: number; offset: number }[],
  owners: ReadonlyMap<string, string>,
  logEndOffsets: ReadonlyMap<string, number>,
): GroupPartitionView[] {
  return committed
    .map((c) => {
      const key = `${c.topic}-${c.partition}`;
      const logEndOffset = logEndOffsets.get(key) ?? null;
      return { topic: c.topic, partition: c.partition, currentOffset: c.offset, logEndOffset, lag: consumerLag(c.offset, logEndOffset), consumerId: owners.get(key) ?? '-' };
    })
    .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
}

export function totalLag(partitions: readonly GroupPartitionView[]): number {
  return partitions.reduce((sum, p) => sum + (p.lag ?? 0), 0);
}
