/**
 * Zigzag variable-length integers as used inside v2 records (protobuf sint32/sint64): zigzag-map the signed
 * value, then 7 bits per byte, least significant group first, high bit set on all but the last byte.
 * Varints (int32) use 32-bit bit operations; varlongs (timestamp deltas) use float arithmetic so they are exact
 * for magnitudes below 2^52 (the zigzag image must stay a safe integer) — far beyond any timestamp delta.
 */
export interface VarintResult {
  value: number;
  /** Position just after the encoded value. */
  next: number;
}

export class VarintError extends Error {}

export function zigzagSize32(value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  let n = 1;
  while (v >= 0x80) {
    v >>>= 7;
    n++;
  }
  return n;
}

export function zigzagSize64(value: number): number {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  let n = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    n++;
  }
  return n;
}

/** Writes a zigzag varint at `pos`; returns the position after it. The buffer must have room (≤ 5 bytes). */
export function writeVarint(buf: Buffer, pos: number, value: number): number {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  while (v >= 0x80) {
    buf[pos++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[pos++] = v;
  return pos;
}

/** Writes a zigzag varlong at `pos` (≤ 10 bytes); returns the position after it. */
export function writeVarlong(buf: Buffer, pos: number, value: number): number {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  while (v >= 128) {
    buf[pos++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  buf[pos++] = v;
  return pos;
}

/** Reads a zigzag varint; throws VarintError past `end` or after 5 bytes. */
export function readVarint(buf: Buffer, pos: number, end = buf.length): VarintResult {
  let raw = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end) throw new VarintError('Varint runs past the end of the data');
    const b = buf[pos++] as number;
    raw |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
    if (shift > 28) throw new VarintError('Varint is longer than 5 bytes');
  }
  return { value: (raw >>> 1) ^ -(raw & 1), next: pos };
}

/** Reads a zigzag varlong; throws VarintError past `end` or after 10 bytes. */
export function readVarlong(buf: Buffer, pos: number, end = buf.length): VarintResult {
  let raw = 0;
  let mul = 1;
  for (let i = 0; ; i++) {
    if (pos >= end) throw new VarintError('Varlong runs past the end of the data');
    if (i >= 10) throw new VarintError('Varlong is longer than 10 bytes');
    const b = buf[pos++] as number;
    raw += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) break;
    mul *= 128;
  }
  const value = raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
  return { value, next: pos };
}
