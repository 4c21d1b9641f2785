import { writeInt64 } from '../../common/int64';

/** Byte fields at least this large are kept by reference (one writev chunk) instead of being copied. */
const ZERO_COPY_THRESHOLD = 1024;

/**
 * Growable output buffer with the protocol's vocabulary. Large BYTES/RECORDS values are not copied: the writer
 * ends its current segment, keeps the caller's Buffer as its own chunk and continues in fresh space, so a Fetch
 * response built from log slices goes to the socket as a list of chunks (socket.writev) without ever being
 * concatenated. Call `toChunks()` for that list or `toBuffer()` for one contiguous Buffer.
 */
export class ByteWriter {
  private buf: Buffer;
  private pos = 0;
  private segStart = 0;
  private readonly chunks: Buffer[] = [];
  private chunkBytes = 0;

  constructor(initialSize = 256) {
    this.buf = Buffer.allocUnsafe(initialSize);
  }

  /** Total bytes written so far. */
  get length(): number {
    return this.chunkBytes + (this.pos - this.segStart);
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.segStart;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, used + n, 256));
    this.buf.copy(next, 0, this.segStart, this.pos);
    // Earlier chunks still reference the old buffer's memory, which is never written again.
    this.buf = next;
    this.segStart = 0;
    this.pos = used;
  }

  int8(v: number): this {
    this.ensure(1);
    this.buf.writeInt8(v, this.pos);
    this.pos += 1;
    return this;
  }

  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.ensure(2);
    this.buf.writeInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  uint16(v: number): this {
    this.ensure(2);
    this.buf.writeUInt16BE(v, this.pos);
    this.pos += 2;
    return this;
  }

  int32(v: number): this {
    this.ensure(4);
    this.buf.writeInt32BE(v, this.pos);
    this.pos += 4;
    return this;
  }

  uint32(v: number): this {
    this.ensure(4);
    this.buf.writeUInt32BE(v >>> 0, this.pos);
    this.pos += 4;
    return this;
  }

  int64(v: number): this {
    this.ensure(8);
    writeInt64(this.buf, this.pos, v);
    this.pos += 8;
    return this;
  }

  float64(v: number): this {
    this.ensure(8);
    this.buf.writeDoubleBE(v, this.pos);
    this.pos += 8;
    return this;
  }

  unsignedVarint(v: number): this {
    this.ensure(5);
    let value = v >>> 0;
    while (value >= 0x80) {
      this.buf[this.pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    this.buf[this.pos++] = value;
    return this;
  }

  varint(v: number): this {
    return this.unsignedVarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  varlong(v: number): this {
    this.ensure(10);
    const n = BigInt(Math.trunc(v));
    let value = BigInt.asUintN(64, (n << 1n) ^ (n >> 63n));
    while (value >= 0x80n) {
      this.buf[this.pos++] = Number(value & 0x7fn) | 0x80;
      value >>= 7n;
    }
    this.buf[this.pos++] = Number(value);
    return this;
  }

  /** Raw bytes; copied when small, kept by reference when large. */
  raw(b: Buffer): this {
    if (b.length >= ZERO_COPY_THRESHOLD) {
      this.flushSegment();
      this.chunks.push(b);
      this.chunkBytes += b.length;
      return this;
    }
    this.ensure(b.length);
    b.copy(this.buf, this.pos);
    this.pos += b.length;
    return this;
  }

  private flushSegment(): void {
    if (this.pos > this.segStart) {
      this.chunks.push(this.buf.subarray(this.segStart, this.pos));
      this.chunkBytes += this.pos - this.segStart;
      this.segStart = this.pos;
    }
  }

  string(v: string | null): this {
    if (v === null) return this.int16(-1);
    const n = Buffer.byteLength(v, 'utf8');
    this.int16(n);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos, n, 'utf8');
    return this;
  }

  compactString(v: string | null): this {
    if (v === null) return this.unsignedVarint(0);
    const n = Buffer.byteLength(v, 'utf8');
    this.unsignedVarint(n + 1);
    this.ensure(n);
    this.pos += this.buf.write(v, this.pos, n, 'utf8');
    return this;
  }

  /** BYTES with INT32 length; an array of Buffers is written as their concatenation (one length prefix). */
  bytes(v: Buffer | readonly Buffer[] | null): this {
    if (v === null) return this.int32(-1);
    if (Buffer.isBuffer(v)) return this.int32(v.length).raw(v);
    let n = 0;
    for (const b of v) n += b.length;
    this.int32(n);
    for (const b of v) this.raw(b);
    return this;
  }

  compactBytes(v: Buffer | readonly Buffer[] | null): this {
    if (v === null) return this.unsignedVarint(0);
    if (Buffer.isBuffer(v)) return this.unsignedVarint(v.length + 1).raw(v);
    let n = 0;
    for (const b of v) n += b.length;
    this.unsignedVarint(n + 1);
    for (const b of v) this.raw(b);
    return this;
  }

  /** An empty tagged-field section. */
  emptyTaggedFields(): this {
    return this.unsignedVarint(0);
  }

  /** Overwrites an INT32 at an absolute position already written (used for frame size prefixes). */
  patchInt32(position: number, v: number): void {
    let base = 0;
    for (const c of this.chunks) {
      if (position < base + c.length) {
        c.writeInt32BE(v, position - base);
        return;
      }
      base += c.length;
    }
    this.buf.writeInt32BE(v, this.segStart + (position - base));
  }

  /** The written bytes as chunks (for socket.writev / cork); the writer must not be used afterwards. */
  toChunks(): Buffer[] {
    this.flushSegment();
    return this.chunks;
  }

  toBuffer(): Buffer {
    const chunks = this.toChunks();
    if (chunks.length === 1) return chunks[0] as Buffer;
    return Buffer.concat(chunks, this.chunkBytes);
  }
}
