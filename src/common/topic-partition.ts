/** A partition's identity. Structural, so any `{ topic, partition }` from another layer fits. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** Kafka's TopicPartition.toString, `orders-0`: unique, since the partition number holds no '-'. */
export function tpString(tp: TopicPartition): string {
  return `${tp.topic}-${tp.partition}`;
}

export function parseTpString(text: string): TopicPartition {
  const dash = text.lastIndexOf('-');
  return { topic: text.slice(0, dash), partition: Number(text.slice(dash + 1)) };
}

export function compareTp(a: TopicPartition, b: TopicPartition): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
