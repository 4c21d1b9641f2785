import { isUuidString } from '../../common/uuid';
import { decodeJsonObject, encodeJson, intArray, intField, Json, ZnodeFormatError } from './znode-json';

/**
 * `/brokers/topics/<topic>`: replica assignment, partition ids as string keys, first replica = preferred leader.
 * Written as version 3, as Kafka 2.8's TopicZNode.encode (adding_replicas/removing_replicas during reassignment,
 * and "topic_id" when the topic has one, KIP-516); 1-3 are read.
 */
export interface TopicAssignment {
  partitions: Map<number, number[]>;
  addingReplicas: Map<number, number[]>;
  removingReplicas: Map<number, number[]>;
  /** The topic id (base64url Uuid), absent for a topic written before 2.8 and not yet given one by the controller. */
  topicId?: string | undefined;
}

function toObject(m: Map<number, number[]>): Record<string, number[]> {
  const o: Record<string, number[]> = {};
  for (const [p, replicas] of [...m.entries()].sort((a, b) => a[0] - b[0])) o[String(p)] = replicas;
  return o;
}

function fromObject(path: string, v: unknown, what: string): Map<number, number[]> {
  const m = new Map<number, number[]>();
  if (v === undefined || v === null) return m;
  if (typeof v !== 'object' || Array.isArray(v)) throw new ZnodeFormatError(path, `${what} is not an object`);
  for (const [k, replicas] of Object.entries(v as Json)) {
    if (!/^\d{1,10}$/.test(k) || Number(k) > 0x7fffffff) throw new ZnodeFormatError(path, `partition id "${k}" is not a number`);
    m.set(Number(k), intArray(path, replicas, `replicas of partition ${k}`));
  }
  return m;
}

export const TopicAssignmentZNode = {
  encode(a: TopicAssignment): Buffer {
    return encodeJson({
      version: 3,
      partitions: toObject(a.partitions),
      ...(a.topicId === undefined ? {} : { topic_id: a.topicId }),
      adding_replicas: toObject(a.addingReplicas),
      removing_replicas: toObject(a.removingReplicas),
    });
  },

  decode(path: string, data: Buffer | null): TopicAssignment {
    const o = decodeJsonObject(path, data);
    intField(path, o, 'version');
    const topicId = o['topic_id'];
    if (topicId !== undefined && (typeof topicId !== 'string' || !isUuidString(topicId))) throw new ZnodeFormatError(path, 'topic_id is not a base64 UUID');
    return {
      partitions: fromObject(path, o['partitions'], 'partitions'),
      addingReplicas: fromObject(path, o['adding_replicas'], 'adding_replicas'),
      removingReplicas: fromObject(path, o['removing_replicas'], 'removing_replicas'),
      ...(topicId === undefined ? {} : { topicId }),
    };
  },
};

/**
 * The most data one znode can take: ZooKeeper refuses a request packet larger than jute.maxbuffer (default
 * 0xfffff = 1048575 bytes, server and client alike), and the packet carries the path, the ACL and a few headers
 * besides the data; 1 KiB is kept for those.
 */
export const ZNODE_MAX_DATA_BYTES = 1048575 - 1024;

/** Decimal digits of the integers 0 .. n-1 together, in O(log n). */
function digitsOfRange(n: number): number {
  let total = 0;
  for (let width = 1, start = 0, end = 10; start < n; width++, start = end, end *= 10) total += (Math.min(n, end) - start) * width;
  return total;
}

/**
 * An upper bound of the bytes `TopicAssignmentZNode.encode` writes for partitions `firstPartition` ..
 * `firstPartition + partitions - 1` with `replicationFactor` replicas each placed on `brokerIds` by Kafka's
 * round-robin (each broker takes each replica position at most once per `brokerIds.length` partitions):
 * computed without building the assignment, so that a request for 2^31-1 partitions is refused at once.
 */
export function estimateAssignmentBytes(firstPartition: number, partitions: number, replicationFactor: number, brokerIds: readonly number[]): number {
  const overhead = '{"version":3,"partitions":{},"topic_id":"AAAAAAAAAAAAAAAAAAAAAA","adding_replicas":{},"removing_replicas":{}}'.length;
  if (partitions <= 0 || replicationFactor <= 0) return overhead;
  const digits = brokerIds.length === 0 ? [1] : brokerIds.map((b) => String(b).length);
  const maxDigits = Math.max(...digits);
  const sumDigits = digits.reduce((a, d) => a + d, 0);
  const perPosition = Math.min(partitions * maxDigits, (Math.ceil(partitions / digits.length) + 1) * sumDigits);
  // "<p>":[r,r,r] and the comma before the next entry.
  const punctuation = partitions * (2 + 1 + 2 + Math.max(0, replicationFactor - 1) + 1);
  const keyDigits = digitsOfRange(firstPartition + partitions) - digitsOfRange(firstPartition);
  return overhead + punctuation + keyDigits + replicationFactor * perPosition;
}
