import { hashPartitionFor } from '../common/java-string-hash-code';

export { javaStringHashCode } from '../common/java-string-hash-code';

/**
 * The `__consumer_offsets` partition whose leader coordinates a group (Kafka's partitionFor):
 * `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`, where Utils.abs maps Integer.MIN_VALUE to 0.
 * Every broker computes the same answer, so FindCoordinator agrees cluster-wide.
 */
export function coordinatorPartitionFor(groupId: string, numPartitions: number): number {
  return hashPartitionFor(groupId, numPartitions);
}
