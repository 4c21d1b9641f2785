import { readInt64, writeInt64 } from '../common/int64';

/*
 * The records the group coordinator writes to `__consumer_offsets`, in Kafka 2.8's format (GroupMetadataManager
 * with OffsetCommitKey.json, OffsetCommitValue.json and GroupMetadataKey.json; old Struct encoding, big-endian,
 * int16-length strings), so that kafka-dump-log --offsets-decoder and Kafka's OffsetsMessageFormatter read them:
 *
 *     offset commit key   = version int16 (1), group string, topic string, partition int32
 *     offset commit value = version int16 (3), offset int64, leader_epoch int32, metadata string,
 *                           commit_timestamp int64
 *     group metadata key  = version int16 (2), group string   (written here only as a tombstone)
 *
 * A null value is a tombstone: the offset (or the group) is gone.
 */
export const OFFSET_COMMIT_KEY_VERSION = 1;
export const OFFSET_COMMIT_VALUE_VERSION = 3;
export const GROUP_METADATA_KEY_VERSION = 2;

/** One committed offset as the value holds it (Kafka's OffsetAndMetadata without the v1 expire timestamp). */
export interface OffsetCommitValue {
  offset: number;
  /** -1 when the client gave none. */
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
}

/** What a key of `__consumer_offsets` names. */
export type OffsetsTopicKey = { kind: 'offset'; group: string; topic: string; partition: number } | { kind: 'group'; group: string };

function str(s: string): Buffer {
  const bytes = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(2 + bytes.length);
  out.writeInt16BE(bytes.length, 0);
  bytes.copy(out, 2);
  return out;
}

function int16(v: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeInt16BE(v, 0);
  return out;
}

export function offsetCommitKey(group: string, topic: string, partition: number): Buffer {
  const p = Buffer.alloc(4);
  p.writeInt32BE(partition, 0);
  return Buffer.concat([int16(OFFSET_COMMIT_KEY_VERSION), str(group), str(topic), p]);
}

export function groupMetadataKey(group: string): Buffer {
  return Buffer.concat([int16(GROUP_METADATA_KEY_VERSION), str(group)]);
}

export function offsetCommitValue(v: OffsetCommitValue): Buffer {
  const head = Buffer.alloc(2 + 8 + 4);
  head.writeInt16BE(OFFSET_COMMIT_VALUE_VERSION, 0);
  writeInt64(head, 2, v.offset);
  head.writeInt32BE(v.leaderEpoch, 10);
  const ts = Buffer.alloc(8);
  writeInt64(ts, 0, v.commitTimestamp);
  return Buffer.concat([head, str(v.metadata), ts]);
}

/** A bounds-checked reader: a short or corrupt record throws instead of reading past the buffer. */
class Reader {
  private pos = 0;

  constructor(private readonly buf: Buffer) {}

  private need(n: number): number {
    if (this.pos + n > this.buf.length) throw new Error(`record too short: ${n} bytes needed at ${this.pos} of ${this.buf.length}`);
    const at = this.pos;
    this.pos += n;
    return at;
  }

  int16(): number {
    return this.buf.readInt16BE(this.need(2));
  }

  int32(): number {
    return this.buf.readInt32BE(this.need(4));
  }

  int64(): number {
    return readInt64(this.buf, this.need(8));
  }

  string(): string {
    const len = this.int16();
    if (len < 0) throw new Error('null string');
    const at = this.need(len);
    return this.buf.toString('utf8', at, at + len);
  }
}

/**
 * The key of a `__consumer_offsets` record (versions 0-1 offsets, 2 group metadata, as Kafka's readMessageKey);
 * undefined for a version Kafka 2.8 does not know either. Throws on a malformed key.
 */
export function readOffsetsTopicKey(key: Buffer): OffsetsTopicKey | undefined {
  const r = new Reader(key);
  const version = r.int16();
  if (version === 0 || version === 1) return { kind: 'offset', group: r.string(), topic: r.string(), partition: r.int32() };
  if (version === 2) return { kind: 'group', group: r.string() };
  return undefined;
}

/** An offset commit value of any version 0-3 (v1's expire timestamp is read and dropped). Throws when malformed. */
export function readOffsetCommitValue(value: Buffer): OffsetCommitValue {
  const r = new Reader(value);
  const version = r.int16();
  if (version < 0 || version > 3) throw new Error(`Unknown offset message version: ${version}`);
  const offset = r.int64();
  const leaderEpoch = version >= 3 ? r.int32() : -1;
  const metadata = r.string();
  const commitTimestamp = r.int64();
  return { offset, leaderEpoch, metadata, commitTimestamp };
}
