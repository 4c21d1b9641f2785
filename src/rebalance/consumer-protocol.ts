/**
 * The consumer protocol embedded in JoinGroup/SyncGroup (Kafka's ConsumerProtocol). The coordinator never reads
 * these bytes; tools decode them to show who owns what, and the group member in kafka-ts encodes them. Readers
 * accept trailing bytes from newer versions, as Kafka does.
 */
export interface ConsumerSubscription {
  version: number;
  topics: string[];
  userData: Buffer | null;
}

export interface ConsumerAssignment {
  version: number;
  partitions: { topic: string; partitions: number[] }[];
  userData: Buffer | null;
}

class Reader {
  private pos = 0;
  constructor(private readonly buf: Buffer) {}
  int16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }
  int32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }
  string(): string {
    const len = this.int16();
    const s = this.buf.toString('utf8', this.pos, this.pos + len);
    this.pos += len;
    return s;
  }
  bytes(): Buffer | null {
    const len = this.int32();
    if (len < 0) return null;
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  array<T>(item: () => T): T[] {
    const n = this.int32();
    return Array.from({ length: Math.max(0, n) }, item);
  }
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
}

function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeInt16BE(b.length);
  return Buffer.concat([len, b]);
}

function int16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}

function int32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}

function bytes(b: Buffer | null): Buffer {
  return b === null ? int32(-1) : Buffer.concat([int32(b.length), b]);
}

export function encodeSubscription(topics: readonly string[], userData: Buffer | null = null): Buffer {
  return Buffer.concat([int16(0), int32(topics.length), ...topics.map(str), bytes(userData)]);
}

export function decodeSubscription(buf: Buffer): ConsumerSubscription {
  const r = new Reader(buf);
  const version = r.int16();
  const topics = r.array(() => r.string());
  const userData = r.done ? null : r.bytes();
  return { version, topics, userData };
}

export function encodeAssignment(partitions: readonly { topic: string; partitions: readonly number[] }[], userData: Buffer | null = null): Buffer {
  return Buffer.concat([
    int16(0),
    int32(partitions.length),
    ...partitions.flatMap((t) => [str(t.topic), int32(t.partitions.length), ...t.partitions.map(int32)]),
    bytes(userData),
  ]);
}

/** An empty buffer is "nothing assigned" (what the coordinator answers members the leader left out). */
export function decodeAssignment(buf: Buffer): ConsumerAssignment {
  if (buf.length === 0) return { version: 0, partitions: [], userData: null };
  const r = new Reader(buf);
  const version = r.int16();
  const partitions = r.array(() => ({ topic: r.string(), partitions: r.array(() => r.int32()) }));
  const userData = r.done ? null : r.bytes();
  return { version, partitions, userData };
}
