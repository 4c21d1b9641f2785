import { ErrorCode, errorNameOf } from '../common/error-codes';
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

/** Errors.java's default message for `code` (UNKNOWN_SERVER_ERROR's for a code it does not know). */
export function defaultErrorMessage(code: number): string {
  return ErrorCode[errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR'].message;
}

/**
 * The iteration order of a java.util.HashMap built with `new HashMap<>(initialCapacity)` and `items` put in the
 * given order (distinct keys): buckets ascending by the spread hash masked to the table size (the power of two
 * at or above the initial capacity, doubled whenever the size passes 3/4 of it), insertion order within a
 * bucket (a resize splits a chain keeping its order). The Java AdminClient hands the tools such maps.
 */
export function javaHashMapOrder<T>(items: readonly T[], hashOf: (item: T) => number, initialCapacity = 16): T[] {
  let size = 1;
  while (size < initialCapacity) size *= 2;
  let threshold = size * 0.75;
  for (let n = 1; n <= items.length; n++) {
    if (n > threshold) {
      size *= 2;
      threshold = size * 0.75;
    }
  }
  const spread = (h: number): number => (h ^ (h >>> 16)) | 0;
  return items
    .map((item, i) => ({ item, i, bucket: spread(hashOf(item)) & (size - 1) }))
    .sort((a, b) => a.bucket - b.bucket || a.i - b.i)
    .map((x) => x.item);
}

/** Java's Double.toString: `1024.0`, `0.5`, `1.0E7`, `1.5E-4`. */
export function javaDouble(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '-Infinity';
  if (v === 0) return Object.is(v, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(v);
  if (abs >= 1e-3 && abs < 1e7) {
    const text = String(v);
    return text.includes('.') ? text : `${text}.0`;
  }
  const [mantissa, exponent] = v.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${exponent.replace('+', '')}`;
}
