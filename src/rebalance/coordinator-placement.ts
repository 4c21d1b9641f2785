/** Java's String.hashCode over UTF-16 code units, in 32-bit signed arithmetic. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * The `__consumer_offsets` partition whose leader coordinates a group (Kafka's partitionFor):
 * `Utils.abs(groupId.hashCode) % offsets.topic.num.partitions`, where Utils.abs maps Integer.MIN_VALUE to 0.
 * Every broker computes the same answer, so FindCoordinator agrees cluster-wide.
 */
export function coordinatorPartitionFor(groupId: string, numPartitions: number): number {
  const h = javaStringHashCode(groupId);
  const abs = h === -2147483648 ? 0 : Math.abs(h);
  return abs % numPartitions;
}
