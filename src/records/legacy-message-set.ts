import { KafkaError } from '../common/kafka-error';
import { CompressionType, isCompressionTypeId } from './compression-type';
import { decompress, inflateLimitError, MAX_INFLATE_CAP } from './compression';
import { crc32 } from './crc32';
import { readInt64, writeInt64 } from '../common/int64';
import { LOG_OVERHEAD } from './record-batch';
import { NO_TIMESTAMP, TimestampType } from './timestamp-type';

/**
 * Legacy message sets (magic 0 and 1), spoken by pre-0.11 clients such as kafka-node. A set is a plain
 * concatenation of entries:
 *
 *   offset       int64   absolute offset (producers send anything; v1 inner messages are relative)
 *   messageSize  int32   bytes of the message below
 *   crc          uint32  CRC-32 (IEEE) of magic .. end of value
 *   magic        int8    0 or 1
 *   attributes   int8    bits 0-2 codec (0 none, 1 gzip, 2 snappy, 3 lz4); bit 3 LogAppendTime (magic 1)
 *   timestamp    int64   magic 1 only; −1 = none
 *   key          int32 length (−1 = null) + bytes
 *   value        int32 length (−1 = null) + bytes
 *
 * A compressed set is one wrapper message whose value is the compressed inner set. This broker never stores
 * legacy sets: they are converted to a v2 batch on append and produced again only for old fetchers.
 */
export const MESSAGE_OVERHEAD_V0 = 14;
export const MESSAGE_OVERHEAD_V1 = 22;

export interface LegacyMessage {
  readonly offset: number;
  readonly magic: 0 | 1;
  readonly attributes: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

/** A message with the timestamp a reader should see (wrapper LogAppendTime applied). */
export interface LegacyRecord {
  readonly timestamp: number;
  readonly timestampType: TimestampType;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

function corrupt(message: string): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', message);
}

function readNullableBytes(buf: Buffer, pos: number, end: number): { value: Buffer | null; next: number } {
  if (pos + 4 > end) throw corrupt('Message field length runs past the end of the message');
  const len = buf.readInt32BE(pos);
  if (len < 0) return { value: null, next: pos + 4 };
  if (pos + 4 + len > end) throw corrupt(`Message field of ${len} bytes runs past the end of the message`);
  return { value: buf.subarray(pos + 4, pos + 4 + len), next: pos + 4 + len };
}

/** Calls `visit` for each entry of a legacy set in order, checked as `readLegacyMessages` documents. */
function forEachLegacyMessage(buf: Buffer, visit: (m: LegacyMessage) => void): void {
  let pos = 0;
  while (pos < buf.length) {
    if (pos + LOG_OVERHEAD > buf.length) throw corrupt(`Incomplete message set entry at byte ${pos}`);
    const offset = readInt64(buf, pos);
    const size = buf.readInt32BE(pos + 8);
    const start = pos + LOG_OVERHEAD;
    const end = start + size;
    if (size < MESSAGE_OVERHEAD_V0 || end > buf.length) {
      throw corrupt(`Message at byte ${pos} has size ${size}, outside [${MESSAGE_OVERHEAD_V0}, ${buf.length - start}]`);
    }
    const magic = buf.readInt8(start + 4);
    if (magic !== 0 && magic !== 1) throw corrupt(`Invalid magic ${magic} in a legacy message set`);
    if (magic === 1 && size < MESSAGE_OVERHEAD_V1) throw corrupt(`Message v1 at byte ${pos} is only ${size} bytes`);
    const stored = buf.readUInt32BE(start);
    const computed = crc32(buf.subarray(start + 4, end));
    if (stored !== computed) throw corrupt(`Message is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
    const attributes = buf.readInt8(start + 5);
    let p = start + 6;
    let timestamp = NO_TIMESTAMP;
    if (magic === 1) {
      timestamp = readInt64(buf, p);
      p += 8;
    }
    const key = readNullableBytes(buf, p, end);
    const value = readNullableBytes(buf, key.next, end);
    if (value.next !== end) throw corrupt(`Message at byte ${pos} has size ${size} but its fields take ${value.next - start}`);
    visit({ offset, magic, attributes, timestamp, key: key.value, value: value.value });
    pos = end;
  }
}

/**
 * Parses the entries of a legacy set (no decompression). Every entry must be complete, of magic 0 or 1, with a
 * matching CRC-32 and consistent lengths; anything else is CORRUPT_MESSAGE.
 */
export function readLegacyMessages(buf: Buffer): LegacyMessage[] {
  const out: LegacyMessage[] = [];
  forEachLegacyMessage(buf, (m) => out.push(m));
  return out;
}

/** What `visitLegacyRecords` saw besides the records. */
export interface LegacySetInfo {
  /** The codec of the first compressed wrapper, or none. */
  readonly compression: CompressionType;
  /** Outer entries (messages or wrappers). */
  readonly entries: number;
  /** Whether an outer message carries the LogAppendTime attribute (a producer must not set it). */
  readonly logAppendTime: boolean;
}

/**
 * Calls `visit` for every logical message of a legacy set (with the codec of the wrapper it came from), wrappers
 * decompressed, without collecting them (a set of millions of tiny messages never becomes millions of live
 * objects). All wrappers together inflate into
 * at most `maxInflatedBytes` (CORRUPT_MESSAGE beyond it); a wrapper inside a wrapper is INVALID_RECORD, as in
 * Kafka's LogValidator ("Compressed outer record should not have an inner record with a compression attribute
 * set"). Like Kafka, the inner messages' offsets and magic are not trusted (kafka-node puts magic-0 messages
 * inside magic-1 wrappers); offsets are assigned afresh later.
 */
export function visitLegacyRecords(buf: Buffer, visit: (r: LegacyRecord, wrapperCodec: CompressionType) => void, maxInflatedBytes = MAX_INFLATE_CAP): LegacySetInfo {
  let compression = CompressionType.NONE;
  let entries = 0;
  let inflated = 0;
  let logAppendTime = false;
  forEachLegacyMessage(buf, (m) => {
    entries++;
    const codec = m.attributes & 0x07;
    const logAppend = m.magic === 1 && (m.attributes & 0x08) !== 0;
    if (logAppend) logAppendTime = true;
    const type = m.magic === 0 ? TimestampType.NO_TIMESTAMP_TYPE : logAppend ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    if (codec === CompressionType.NONE) {
      visit({ timestamp: m.timestamp, timestampType: type, key: m.key, value: m.value }, CompressionType.NONE);
      return;
    }
    if (!isCompressionTypeId(codec) || codec === CompressionType.ZSTD) throw corrupt(`Invalid compression codec ${codec} in a legacy message`);
    if (m.value === null) throw corrupt('Compressed legacy message has a null value');
    if (compression === CompressionType.NONE) compression = codec;
    const inner = decompress(codec, m.value, maxInflatedBytes - inflated);
    inflated += inner.length;
    if (inflated > maxInflatedBytes) throw inflateLimitError(codec, maxInflatedBytes);
    forEachLegacyMessage(inner, (im) => {
      if ((im.attributes & 0x07) !== CompressionType.NONE) {
        throw new KafkaError('INVALID_RECORD', 'Compressed outer record should not have an inner record with a compression attribute set');
      }
      const ts = logAppend ? m.timestamp : im.magic === 1 ? im.timestamp : NO_TIMESTAMP;
      visit({ timestamp: ts, timestampType: type, key: im.key, value: im.value }, codec);
    });
  });
  return { compression, entries, logAppendTime };
}

/**
 * The logical messages of a legacy set, wrappers decompressed (into at most `maxInflatedBytes` in all), as
 * `visitLegacyRecords` reads them. Returns the codec of the first wrapper (or none) so the caller can keep the
 * producer's compression.
 */
export function readLegacyRecords(buf: Buffer, maxInflatedBytes = MAX_INFLATE_CAP): { records: LegacyRecord[]; compression: CompressionType } {
  const records: LegacyRecord[] = [];
  const { compression } = visitLegacyRecords(buf, (r) => records.push(r), maxInflatedBytes);
  return { records, compression };
}

export function legacyEntrySize(magic: 0 | 1, key: Buffer | null, value: Buffer | null): number {
  return LOG_OVERHEAD + (magic === 0 ? MESSAGE_OVERHEAD_V0 : MESSAGE_OVERHEAD_V1) + (key?.length ?? 0) + (value?.length ?? 0);
}

/** Writes one entry at `pos` and returns the position after it. */
export function writeLegacyEntry(
  buf: Buffer,
  pos: number,
  offset: number,
  magic: 0 | 1,
  attributes: number,
  timestamp: number,
  key: Buffer | null,
  value: Buffer | null,
): number {
  const size = legacyEntrySize(magic, key, value) - LOG_OVERHEAD;
  writeInt64(buf, pos, offset);
  buf.writeInt32BE(size, pos + 8);
  const start = pos + LOG_OVERHEAD;
  let p = start + 4;
  buf.writeInt8(magic, p++);
  buf.writeInt8(attributes, p++);
  if (magic === 1) {
    writeInt64(buf, p, timestamp);
    p += 8;
  }
  for (const field of [key, value]) {
    if (field === null) {
      buf.writeInt32BE(-1, p);
      p += 4;
    } else {
      buf.writeInt32BE(field.length, p);
      field.copy(buf, p + 4);
      p += 4 + field.length;
    }
  }
  buf.writeUInt32BE(crc32(buf.subarray(start + 4, p)), start);
  return p;
}
