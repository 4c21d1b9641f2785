import { KafkaError } from '../common/kafka-error';
import { CompressionType } from './compression-type';
import { decompress } from './compression';
import { RECORD_BATCH_OVERHEAD, RecordBatch } from './record-batch';

/**
 * The validation walk over the records of a v2 batch: what Kafka's LogValidator gets from iterating every
 * record (DefaultRecord.readFrom / readPartiallyFrom inside DefaultRecordBatch's iterators), without building
 * a single object. Uncompressed batches are walked in place; compressed ones are inflated (bounded) and the
 * copy is walked. The walk reads only varints and skips keys, values and headers by their lengths:
 *
 *   - every record's length varint must fit in what is left of the batch, and its fields (attributes,
 *     timestampDelta, offsetDelta, key, value, headers) must consume exactly that many bytes;
 *   - the number of records must equal the header's recordsCount, and they must end exactly at the batch end;
 *   - header counts, header key lengths must not be negative; key, value and header value lengths must be ≥ −1
 *     (−1 is null); varints are at most 5 bytes, varlongs at most 10;
 *   - with CHECK_OFFSET_DELTAS (leader appends), record i must have offsetDelta i;
 *   - with COUNT_NULL_KEYS (compacted topics), null keys are counted (the caller refuses them after the
 *     timestamp checks, which Kafka reports first);
 *   - the largest timestamp is always measured, the smallest with TRACK_MIN_TIMESTAMP (the range check of
 *     message.timestamp.difference.max.ms, off by default, needs it).
 *
 * Any failure is INVALID_RECORD (87), as Kafka 2.8's InvalidRecordException from those readers: "Invalid record
 * size: ...", "Found invalid number of record headers ...", "Incorrect declared batch size, ...". Data that does
 * not decompress, or inflates beyond the cap, is CORRUPT_MESSAGE (see compression.ts).
 *
 * Deliberately stricter than Kafka 2.8, where no client can tell (none writes such batches): negative lengths
 * other than −1 (Kafka reads any negative key/value length as null), and offsetDelta ≠ index in a client batch
 * (Kafka keeps an uncompressed one as it is, and re-assigns the offsets of a compressed one by recompressing).
 */
export const CHECK_OFFSET_DELTAS = 1;
export const COUNT_NULL_KEYS = 2;
export const TRACK_MIN_TIMESTAMP = 4;

/** What the last walk measured: one object, overwritten by every walk, so that walking allocates nothing. */
export interface RecordsWalk {
  /** Kafka's maxBatchTimestamp: the largest record timestamp above −1 (NO_TIMESTAMP), else −1. */
  maxTimestamp: number;
  /** With TRACK_MIN_TIMESTAMP: the smallest record timestamp other than −1, or +Infinity. */
  minTimestamp: number;
  /** Records with a null key (counted only with COUNT_NULL_KEYS). */
  nullKeys: number;
  /** Bytes walked (the inflated size for a compressed batch). */
  bytes: number;
}

export const recordsWalk: RecordsWalk = { maxTimestamp: -1, minTimestamp: Infinity, nullKeys: 0, bytes: 0 };

function invalid(message: string): KafkaError {
  return new KafkaError('INVALID_RECORD', message);
}

/** Position after the last varint read (module state, so reading a varint returns one number and allocates nothing). */
let next = 0;

function structure(what: string): KafkaError {
  return invalid(`Found invalid record structure: ${what}`);
}

/** A zigzag varint of at most 5 bytes, all of them before `limit`; leaves the position after it in `next`. */
function varint(buf: Uint8Array, p: number, limit: number): number {
  let b = p < limit ? (buf[p++] as number) : -1;
  if (b < 0x80) {
    if (b < 0) throw structure('a field runs past the end of its record');
    next = p;
    return (b >>> 1) ^ -(b & 1);
  }
  let raw = b & 0x7f;
  for (let shift = 7; ; shift += 7) {
    if (shift > 28) throw structure('varint is longer than 5 bytes');
    if (p >= limit) throw structure('a field runs past the end of its record');
    b = buf[p++] as number;
    raw |= (b & 0x7f) << shift;
    if (b < 0x80) break;
  }
  next = p;
  return (raw >>> 1) ^ -(raw & 1);
}

/** A zigzag varlong of at most 10 bytes (exact below 2^53, far beyond any timestamp delta); sets `next`. */
function varlong(buf: Uint8Array, p: number, limit: number): number {
  let b = p < limit ? (buf[p++] as number) : -1;
  if (b < 0x80) {
    if (b < 0) throw structure('a field runs past the end of its record');
    next = p;
    return (b >>> 1) ^ -(b & 1);
  }
  let raw = b & 0x7f;
  let mul = 128;
  for (let i = 1; ; i++) {
    if (i >= 10) throw structure('varlong is longer than 10 bytes');
    if (p >= limit) throw structure('a field runs past the end of its record');
    b = buf[p++] as number;
    raw += (b & 0x7f) * mul;
    if (b < 0x80) break;
    mul *= 128;
  }
  next = p;
  const value = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  // Small values as int32, so that callers' arithmetic on them stays integer (and fast).
  return value >= -0x80000000 && value <= 0x7fffffff ? value | 0 : value;
}

/**
 * Walks `count` records in `buf[start, end)` (the records area of a batch, inflated if it was compressed).
 * Throws INVALID_RECORD at the first inconsistency; on success `recordsWalk` holds the timestamps found.
 *
 * The hot loop (~10 ns a record on a 2-core Xeon VM): one- and two-byte varints are decoded inline, longer ones
 * by `varint`/`varlong`. Records ending at least FAST_MARGIN bytes before the end of `buf` are walked without
 * checking every field against the record's end — no inline read lies more than 7 bytes past it (each read
 * starts at most a few bytes beyond the previous field, and skips are checked), so nothing outside `buf` is
 * read, and the final position check catches any field that crossed the end. The last records go through
 * `walkRecordChecked`, which checks every read. The only allocations are the errors thrown.
 */
export function walkRecords(buf: Uint8Array, start: number, end: number, count: number, firstTimestamp: number, flags: number): void {
  const checkOffsets = (flags & CHECK_OFFSET_DELTAS) !== 0;
  const countNullKeys = (flags & COUNT_NULL_KEYS) !== 0;
  const trackMin = (flags & TRACK_MIN_TIMESTAMP) !== 0;
  const fastLimit = buf.length - FAST_MARGIN;
  let nullKeys = 0;
  // A record's timestamp is firstTimestamp + delta; NO_TIMESTAMP (-1) is exempt from the minimum. Deltas are
  // tracked with integer sentinels and flags (not ±Infinity), so that they stay int32 in the loop.
  const noTimestampDelta = -1 - firstTimestamp;
  let maxDelta = 0;
  let minDelta = 0;
  let hasMin = false;
  let pos = start;
  let b = 0;
  for (let i = 0; i < count; i++) {
    if (pos >= end) throw invalid(`Incorrect declared batch size, premature EOF reached: ${count} records declared, ${i} present`);
    // length: usually two bytes (bodies of 64 to 8191 bytes)
    let size: number;
    let p: number;
    b = buf[pos] as number;
    if (b < 0x80) {
      size = (b >>> 1) ^ -(b & 1);
      p = pos + 1;
    } else if (pos + 1 < end && (buf[pos + 1] as number) < 0x80) {
      const raw = (b & 0x7f) | ((buf[pos + 1] as number) << 7);
      size = (raw >>> 1) ^ -(raw & 1);
      p = pos + 2;
    } else {
      size = varint(buf, pos, end);
      p = next;
    }
    if (size < 0 || size > end - p) {
      throw invalid(`Invalid record size: expected ${size} bytes in record payload, but instead the buffer has only ${end - p} remaining bytes.`);
    }
    if (size === 0) throw structure('empty record');
    const recordStart = p;
    const recordEnd = p + size;
    let delta: number;
    if (recordEnd > fastLimit) {
      delta = walkRecordChecked(buf, p, recordEnd, i, checkOffsets);
      if (lastKeyNull && countNullKeys) nullKeys++;
    } else {
      p++; // attributes: unused in v2
      // timestampDelta (varlong)
      if ((b = buf[p] as number) < 0x80) {
        delta = (b >>> 1) ^ -(b & 1);
        p++;
      } else {
        delta = varlong(buf, p, recordEnd);
        p = next;
      }
      // offsetDelta
      let offsetDelta: number;
      if ((b = buf[p] as number) < 0x80) {
        offsetDelta = (b >>> 1) ^ -(b & 1);
        p++;
      } else if ((buf[p + 1] as number) < 0x80) {
        const raw = (b & 0x7f) | ((buf[p + 1] as number) << 7);
        offsetDelta = (raw >>> 1) ^ -(raw & 1);
        p += 2;
      } else {
        offsetDelta = varint(buf, p, recordEnd);
        p = next;
      }
      if (checkOffsets && offsetDelta !== i) throw offsetError(offsetDelta, i);
      // key: 0x01 is null
      let length: number;
      if ((b = buf[p] as number) === 0x01) {
        p++;
        if (countNullKeys) nullKeys++;
      } else {
        if (b < 0x80) {
          length = (b >>> 1) ^ -(b & 1);
          p++;
        } else {
          length = varint(buf, p, recordEnd);
          p = next;
        }
        if (length < 0) throw structure(`invalid key length ${length}`);
        if (length > recordEnd - p) throw structure(`key of ${length} bytes runs past the end of its record`);
        p += length;
      }
      // value: one byte up to 63 bytes, two up to 8191
      if ((b = buf[p] as number) < 0x80) {
        length = (b >>> 1) ^ -(b & 1);
        p++;
      } else if ((buf[p + 1] as number) < 0x80) {
        const raw = (b & 0x7f) | ((buf[p + 1] as number) << 7);
        length = (raw >>> 1) ^ -(raw & 1);
        p += 2;
      } else {
        length = varint(buf, p, recordEnd);
        p = next;
      }
      if (length >= 0) {
        if (length > recordEnd - p) throw structure(`value of ${length} bytes runs past the end of its record`);
        p += length;
      } else if (length !== -1) {
        throw structure(`invalid value length ${length}`);
      }
      // headers: almost always none
      if ((buf[p] as number) === 0) {
        p++;
      } else {
        const headers = varint(buf, p, recordEnd);
        p = walkHeaders(buf, next, recordEnd, headers);
      }
      if (p !== recordEnd) throw sizeError(size, p - recordStart);
    }
    // Timestamps are tracked as deltas (small integers) and made absolute once, after the loop.
    if (delta > maxDelta || i === 0) maxDelta = delta;
    if (trackMin && (delta < minDelta || !hasMin) && delta !== noTimestampDelta) {
      minDelta = delta;
      hasMin = true;
    }
    pos = recordEnd;
  }
  if (pos !== end) throw invalid(`Incorrect declared batch size, records still remaining in file: ${end - pos} bytes after ${count} records`);
  // Kafka's maxBatchTimestamp starts at NO_TIMESTAMP and only rises: records below -1 never become the max.
  const maxTimestamp = firstTimestamp + maxDelta;
  recordsWalk.maxTimestamp = count > 0 && maxTimestamp > -1 ? maxTimestamp : -1;
  recordsWalk.minTimestamp = hasMin ? firstTimestamp + minDelta : Infinity;
  recordsWalk.nullKeys = nullKeys;
  recordsWalk.bytes = end - start;
}

/** Bytes after a record's end that `walkRecords` must have in `buf` to walk it without per-field checks. */
const FAST_MARGIN = 16;

/** Whether the key of the last record `walkRecordChecked` walked was null. */
let lastKeyNull = false;

function offsetError(offsetDelta: number, index: number): KafkaError {
  return invalid(`Invalid offset delta ${offsetDelta} of record ${index} in a batch from a client: the deltas must be 0, 1, 2, ...`);
}

function sizeError(size: number, read: number): KafkaError {
  return invalid(`Invalid record size: expected to read ${size} bytes in record payload, but instead read ${read}`);
}

/**
 * The body of the record `buf[p, recordEnd)` (after its length), every read checked against `recordEnd`: for
 * the records `walkRecords` cannot walk unchecked. Returns its timestamp delta; sets `lastKeyNull`.
 */
function walkRecordChecked(buf: Uint8Array, p: number, recordEnd: number, index: number, checkOffsets: boolean): number {
  const recordStart = p;
  p++; // attributes
  const delta = varlong(buf, p, recordEnd);
  const offsetDelta = varint(buf, next, recordEnd);
  if (checkOffsets && offsetDelta !== index) throw offsetError(offsetDelta, index);
  let length = varint(buf, next, recordEnd);
  p = next;
  lastKeyNull = length === -1;
  if (length >= 0) {
    if (length > recordEnd - p) throw structure(`key of ${length} bytes runs past the end of its record`);
    p += length;
  } else if (length !== -1) {
    throw structure(`invalid key length ${length}`);
  }
  length = varint(buf, p, recordEnd);
  p = next;
  if (length >= 0) {
    if (length > recordEnd - p) throw structure(`value of ${length} bytes runs past the end of its record`);
    p += length;
  } else if (length !== -1) {
    throw structure(`invalid value length ${length}`);
  }
  const headers = varint(buf, p, recordEnd);
  p = walkHeaders(buf, next, recordEnd, headers);
  if (p !== recordEnd) throw sizeError(recordEnd - recordStart, p - recordStart);
  return delta;
}

/** The `headers` headers of a record from `p`; returns the position after them. */
function walkHeaders(buf: Uint8Array, p: number, recordEnd: number, headers: number): number {
  if (headers < 0) throw invalid(`Found invalid number of record headers ${headers}`);
  // Every header takes at least two bytes, so a huge count fails at the record end rather than looping on.
  for (let h = 0; h < headers; h++) {
    const keySize = varint(buf, p, recordEnd);
    p = next;
    if (keySize < 0) throw invalid(`Invalid negative header key size ${keySize}`);
    if (keySize > recordEnd - p) throw structure(`header key of ${keySize} bytes runs past the end of its record`);
    p += keySize;
    const valueSize = varint(buf, p, recordEnd);
    p = next;
    if (valueSize >= 0) {
      if (valueSize > recordEnd - p) throw structure(`header value of ${valueSize} bytes runs past the end of its record`);
      p += valueSize;
    } else if (valueSize !== -1) {
      throw structure(`invalid header value length ${valueSize}`);
    }
  }
  return p;
}

/**
 * Walks the records of one v2 batch whose header and CRC were already checked: in place when uncompressed,
 * else inflated into at most `maxInflatedBytes` first (CORRUPT_MESSAGE beyond it, or for undecodable data).
 */
export function walkBatchRecords(batch: RecordBatch, flags: number, maxInflatedBytes: number): void {
  const codec = batch.compressionType;
  const start = batch.position + RECORD_BATCH_OVERHEAD;
  const end = batch.position + batch.sizeInBytes;
  if (codec === CompressionType.NONE) {
    walkRecords(batch.buffer, start, end, batch.recordsCount, batch.firstTimestamp, flags);
    return;
  }
  const data = decompress(codec, batch.buffer.subarray(start, end), maxInflatedBytes);
  walkRecords(data, 0, data.length, batch.recordsCount, batch.firstTimestamp, flags);
}
