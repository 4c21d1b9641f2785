import { readVarint, readVarlong, writeVarint, writeVarlong, zigzagSize32, zigzagSize64 } from './varint';

/** A record header: a UTF-8 key and an optional value. */
export interface RecordHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

/**
 * One record of a v2 batch, after offsets and timestamps were made absolute. The wire form inside a batch:
 *
 *   length          varint   bytes after this field
 *   attributes      int8     unused, 0
 *   timestampDelta  varlong  timestamp − batch firstTimestamp
 *   offsetDelta     varint   offset − batch baseOffset
 *   keyLength       varint   −1 = null key
 *   key             bytes
 *   valueLength     varint   −1 = null value (tombstone)
 *   value           bytes
 *   headerCount     varint
 *   headers         { keyLength varint, key UTF-8, valueLength varint (−1 = null), value }
 */
export interface Record {
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeader[];
}

export class InvalidRecordError extends Error {}

function bytesSize(b: Buffer | null): number {
  return b === null ? 1 : zigzagSize32(b.length) + b.length;
}

/** Size of the record body (everything after the length varint). */
export function recordBodySize(
  offsetDelta: number,
  timestampDelta: number,
  key: Buffer | null,
  value: Buffer | null,
  headers: readonly RecordHeader[],
): number {
  let size = 1 + zigzagSize64(timestampDelta) + zigzagSize32(offsetDelta) + bytesSize(key) + bytesSize(value);
  size += zigzagSize32(headers.length);
  for (const h of headers) {
    const k = Buffer.byteLength(h.key, 'utf8');
    size += zigzagSize32(k) + k + bytesSize(h.value);
  }
  return size;
}

function writeBytes(buf: Buffer, pos: number, b: Buffer | null): number {
  if (b === null) return writeVarint(buf, pos, -1);
  pos = writeVarint(buf, pos, b.length);
  // TypedArray.set: Buffer.copy's argument checks cost more than the copy for record-sized values.
  buf.set(b, pos);
  return pos + b.length;
}

/** Writes a whole record (length prefix included) at `pos`; returns the position after it. */
export function writeRecord(
  buf: Buffer,
  pos: number,
  bodySize: number,
  offsetDelta: number,
  timestampDelta: number,
  key: Buffer | null,
  value: Buffer | null,
  headers: readonly RecordHeader[],
): number {
  pos = writeVarint(buf, pos, bodySize);
  buf[pos++] = 0;
  pos = writeVarlong(buf, pos, timestampDelta);
  pos = writeVarint(buf, pos, offsetDelta);
  pos = writeBytes(buf, pos, key);
  pos = writeBytes(buf, pos, value);
  pos = writeVarint(buf, pos, headers.length);
  for (const h of headers) {
    const k = Buffer.from(h.key, 'utf8');
    pos = writeBytes(buf, pos, k);
    pos = writeBytes(buf, pos, h.value);
  }
  return pos;
}

function readBytes(buf: Buffer, pos: number, end: number): { value: Buffer | null; next: number } {
  const len = readVarint(buf, pos, end);
  if (len.value < 0) return { value: null, next: len.next };
  if (len.next + len.value > end) throw new InvalidRecordError('Record field runs past the end of the record');
  return { value: buf.subarray(len.next, len.next + len.value), next: len.next + len.value };
}

/**
 * Reads the record at `pos`; `end` bounds the records area. Key, value and header values are views into `buf`.
 * `timestampOverride` replaces the record's own timestamp (LogAppendTime batches).
 */
export function readRecord(
  buf: Buffer,
  pos: number,
  end: number,
  baseOffset: number,
  firstTimestamp: number,
  timestampOverride?: number,
): { record: Record; next: number } {
  const len = readVarint(buf, pos, end);
  const recEnd = len.next + len.value;
  if (len.value < 0 || recEnd > end) throw new InvalidRecordError(`Invalid record length ${len.value}`);
  let p = len.next + 1; // attributes: unused
  const tsDelta = readVarlong(buf, p, recEnd);
  const offDelta = readVarint(buf, tsDelta.next, recEnd);
  const key = readBytes(buf, offDelta.next, recEnd);
  const value = readBytes(buf, key.next, recEnd);
  const count = readVarint(buf, value.next, recEnd);
  if (count.value < 0) throw new InvalidRecordError(`Invalid header count ${count.value}`);
  p = count.next;
  const headers: RecordHeader[] = [];
  for (let i = 0; i < count.value; i++) {
    const hk = readBytes(buf, p, recEnd);
    if (hk.value === null) throw new InvalidRecordError('Null header key');
    const hv = readBytes(buf, hk.next, recEnd);
    headers.push({ key: hk.value.toString('utf8'), value: hv.value });
    p = hv.next;
  }
  if (p !== recEnd) throw new InvalidRecordError(`Record length ${len.value} does not match its fields`);
  const record: Record = {
    offset: baseOffset + offDelta.value,
    timestamp: timestampOverride ?? firstTimestamp + tsDelta.value,
    key: key.value,
    value: value.value,
    headers,
  };
  return { record, next: recEnd };
}
