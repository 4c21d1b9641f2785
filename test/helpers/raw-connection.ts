import { Socket, connect } from 'node:net';
import { FrameDecoder } from '../../src/protocol/framing';

/** A bare TCP connection speaking size-prefixed frames, for tests that must send what no client would. */
export class RawConnection {
  readonly frames: Buffer[] = [];
  closed = false;
  private readonly decoder = new FrameDecoder(1 << 30);
  private waiters: (() => void)[] = [];

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.decoder.push(chunk, (f) => this.frames.push(f));
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  /** `localAddress` (another loopback address, 127.0.0.2) makes the broker see the client at that host. */
  static open(port: number, localAddress?: string): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, ...(localAddress !== undefined ? { localAddress } : {}) }, () => resolve(new RawConnection(s)));
      s.once('error', reject);
    });
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  send(...frames: Buffer[]): void {
    const parts: Buffer[] = [];
    for (const f of frames) {
      const size = Buffer.alloc(4);
      size.writeInt32BE(f.length);
      parts.push(size, f);
    }
    this.socket.write(Buffer.concat(parts));
  }

  sendRaw(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Resolves when `predicate` holds, the connection closes, or the deadline passes. */
  async until(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate()) {
      if (this.closed) return false;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    return true;
  }

  /** Waits for a response frame with this correlation id. */
  async response(correlationId: number, timeoutMs = 5000): Promise<Buffer | undefined> {
    const find = (): Buffer | undefined => this.frames.find((f) => f.length >= 4 && f.readInt32BE(0) === correlationId);
    await this.until(() => find() !== undefined, timeoutMs);
    return find();
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Request frame (without size prefix) with header v1, or v2 when `flexible`. */
export function requestFrame(apiKey: number, apiVersion: number, correlationId: number, body: Buffer, clientId: string | null = 'raw', flexible = false): Buffer {
  const id = clientId === null ? Buffer.from([0xff, 0xff]) : Buffer.concat([Buffer.from([0, 0]), Buffer.from(clientId)]);
  if (clientId !== null) id.writeInt16BE(Buffer.byteLength(clientId), 0);
  const head = Buffer.alloc(8);
  head.writeInt16BE(apiKey, 0);
  head.writeInt16BE(apiVersion, 2);
  head.writeInt32BE(correlationId, 4);
  return Buffer.concat([head, id, flexible ? Buffer.from([0]) : Buffer.alloc(0), body]);
}
