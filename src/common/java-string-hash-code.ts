/** Java's String.hashCode over UTF-16 code units, in 32-bit signed arithmetic. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/**
 * Kafka's `Utils.abs(key.hashCode) % numPartitions`, how both coordinators place their keys (group ids in
 * `__consumer_offsets`, transactional ids in `__transaction_state`). Utils.abs maps Integer.MIN_VALUE to 0, so
 * every broker computes the same partition.
 */
export function hashPartitionFor(key: string, numPartitions: number): number {
  const h = javaStringHashCode(key);
  const abs = h === -2147483648 ? 0 : Math.abs(h);
  return abs % numPartitions;
}
