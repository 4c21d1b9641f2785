import { readInt64 } from '../common/int64';
import type { Record } from '../records';

/*
 * kafka-dump-log's record parsers (Kafka's DumpLogSegments.MessageParser): each turns a record into the optional
 * `key: ...` and `payload: ...` texts of its line. The two internal-topic decoders follow Kafka 2.8's
 * GroupMetadataManager.formatRecordKeyAndValue and TransactionLog.formatRecordKeyAndValue, for the records the
 * broker writes and for segments copied from a Kafka broker. The console consumer's formatters of the same topics
 * (internal-topic-formatters.ts) print whole values; these print what DumpLogSegments does.
 */

export interface ParsedRecord {
  key?: string;
  payload?: string;
}

export type MessageParser = (record: Record) => ParsedRecord;

/** A Java exception the parser raised; the tool prints it as Kafka's main thread would, on one line. */
export class DecoderException extends Error {
  constructor(
    readonly javaClass: string,
    message: string,
  ) {
    super(message);
  }
}

/** kafka.serializer.StringDecoder for keys and values (UTF-8, malformed bytes replaced as Java's String does). */
export const stringDecoderParser: MessageParser = (record) => ({
  ...(record.key !== null ? { key: record.key.toString('utf8') } : {}),
  ...(record.value !== null ? { payload: record.value.toString('utf8') } : {}),
});

/** A cursor over Kafka's old Struct-based schemas (big-endian, int16-length strings, int32-length bytes). */
export class SchemaReader {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  private need(n: number): void {
    if (this.pos + n > this.buf.length) throw new DecoderException('org.apache.kafka.common.protocol.types.SchemaException', `Error reading field: Buffer underflow at ${this.pos}`);
  }

  int8(): number {
    this.need(1);
    return this.buf.readInt8(this.pos++);
  }

  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int64(): number {
    this.need(8);
    const v = readInt64(this.buf, this.pos);
    this.pos += 8;
    return v;
  }

  nullableString(): string | null {
    const len = this.int16();
    if (len < 0) return null;
    this.need(len);
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }

  string(): string {
    const s = this.nullableString();
    if (s === null) throw new DecoderException('org.apache.kafka.common.protocol.types.SchemaException', 'Error reading field: String field is null');
    return s;
  }

  nullableBytes(): Buffer | null {
    const len = this.int32();
    if (len < 0) return null;
    this.need(len);
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }

  array<T>(item: () => T): T[] | null {
    const n = this.int32();
    if (n < 0) return null;
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item());
    return out;
  }
}

/** GroupMetadataManager.hex: `"%X".format(BigInt(1, bytes))`, so without leading zeros; "" for no bytes. */
function hex(bytes: Buffer): string {
  if (bytes.length === 0) return '';
  return BigInt(`0x${bytes.toString('hex')}`).toString(16).toUpperCase();
}

/** Java's List<TopicPartition>.toString: `[t-0, t-1]`. */
function topicPartitionList(parts: readonly { topic: string; partition: number }[]): string {
  return `[${parts.map((p) => `${p.topic}-${p.partition}`).join(', ')}]`;
}

/** ConsumerProtocol.deserializeAssignment: version, [topic, [partition]], user data (nullable). */
function consumerAssignment(bytes: Buffer): string {
  const r = new SchemaReader(bytes);
  r.int16();
  const parts: { topic: string; partition: number }[] = [];
  for (const t of r.array(() => ({ topic: r.string(), partitions: r.array(() => r.int32()) ?? [] })) ?? []) {
    for (const p of t.partitions) parts.push({ topic: t.topic, partition: p });
  }
  const userData = r.nullableBytes();
  const data = userData === null ? '' : hex(userData);
  return data === '' ? topicPartitionList(parts) : `${topicPartitionList(parts)}:${data}`;
}

/**
 * The offset commit value (versions 0-3) as `offset=N[,metadata=M]`: Kafka 2.8's parseOffsets prints neither the
 * v3 leader epoch nor the timestamps (the console consumer's OffsetsMessageFormatter does).
 */
function offsetCommitValue(value: Buffer): string {
  const r = new SchemaReader(value);
  const version = r.int16();
  if (version < 0 || version > 3) throw new DecoderException('java.lang.IllegalStateException', `Unknown offset message version: ${version}`);
  const offset = r.int64();
  if (version >= 3) r.int32(); // leader_epoch
  const metadata = r.string();
  return metadata === '' ? `offset=${offset}` : `offset=${offset},metadata=${metadata}`;
}

/** The group metadata value (versions 0-3) as the JSON line Kafka prints. */
function groupMetadataValue(value: Buffer): string {
  const r = new SchemaReader(value);
  const version = r.int16();
  if (version < 0 || version > 3) throw new DecoderException('java.lang.IllegalStateException', `Unknown group metadata message version: ${version}`);
  const protocolType = r.string();
  const generationId = r.int32();
  const protocol = r.nullableString();
  r.nullableString(); // leader
  if (version >= 2) r.int64(); // current_state_timestamp
  const members =
    r.array(() => {
      const memberId = r.string();
      if (version >= 3) r.nullableString(); // group_instance_id
      r.string(); // client_id
      r.string(); // client_host
      if (version >= 1) r.int32(); // rebalance_timeout
      r.int32(); // session_timeout
      r.nullableBytes(); // subscription
      const assignment = r.nullableBytes() ?? Buffer.alloc(0);
      return { memberId, assignment };
    }) ?? [];
  const assignment = members
    .map((m) => (protocolType === 'consumer' ? `${m.memberId}=${consumerAssignment(m.assignment)}` : `${m.memberId}=${hex(m.assignment)}`))
    .join(',');
  // Json.encodeAsString over a four-entry Scala Map, which keeps insertion order.
  return JSON.stringify({ protocolType, protocol, generationId, assignment: `{${assignment}}` });
}

/**
 * `--offsets-decoder`: records of __consumer_offsets. Keys of versions 0-1 are offset commits
 * (`offset_commit::group=g,partition=t-0`), version 2 group metadata (`group_metadata::group=g`); a null value is
 * a tombstone (`<DELETE>`).
 */
export const offsetsMessageParser: MessageParser = (record) => {
  if (record.key === null) throw new DecoderException('org.apache.kafka.common.KafkaException', 'Failed to decode message using offset topic decoder (message had a missing key)');
  const r = new SchemaReader(record.key);
  const version = r.int16();
  if (version === 0 || version === 1) {
    const group = r.string();
    const topic = r.string();
    const partition = r.int32();
    return { key: `offset_commit::group=${group},partition=${topic}-${partition}`, payload: record.value === null ? '<DELETE>' : offsetCommitValue(record.value) };
  }
  if (version === 2) {
    const group = r.string();
    return { key: `group_metadata::group=${group}`, payload: record.value === null ? '<DELETE>' : groupMetadataValue(record.value) };
  }
  throw new DecoderException('java.lang.IllegalStateException', `Unknown group metadata message version: ${version}`);
};

/** TransactionState's names by the status byte of the transaction log value. */
const TRANSACTION_STATES = ['Empty', 'Ongoing', 'PrepareCommit', 'PrepareAbort', 'CompleteCommit', 'CompleteAbort', 'Dead', 'PrepareEpochFence'];

/**
 * `--transaction-log-decoder`: records of __transaction_state (key version 0: the transactional id; value version
 * 0: producer id and epoch, timeout, state, partitions, timestamps). The partitions are printed in the record's
 * order (Kafka prints its mutable.HashSet's order).
 */
export const transactionLogMessageParser: MessageParser = (record) => {
  if (record.key === null) throw new DecoderException('java.lang.NullPointerException', 'null');
  const k = new SchemaReader(record.key);
  const keyVersion = k.int16();
  if (keyVersion !== 0) return { key: `unknown::version=${keyVersion}` };
  const transactionalId = k.string();
  const key = `transaction_metadata::transactionalId=${transactionalId}`;
  if (record.value === null) return { key, payload: '<DELETE>' };
  const r = new SchemaReader(record.value);
  const version = r.int16();
  if (version !== 0) throw new DecoderException('java.lang.IllegalStateException', `Unknown version ${version} from the transaction log message value`);
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const txnTimeoutMs = r.int32();
  const status = r.int8();
  const state = TRANSACTION_STATES[status];
  if (state === undefined) throw new DecoderException('java.lang.IllegalStateException', `Unknown transaction state byte ${status} from the transaction status message`);
  const partitions: string[] = [];
  for (const t of r.array(() => ({ topic: r.string(), ids: r.array(() => r.int32()) ?? [] })) ?? []) {
    for (const p of t.ids) partitions.push(`${t.topic}-${p}`);
  }
  const txnLastUpdateTimestamp = r.int64();
  return {
    key,
    payload: `producerId:${producerId},producerEpoch:${producerEpoch},state=${state},partitions=[${partitions.join(',')}],txnLastUpdateTimestamp=${txnLastUpdateTimestamp},txnTimeoutMs=${txnTimeoutMs}`,
  };
};
