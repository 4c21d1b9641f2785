/**
 * A partition's identity as the log layer sees it. Structural on purpose: any `{ topic, partition }` object
 * from another layer fits.
 */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export function topicPartitionString(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}
