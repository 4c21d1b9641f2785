/** A partition's identity. Structural, so any `{ topic, partition }` from another layer fits. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/**
 * Kafka's TopicPartition.toString, `orders-0`: the partition's name in log lines, directory names and map keys.
 * Unique, since the partition number holds no '-'.
 */
export function tpString(tp: TopicPartition): string {
  return tpKey(tp.topic, tp.partition);
}

/** `tpString` of a partition given as its two parts. */
export function tpKey(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
