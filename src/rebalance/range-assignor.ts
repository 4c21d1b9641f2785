import { TopicPartition } from '../common/topic-partition';
import { Subscriptions, threadIds } from './consumer-threads';

/**
 * The old consumer's RangeAssignor, topic by topic: the subscribed threads sorted as strings, the partitions
 * sorted numerically, each thread a contiguous range; the first `partitions % threads` threads get one extra.
 */
export function rangeAssign(subscriptions: Subscriptions, partitions: ReadonlyMap<string, readonly number[]>): Map<string, TopicPartition[]> {
  const result = new Map<string, TopicPartition[]>();
  const topics = new Set([...subscriptions.values()].flatMap((s) => [...s.keys()]));
  for (const topic of topics) {
    const threads = [...subscriptions].flatMap(([consumerId, s]) => threadIds(consumerId, s.get(topic) ?? 0)).sort();
    const parts = [...(partitions.get(topic) ?? [])].sort((a, b) => a - b);
    if (threads.length === 0) continue;
    const per = Math.floor(parts.length / threads.length);
    const extra = parts.length % threads.length;
    threads.forEach((thread, i) => {
      const start = per * i + Math.min(i, extra);
      const count = per + (i < extra ? 1 : 0);
      const list = result.get(thread) ?? [];
      for (const partition of parts.slice(start, start + count)) list.push({ topic, partition });
      result.set(thread, list);
    });
  }
  return result;
}
