import { ProtocolError } from './protocol-error';

/** Kafka's default socket.request.max.bytes (100 MiB). */
export const DEFAULT_MAX_REQUEST_BYTES = 104857600;

/**
 * Incremental splitter of a TCP byte stream into size-prefixed frames (INT32 size, then `size` bytes). The size is
 * validated as soon as its 4 bytes arrive (0 <= size <= maxFrameBytes, Kafka's NetworkReceive rule), before any
 * buffer for the frame is allocated. A frame that arrives inside one chunk is returned as a slice of that chunk;
 * only frames spanning chunks are assembled into one exact-size buffer.
 */
export class FrameDecoder {
  private readonly pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Size of the frame being assembled, or -1 while the size prefix itself is incomplete. */
  private frameSize = -1;

  constructor(private readonly maxFrameBytes: number) {}

  /** Bytes received but not yet returned as frames. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  /**
   * Feeds a chunk; calls `onFrame` for every complete frame in order. Throws ProtocolError (and keeps no state
   * worth reusing) on an invalid size prefix.
   */
  push(chunk: Buffer, onFrame: (frame: Buffer) => void): void {
    let data = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.frameSize < 0) {
        if (this.pendingBytes < 4) return;
        this.frameSize = this.validate(this.peekSize());
      }
      if (this.pendingBytes < 4 + this.frameSize) return;
      const assembled = this.assemble();
      data = assembled.rest;
      onFrame(assembled.frame);
    }
    let pos = 0;
    while (data.length - pos >= 4) {
      const size = this.validate(data.readInt32BE(pos));
      if (data.length - pos - 4 < size) break;
      const frame = data.subarray(pos + 4, pos + 4 + size);
      pos += 4 + size;
      onFrame(frame);
    }
    if (pos < data.length) {
      const rest = data.subarray(pos);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
      this.frameSize = rest.length >= 4 ? rest.readInt32BE(0) : -1;
    }
  }

  private validate(size: number): number {
    if (size < 0) throw new ProtocolError(`Invalid receive (size = ${size})`);
    if (size > this.maxFrameBytes) {
      throw new ProtocolError(`Invalid receive (size = ${size} larger than ${this.maxFrameBytes})`);
    }
    return size;
  }

  private peekSize(): number {
    const head = Buffer.allocUnsafe(4);
    let copied = 0;
    for (const b of this.pending) {
      const n = Math.min(4 - copied, b.length);
      b.copy(head, copied, 0, n);
      copied += n;
      if (copied === 4) break;
    }
    return head.readInt32BE(0);
  }

  /** Copies exactly one frame out of the pending chunks; returns it and the unread tail of the last chunk. */
  private assemble(): { frame: Buffer; rest: Buffer } {
    const frame = Buffer.allocUnsafe(this.frameSize);
    let skip = 4;
    let filled = 0;
    let rest: Buffer = Buffer.alloc(0);
    for (const b of this.pending) {
      let start = 0;
      if (skip > 0) {
        start = Math.min(skip, b.length);
        skip -= start;
      }
      const n = Math.min(b.length - start, this.frameSize - filled);
      if (n > 0) b.copy(frame, filled, start, start + n);
      filled += Math.max(n, 0);
      if (filled === this.frameSize && skip === 0) rest = b.subarray(start + Math.max(n, 0));
    }
    this.pending.length = 0;
    this.pendingBytes = 0;
    this.frameSize = -1;
    return { frame, rest };
  }
}
