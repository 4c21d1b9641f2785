import { isUtf8 } from 'node:buffer';
import { ProtocolError } from '../protocol-error';
import { readInt64 } from '../../common/int64';

/**
 * How many objects a request of `frameBytes` may decode into: a few thousand, plus one per 8 bytes. Legitimate
 * requests stay far below (a Fetch partition is 28 bytes, an OffsetCommit partition at least 14, an UpdateMetadata
 * partition state over 30), while a Metadata request declaring 50 million empty topic names (2 bytes each) is
 * refused before it costs the heap gigabytes.
 */
export function requestObjectBudget(frameBytes: number): number {
  return 4096 + Math.floor(frameBytes / 8);
}

/**
 * Bounds-checked cursor over one received frame. Every read checks the remaining length first and throws
 * ProtocolError instead of reading past the end; lengths are validated against the bytes actually present before
 * anything is allocated, so a frame claiming a 2 GiB string or a billion-element array costs nothing.
 * BYTES/RECORDS come back as slices of the frame (no copy).
 */
export class ByteReader {
  private pos: number;
  /** Objects (structs, arrays) this frame may still decode into; unlimited unless limitObjects is called. */
  private objectsLeft = Number.POSITIVE_INFINITY;

  constructor(
    readonly buf: Buffer,
    offset = 0,
    private readonly end = buf.length,
  ) {
    this.pos = offset;
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /**
   * Caps the number of objects the frame decodes into (see requestObjectBudget): a count that passes the byte
   * check (each element at least its minimum size) can still describe millions of tiny elements.
   */
  limitObjects(max: number): void {
    this.objectsLeft = max;
  }

  /** Spends `n` of the object budget, or throws ProtocolError once it is gone. */
  chargeObjects(n: number): void {
    this.objectsLeft -= n;
    if (this.objectsLeft < 0) throw new ProtocolError(`The request decodes into more objects than its ${this.end} bytes allow`);
  }

  private need(n: number, what: string): void {
    if (n > this.end - this.pos) {
      throw new ProtocolError(`Error reading ${what}: need ${n} bytes at offset ${this.pos}, only ${this.end - this.pos} remain`);
    }
  }

  int8(): number {
    this.need(1, 'INT8');
    return this.buf.readInt8(this.pos++);
  }

  bool(): boolean {
    return this.int8() !== 0;
  }

  int16(): number {
    this.need(2, 'INT16');
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  uint16(): number {
    this.need(2, 'UINT16');
    const v = this.buf.readUInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    this.need(4, 'INT32');
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  uint32(): number {
    this.need(4, 'UINT32');
    const v = this.buf.readUInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  int64(): number {
    this.need(8, 'INT64');
    const v = readInt64(this.buf, this.pos);
    this.pos += 8;
    return v;
  }

  float64(): number {
    this.need(8, 'FLOAT64');
    const v = this.buf.readDoubleBE(this.pos);
    this.pos += 8;
    return v;
  }

  uuid(): Buffer {
    return this.raw(16);
  }

  /** UNSIGNED_VARINT: at most 5 bytes, value must fit in 32 bits. */
  unsignedVarint(): number {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      this.need(1, 'UNSIGNED_VARINT');
      const b = this.buf[this.pos++] as number;
      value += (b & 0x7f) * 2 ** (7 * i);
      if ((b & 0x80) === 0) {
        if (value > 0xffffffff) throw new ProtocolError('UNSIGNED_VARINT does not fit in 32 bits');
        return value;
      }
    }
    throw new ProtocolError('UNSIGNED_VARINT is longer than 5 bytes');
  }

  /** VARINT (zig-zag, as in record batch v2 records). */
  varint(): number {
    const u = this.unsignedVarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }

  /** VARLONG (zig-zag, up to 10 bytes); exact within ±2^53, see int64.ts for the rule outside. */
  varlong(): number {
    let value = 0n;
    for (let i = 0; i < 10; i++) {
      this.need(1, 'VARLONG');
      const b = this.buf[this.pos++] as number;
      value |= BigInt(b & 0x7f) << BigInt(7 * i);
      if ((b & 0x80) === 0) {
        const signed = (value >> 1n) ^ -(value & 1n);
        return Number(signed);
      }
    }
    throw new ProtocolError('VARLONG is longer than 10 bytes');
  }

  /** `n` raw bytes as a slice of the frame. */
  raw(n: number): Buffer {
    this.need(n, 'bytes');
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  skip(n: number): void {
    this.need(n, 'skipped bytes');
    this.pos += n;
  }

  /** UTF-8 text of `n` bytes; malformed UTF-8 is a protocol error (Kafka would mangle it silently; we refuse). */
  utf8(n: number): string {
    this.need(n, 'STRING');
    const start = this.pos;
    this.pos += n;
    // Short ASCII strings (topic names, client ids) are the common case: skip the validator for them.
    let ascii = n <= 64;
    for (let i = start; ascii && i < start + n; i++) if ((this.buf[i] as number) > 0x7f) ascii = false;
    if (!ascii && !isUtf8(this.buf.subarray(start, start + n))) {
      throw new ProtocolError(`STRING at offset ${start} is not valid UTF-8`);
    }
    return this.buf.toString(ascii ? 'latin1' : 'utf8', start, start + n);
  }

  /** INT16-length STRING / NULLABLE_STRING. */
  string(nullable: boolean): string | null {
    const n = this.int16();
    if (n < 0) {
      if (n === -1 && nullable) return null;
      throw new ProtocolError(`Invalid STRING length ${n}`);
    }
    return this.utf8(n);
  }

  /** COMPACT_STRING / COMPACT_NULLABLE_STRING (length + 1 as UNSIGNED_VARINT). */
  compactString(nullable: boolean): string | null {
    const n = this.unsignedVarint() - 1;
    if (n < 0) {
      if (nullable) return null;
      throw new ProtocolError('Null COMPACT_STRING where the schema forbids null');
    }
    if (n > 0x7fff) throw new ProtocolError(`COMPACT_STRING length ${n} exceeds 32767`);
    return this.utf8(n);
  }

  /** INT32-length BYTES / NULLABLE_BYTES as a slice (no copy). */
  bytes(nullable: boolean): Buffer | null {
    const n = this.int32();
    if (n < 0) {
      if (n === -1 && nullable) return null;
      throw new ProtocolError(`Invalid BYTES length ${n}`);
    }
    return this.raw(n);
  }

  compactBytes(nullable: boolean): Buffer | null {
    const n = this.unsignedVarint() - 1;
    if (n < 0) {
      if (nullable) return null;
      throw new ProtocolError('Null COMPACT_BYTES where the schema forbids null');
    }
    return this.raw(n);
  }

  /**
   * An ARRAY / COMPACT_ARRAY element count, -1 for null. The count is checked against the bytes left so an absurd
   * count fails before any allocation: every element needs at least `minElementSize` bytes.
   */
  arrayLength(compact: boolean, nullable: boolean, minElementSize: number): number {
    const n = compact ? this.unsignedVarint() - 1 : this.int32();
    if (n < 0) {
      if (n === -1 && nullable) return -1;
      throw new ProtocolError(`Invalid array length ${n}`);
    }
    if (n * Math.max(minElementSize, 1) > this.remaining) {
      throw new ProtocolError(`Array length ${n} exceeds the ${this.remaining} bytes remaining in the frame`);
    }
    return n;
  }

  /** Skips a tagged-field section (KIP-482): count, then (tag, size, bytes) triples; unknown tags are ignored. */
  skipTaggedFields(): void {
    const count = this.unsignedVarint();
    let lastTag = -1;
    for (let i = 0; i < count; i++) {
      const tag = this.unsignedVarint();
      if (tag <= lastTag) throw new ProtocolError(`Tagged fields out of order: ${tag} after ${lastTag}`);
      lastTag = tag;
      this.skip(this.unsignedVarint());
    }
  }
}
