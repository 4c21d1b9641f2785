import { errorNameOf } from '../common/error-codes';
import { javaExceptionName } from './admin-client-config';

/*
 * How the JVM side of Kafka's tools renders things the tools print: the iteration order of the hash maps their
 * output walks, and the exception classes that stand for error codes.
 */

/** Java's String.hashCode (over UTF-16 code units, 32-bit wrap-around). */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's TopicPartition.hashCode: 31 * (31 + partition) + topic.hashCode(). */
export function topicPartitionHash(topic: string, partition: number): number {
  return (Math.imul(31, (31 + partition) | 0) + javaStringHash(topic)) | 0;
}

/**
 * The iteration order of a Scala 2.13 mutable.HashMap holding `items` (inserted in the given order): buckets
 * ascending by the spread hash masked to the table size (16, doubled before an insert reaches 3/4 of it), and
 * within a bucket by spread hash. Kafka's LogDirsCommand builds its brokers, log dirs and partitions through
 * such maps, so this is the order of its JSON.
 */
export function scalaHashMapOrder<T>(items: readonly T[], hashOf: (item: T) => number): T[] {
  let size = 16;
  while (items.length >= Math.floor(size * 0.75)) size *= 2;
  const spread = (h: number): number => (h ^ (h >>> 16)) | 0;
  return items
    .map((item, i) => ({ item, i, hash: spread(hashOf(item)) }))
    .sort((a, b) => (a.hash & (size - 1)) - (b.hash & (size - 1)) || a.hash - b.hash || a.i - b.i)
    .map((x) => x.item);
}

/** The fully qualified exception class Kafka's clients raise for `code` (UnknownServerException if unknown). */
export function exceptionClassFor(code: number): string {
  return javaExceptionName(errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR');
}
