import { javaStringHashCode } from '../common/java-string-hash-code';
import type { Record } from '../records';
import { SchemaReader } from './dump-log-decoders';
import { OffsetsTopicKey, readOffsetCommitValue, readOffsetsTopicKey } from '../rebalance/offset-commit-record';

/*
 * kafka-console-consumer's formatters for Kafka's internal topics, as Kafka 2.8 prints them:
 * GroupMetadataManager$OffsetsMessageFormatter and $GroupMetadataMessageFormatter for `__consumer_offsets`,
 * TransactionLog$TransactionLogMessageFormatter for `__transaction_state`. Each prints `key::value` with the
 * value as the Scala object's toString, or nothing for a record of the other kind. Lines follow Scala 2.13 (the
 * Scala of Kafka 2.8's release), whose mutable HashMap/HashSet print `HashMap(k -> v)` / `HashSet(a, b)` in
 * their own hash order, reproduced by `scalaHashOrder`.
 */

/** A record to one line (with its "\n"), or "" for nothing. */
export type InternalTopicFormatter = (record: Record) => string;

/** Java's Optional<Integer>.toString. */
function optional(v: number): string {
  return v < 0 ? 'Optional.empty' : `Optional[${v}]`;
}

/** Scala's Option[T].toString. */
function option(v: string | number | null): string {
  return v === null ? 'None' : `Some(${v})`;
}

/**
 * The iteration order of Scala 2.13's mutable.HashMap and HashSet: buckets of a power-of-two table (16, doubled
 * when an add reaches 0.75 of it) indexed by the improved hash `h ^ (h >>> 16)`, each bucket ascending by it.
 */
export function scalaHashOrder<T>(items: readonly T[], hashOf: (t: T) => number): T[] {
  let size = 16;
  while (items.length >= size * 0.75) size *= 2;
  const keyed = items.map((item) => {
    const h = hashOf(item) | 0;
    const improved = h ^ (h >>> 16);
    return { item, bucket: improved & (size - 1), improved };
  });
  // A stable sort: equal hashes keep the order they were added in.
  keyed.sort((a, b) => a.bucket - b.bucket || a.improved - b.improved);
  return keyed.map((k) => k.item);
}

/** org.apache.kafka.common.TopicPartition.hashCode. */
function topicPartitionHash(topic: string, partition: number): number {
  return (Math.imul(31, 31 + partition) + javaStringHashCode(topic)) | 0;
}

/** GroupMetadataManager.readMessageKey: versions 0-1 an offset commit, 2 group metadata. */
function readOffsetsKey(key: Buffer): OffsetsTopicKey {
  const k = readOffsetsTopicKey(key);
  if (k === undefined) throw new Error(`Unknown group metadata message version: ${key.length >= 2 ? key.readInt16BE(0) : -1}`);
  return k;
}

/** GroupMetadataManager.readOffsetMessageValue as kafka.common.OffsetAndMetadata.toString prints it. */
function offsetAndMetadata(value: Buffer): string {
  const v = readOffsetCommitValue(value);
  // Only v1 holds an expire timestamp (-1: none), its last field; the shared reader drops it.
  const expire = value.readInt16BE(0) === 1 ? Number(value.readBigInt64BE(value.length - 8)) : -1;
  return `OffsetAndMetadata(offset=${v.offset}, leaderEpoch=${optional(v.leaderEpoch)}, metadata=${v.metadata}, commitTimestamp=${v.commitTimestamp}, expireTimestamp=${option(expire < 0 ? null : expire)})`;
}

/** GroupMetadataManager.readGroupMessageValue (versions 0-3) as GroupMetadata.toString prints it. */
function groupMetadata(groupId: string, value: Buffer): string {
  const r = new SchemaReader(value);
  const version = r.int16();
  if (version < 0 || version > 3) throw new Error(`Unknown group metadata message version: ${version}`);
  const protocolType = r.string();
  const generationId = r.int32();
  const protocol = r.nullableString();
  r.nullableString(); // leader
  if (version >= 2) r.int64(); // current_state_timestamp
  const members =
    r.array(() => {
      const memberId = r.string();
      const groupInstanceId = version >= 3 ? r.nullableString() : null;
      const clientId = r.string();
      const clientHost = r.string();
      const rebalanceTimeout = version >= 1 ? r.int32() : undefined;
      const sessionTimeout = r.int32();
      r.nullableBytes(); // subscription
      r.nullableBytes(); // assignment
      return { memberId, groupInstanceId, clientId, clientHost, sessionTimeout, rebalanceTimeout: rebalanceTimeout ?? sessionTimeout };
    }) ?? [];
  const printed = scalaHashOrder(members, (m) => javaStringHashCode(m.memberId)).map(
    (m) =>
      `${m.memberId} -> MemberMetadata(memberId=${m.memberId}, groupInstanceId=${option(m.groupInstanceId)}, clientId=${m.clientId}, clientHost=${m.clientHost}, sessionTimeoutMs=${m.sessionTimeout}, rebalanceTimeoutMs=${m.rebalanceTimeout}, supportedProtocols=List(${protocol ?? 'null'}))`,
  );
  // A loaded group is Stable with members, Empty without (GroupMetadata.loadGroup).
  const state = members.length === 0 ? 'Empty' : 'Stable';
  return `GroupMetadata(groupId=${groupId}, generation=${generationId}, protocolType=${option(protocolType)}, currentState=${state}, members=HashMap(${printed.join(', ')}))`;
}

/** GroupMetadataManager$OffsetsMessageFormatter: `[group,topic,partition]::OffsetAndMetadata(...)`, tombstones `NULL`. */
export const offsetsMessageFormatter: InternalTopicFormatter = (record) => {
  if (record.key === null) return '';
  const key = readOffsetsKey(record.key);
  if (key.kind !== 'offset') return '';
  return `[${key.group},${key.topic},${key.partition}]::${record.value === null ? 'NULL' : offsetAndMetadata(record.value)}\n`;
};

/** GroupMetadataManager$GroupMetadataMessageFormatter: `group::GroupMetadata(...)`, tombstones `NULL`. */
export const groupMetadataMessageFormatter: InternalTopicFormatter = (record) => {
  if (record.key === null) return '';
  const key = readOffsetsKey(record.key);
  if (key.kind !== 'group') return '';
  return `${key.group}::${record.value === null ? 'NULL' : groupMetadata(key.group, record.value)}\n`;
};

/** TransactionState's names by the status byte of the transaction log value. */
const TRANSACTION_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

/**
 * TransactionLog$TransactionLogMessageFormatter: `transactionalId::TransactionMetadata(...)` (key version 0,
 * value version 0), tombstones `NULL`. The partitions of an Empty transaction are not read, as Kafka's
 * readTxnRecordValue skips them.
 */
export const transactionLogMessageFormatter: InternalTopicFormatter = (record) => {
  if (record.key === null) return '';
  const k = new SchemaReader(record.key);
  const keyVersion = k.int16();
  if (keyVersion !== 0) throw new Error(`Unknown version ${keyVersion} from the transaction log message`);
  const transactionalId = k.string();
  if (record.value === null) return `${transactionalId}::NULL\n`;
  const r = new SchemaReader(record.value);
  const version = r.int16();
  if (version !== 0) throw new Error(`Unknown version ${version} from the transaction log message value`);
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const txnTimeoutMs = r.int32();
  const status = r.int8();
  const state = TRANSACTION_STATES[status];
  if (state === undefined) throw new Error(`Unknown transaction state byte ${status} from the transaction status message`);
  const partitions: { topic: string; partition: number }[] = [];
  for (const t of r.array(() => ({ topic: r.string(), ids: r.array(() => r.int32()) ?? [] })) ?? []) {
    if (state === 'Empty') continue;
    for (const p of t.ids) if (!partitions.some((x) => x.topic === t.topic && x.partition === p)) partitions.push({ topic: t.topic, partition: p });
  }
  const txnLastUpdateTimestamp = r.int64();
  const txnStartTimestamp = r.int64();
  const set = scalaHashOrder(partitions, (p) => topicPartitionHash(p.topic, p.partition)).map((p) => `${p.topic}-${p.partition}`);
  return `${transactionalId}::TransactionMetadata(transactionalId=${transactionalId}, producerId=${producerId}, producerEpoch=${producerEpoch}, txnTimeoutMs=${txnTimeoutMs}, state=${state}, pendingState=None, topicPartitions=HashSet(${set.join(', ')}), txnStartTimestamp=${txnStartTimestamp}, txnLastUpdateTimestamp=${txnLastUpdateTimestamp})\n`;
};
