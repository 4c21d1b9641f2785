import { ProtocolError } from './protocol-error';

/** Kafka's default socket.request.max.bytes (100 MiB). */
export const DEFAULT_MAX_REQUEST_BYTES = 104857600;

const EMPTY = Buffer.alloc(0);

/**
 * Chunks shorter than this are copied into a tail buffer instead of being kept, so that a trickle of tiny reads
 * costs bytes, not one Buffer object each. The tail starts small and doubles up to TAIL_MAX_BYTES, so an idle
 * connection holding a few bytes holds a few hundred, and each byte is copied once.
 */
const SMALL_CHUNK_BYTES = 4096;
const TAIL_MIN_BYTES = 256;
const TAIL_MAX_BYTES = 16384;

/**
 * Incremental splitter of a TCP byte stream into size-prefixed frames (INT32 size, then `size` bytes), Kafka's
 * NetworkReceive. The size is validated as soon as its 4 bytes arrive (0 <= size <= maxFrameBytes), and may be
 * refused for now by `admit` (queued.max.request.bytes): the decoder then stops and keeps what it has, until
 * `push` is called again. Nothing is allocated for a frame before its bytes arrive, so a frame that arrives
 * slowly costs memory in proportion to what was received, not to the size it declares. A frame inside one chunk
 * is returned as a slice of it; only frames spanning chunks are copied into one exact-size buffer.
 */
export class FrameDecoder {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  /** Small chunks copied together; its first `tailUsed` bytes follow `chunks`. */
  private tail: Buffer | undefined;
  private tailUsed = 0;
  /** Declared size of the frame in progress (its prefix consumed), or -1 while the prefix is incomplete. */
  private size = -1;
  private admitted = false;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.buffered;
  }

  /**
   * Feeds a chunk (empty to resume after a refusal); calls `onFrame` for every complete frame in order. Returns
   * false when it stopped because `admit` refused the size of the next frame. Throws ProtocolError on an invalid
   * size prefix (the stream is unusable after that).
   */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void, admit?: (size: number) => boolean): boolean {
    if (chunk.length > 0) this.append(chunk);
    for (;;) {
      if (this.size < 0) {
        if (this.buffered < 4) return true;
        this.commitTail();
        this.size = this.validate(this.take(4).readInt32BE(0));
        this.admitted = false;
      }
      if (!this.admitted) {
        if (admit !== undefined && !admit(this.size)) return false;
        this.admitted = true;
      }
      if (this.buffered < this.size) return true;
      this.commitTail();
      const frame = this.size === 0 ? EMPTY : this.take(this.size);
      this.size = -1;
      onFrame(frame);
    }
  }

  private append(chunk: Buffer): void {
    // Nothing pending: the chunk is used in place (the common case, whole requests in one read).
    const alone = this.buffered === 0;
    this.buffered += chunk.length;
    if (alone || chunk.length >= SMALL_CHUNK_BYTES) {
      this.commitTail();
      this.chunks.push(chunk);
      return;
    }
    if (this.tail !== undefined && this.tail.length - this.tailUsed < chunk.length) {
      const grown = Math.min(TAIL_MAX_BYTES, this.tail.length * 2);
      this.commitTail();
      this.tail = Buffer.allocUnsafe(Math.max(grown, chunk.length));
    }
    this.tail ??= Buffer.allocUnsafe(Math.max(TAIL_MIN_BYTES, chunk.length));
    chunk.copy(this.tail, this.tailUsed);
    this.tailUsed += chunk.length;
  }

  /** Moves the tail's bytes to the end of `chunks` (before reading, or before a large chunk). */
  private commitTail(): void {
    if (this.tail === undefined) return;
    if (this.tailUsed > 0) this.chunks.push(this.tail.subarray(0, this.tailUsed));
    this.tail = undefined;
    this.tailUsed = 0;
  }

  private validate(size: number): number {
    if (size < 0) throw new ProtocolError(`Invalid receive (size = ${size})`);
    if (size > this.maxFrameBytes) {
      throw new ProtocolError(`Invalid receive (size = ${size} larger than ${this.maxFrameBytes})`);
    }
    return size;
  }

  /** The next `n` buffered bytes: a slice of the first chunk when it holds them all, else a copy. */
  private take(n: number): Buffer {
    const first = this.chunks[0] as Buffer;
    this.buffered -= n;
    if (first.length >= n) {
      const out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
      return out;
    }
    const out = Buffer.allocUnsafe(n);
    let filled = 0;
    while (filled < n) {
      const c = this.chunks[0] as Buffer;
      const k = Math.min(c.length, n - filled);
      c.copy(out, filled, 0, k);
      filled += k;
      if (k === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(k);
    }
    return out;
  }
}
