import { CompressionType } from './compression-type';
import { compress } from './compression';
import { crc32c } from './crc32c';
import { writeInt64 } from '../common/int64';
import { RECORD_BATCH_OVERHEAD } from './record-batch';
import { RecordHeader, recordBodySize, writeRecord } from './record';
import { NO_TIMESTAMP, TimestampType } from './timestamp-type';
import { zigzagSize32 } from './varint';

/** Header fields of the batch to build; Kafka's defaults (no producer id, CreateTime) where absent. */
export interface RecordBatchBuilderOptions {
  compression?: CompressionType;
  timestampType?: TimestampType;
  baseOffset?: number;
  partitionLeaderEpoch?: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  isTransactional?: boolean;
  isControlBatch?: boolean;
  /**
   * Keeps a batch's original lastOffsetDelta when records were removed from it (the cleaner does this, as Kafka
   * does, so a batch still spans its original offsets). Ignored if smaller than the records need.
   */
  lastOffsetDelta?: number;
  /** Initial capacity of the records buffer; it grows by doubling. */
  initialCapacity?: number;
}

export interface RecordInput {
  timestamp?: number;
  key?: Buffer | null;
  value?: Buffer | null;
  headers?: readonly RecordHeader[];
  /** Absolute offset; defaults to the previous record's offset + 1 (or baseOffset). */
  offset?: number;
}

const NO_HEADERS: readonly RecordHeader[] = Object.freeze([]);

/**
 * Builds one v2 record batch. Lean on purpose (the perf producer and the internal client use it): records are
 * written straight into a growing buffer with their varints, compressed once at `build()`, and the CRC-32C is
 * computed once. Offsets are consecutive from `baseOffset` unless given; the broker rewrites baseOffset on append.
 */
export class RecordBatchBuilder {
  private readonly compression: CompressionType;
  private readonly timestampType: TimestampType;
  private readonly baseOffset: number;
  private readonly options: RecordBatchBuilderOptions;
  private buf: Buffer;
  private pos = 0;
  private count = 0;
  private lastOffset = -1;
  private firstTimestamp = NO_TIMESTAMP;
  private maxTimestamp = NO_TIMESTAMP;

  constructor(options: RecordBatchBuilderOptions = {}) {
    this.options = options;
    this.compression = options.compression ?? CompressionType.NONE;
    this.timestampType = options.timestampType ?? TimestampType.CREATE_TIME;
    this.baseOffset = options.baseOffset ?? 0;
    this.buf = Buffer.allocUnsafe(Math.max(64, options.initialCapacity ?? 1024));
  }

  get numRecords(): number {
    return this.count;
  }

  /** Uncompressed bytes the batch would take so far (an upper bound for the compressed size, plus overhead). */
  estimatedSizeInBytes(): number {
    return RECORD_BATCH_OVERHEAD + this.pos;
  }

  append(input: RecordInput): this {
    const offset = input.offset ?? (this.count === 0 ? this.baseOffset : this.lastOffset + 1);
    if (this.count > 0 && offset <= this.lastOffset) {
      throw new Error(`Illegal offset ${offset} following previous offset ${this.lastOffset} (offsets must increase)`);
    }
    if (offset < this.baseOffset) throw new Error(`Offset ${offset} is below the base offset ${this.baseOffset}`);
    const timestamp = input.timestamp ?? NO_TIMESTAMP;
    if (this.count === 0) this.firstTimestamp = timestamp;
    if (timestamp > this.maxTimestamp) this.maxTimestamp = timestamp;
    const key = input.key ?? null;
    const value = input.value ?? null;
    const headers = input.headers ?? NO_HEADERS;
    const offsetDelta = offset - this.baseOffset;
    const tsDelta = timestamp - this.firstTimestamp;
    const body = recordBodySize(offsetDelta, tsDelta, key, value, headers);
    this.ensureCapacity(zigzagSize32(body) + body);
    this.pos = writeRecord(this.buf, this.pos, body, offsetDelta, tsDelta, key, value, headers);
    this.count++;
    this.lastOffset = offset;
    return this;
  }

  build(): Buffer {
    if (this.count === 0) throw new Error('Cannot build an empty record batch');
    const records = compress(this.compression, this.buf.subarray(0, this.pos));
    const out = Buffer.allocUnsafe(RECORD_BATCH_OVERHEAD + records.length);
    const o = this.options;
    writeInt64(out, 0, this.baseOffset);
    out.writeInt32BE(out.length - 12, 8);
    out.writeInt32BE(o.partitionLeaderEpoch ?? -1, 12);
    out.writeInt8(2, 16);
    let attributes = this.compression;
    if (this.timestampType === TimestampType.LOG_APPEND_TIME) attributes |= 0x08;
    if (o.isTransactional) attributes |= 0x10;
    if (o.isControlBatch) attributes |= 0x20;
    out.writeInt16BE(attributes, 21);
    out.writeInt32BE(Math.max(this.lastOffset - this.baseOffset, o.lastOffsetDelta ?? -1), 23);
    writeInt64(out, 27, this.firstTimestamp);
    writeInt64(out, 35, this.maxTimestamp);
    writeInt64(out, 43, o.producerId ?? -1);
    out.writeInt16BE(o.producerEpoch ?? -1, 51);
    out.writeInt32BE(o.baseSequence ?? -1, 53);
    out.writeInt32BE(this.count, 57);
    records.copy(out, RECORD_BATCH_OVERHEAD);
    out.writeUInt32BE(crc32c(out.subarray(21)), 17);
    return out;
  }

  private ensureCapacity(extra: number): void {
    if (this.pos + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
}
