import { TopicPartition } from '../common/topic-partition';
import { javaStringHashCode } from './coordinator-placement';
import { Subscriptions, threadIds } from './consumer-threads';

/**
 * The old consumer's RoundRobinAssignor: every (topic, partition) of the subscribed topics, ordered by the Java
 * hash code of its Scala text `[topic,partition]`, dealt in turn to all thread ids sorted as strings. It needs
 * identical subscriptions across the group, as in Kafka.
 */
export function roundRobinAssign(subscriptions: Subscriptions, partitions: ReadonlyMap<string, readonly number[]>): Map<string, TopicPartition[]> {
  const all = [...subscriptions.values()];
  const first = all[0];
  const same = (s: ReadonlyMap<string, number>): boolean => first !== undefined && s.size === first.size && [...s].every(([t, n]) => first.get(t) === n);
  if (!all.every(same) || (first !== undefined && new Set(first.values()).size > 1)) {
    throw new Error('Round-robin assignment is allowed only if all consumers in the group subscribe to the same topics, AND if the stream counts across topics are identical for a given consumer instance.');
  }
  const result = new Map<string, TopicPartition[]>();
  if (first === undefined) return result;
  const threads = [...subscriptions].flatMap(([consumerId, s]) => threadIds(consumerId, [...s.values()][0] ?? 0)).sort();
  const tps = [...first.keys()]
    .sort()
    .flatMap((topic) => [...(partitions.get(topic) ?? [])].sort((a, b) => a - b).map((partition) => ({ topic, partition })));
  const keyed = tps.map((tp) => ({ tp, hash: javaStringHashCode(`[${tp.topic},${tp.partition}]`) }));
  // Stable sort by hash code, as Scala's sortWith.
  keyed.sort((a, b) => a.hash - b.hash);
  keyed.forEach(({ tp }, i) => {
    const thread = threads[i % threads.length];
    if (thread === undefined) return;
    const list = result.get(thread) ?? [];
    list.push(tp);
    result.set(thread, list);
  });
  return result;
}
