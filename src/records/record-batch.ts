import { KafkaError } from '../common/kafka-error';
import { CompressionType, isCompressionTypeId } from './compression-type';
import { decompress } from './compression';
import { crc32c } from './crc32c';
import { readInt64, writeInt64 } from '../common/int64';
import { InvalidRecordError, Record, readRecord } from './record';
import { TimestampType } from './timestamp-type';
import { VarintError } from './varint';

/**
 * A view over one record batch (magic 2) inside a Buffer; nothing is copied or decoded until asked.
 *
 *   off size field
 *     0   8  baseOffset            int64   rewritten by the leader on append
 *     8   4  batchLength           int32   bytes from offset 12 to the end (= total − 12)
 *    12   4  partitionLeaderEpoch  int32   stamped by the leader; outside the CRC
 *    16   1  magic                 int8    2
 *    17   4  crc                   uint32  CRC-32C of bytes 21 .. end
 *    21   2  attributes            int16   bits 0-2 codec, bit 3 timestampType, bit 4 transactional, bit 5 control
 *    23   4  lastOffsetDelta       int32
 *    27   8  firstTimestamp        int64
 *    35   8  maxTimestamp          int64   broker time for LogAppendTime
 *    43   8  producerId            int64
 *    51   2  producerEpoch         int16
 *    53   4  baseSequence          int32
 *    57   4  recordsCount          int32   never compressed
 *    61   …  records (one compressed block when the codec is not none)
 *
 * baseOffset and partitionLeaderEpoch lie outside the CRC, so offsets are assigned by overwriting bytes 0-7 and
 * 12-15 in place; only LogAppendTime (attributes + maxTimestamp) needs the CRC recomputed.
 */
export const LOG_OVERHEAD = 12;
export const RECORD_BATCH_OVERHEAD = 61;
export const MAGIC_OFFSET = 16;
export const CURRENT_MAGIC = 2;

/** Header field offsets (Kafka's DefaultRecordBatch constants), for code that reads headers without a RecordBatch. */
export const BASE_OFFSET_OFFSET = 0;
export const BATCH_LENGTH_OFFSET = 8;
const PARTITION_LEADER_EPOCH_OFFSET = 12;
const CRC_OFFSET = 17;
const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
const FIRST_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
const PRODUCER_ID_OFFSET = 43;
const PRODUCER_EPOCH_OFFSET = 51;
const BASE_SEQUENCE_OFFSET = 53;
const RECORDS_COUNT_OFFSET = 57;

/** The header bytes up to and including lastOffsetDelta: enough for a batch's offset range and size. */
export const OFFSET_RANGE_HEADER_LENGTH = LAST_OFFSET_DELTA_OFFSET + 4;

const COMPRESSION_CODEC_MASK = 0x07;
const TIMESTAMP_TYPE_MASK = 0x08;
const TRANSACTIONAL_FLAG_MASK = 0x10;
const CONTROL_FLAG_MASK = 0x20;

export class RecordBatch {
  /** `position` is where the batch starts in `buffer`; the caller guarantees the whole batch is present. */
  constructor(
    readonly buffer: Buffer,
    readonly position = 0,
  ) {}

  get baseOffset(): number {
    return readInt64(this.buffer, this.position);
  }

  set baseOffset(offset: number) {
    writeInt64(this.buffer, this.position, offset);
  }

  get batchLength(): number {
    return this.buffer.readInt32BE(this.position + BATCH_LENGTH_OFFSET);
  }

  /** Total bytes of the batch, log overhead included. */
  get sizeInBytes(): number {
    return LOG_OVERHEAD + this.batchLength;
  }

  get partitionLeaderEpoch(): number {
    return this.buffer.readInt32BE(this.position + PARTITION_LEADER_EPOCH_OFFSET);
  }

  set partitionLeaderEpoch(epoch: number) {
    this.buffer.writeInt32BE(epoch, this.position + PARTITION_LEADER_EPOCH_OFFSET);
  }

  get magic(): number {
    return this.buffer.readInt8(this.position + MAGIC_OFFSET);
  }

  get checksum(): number {
    return this.buffer.readUInt32BE(this.position + CRC_OFFSET);
  }

  get attributes(): number {
    return this.buffer.readInt16BE(this.position + ATTRIBUTES_OFFSET);
  }

  get compressionId(): number {
    return this.attributes & COMPRESSION_CODEC_MASK;
  }

  /** The codec; throws CORRUPT_MESSAGE for ids 5-7, which no Kafka version defines. */
  get compressionType(): CompressionType {
    const id = this.compressionId;
    if (!isCompressionTypeId(id)) throw new KafkaError('CORRUPT_MESSAGE', `Unknown compression type id ${id}`);
    return id;
  }

  get timestampType(): TimestampType {
    return this.attributes & TIMESTAMP_TYPE_MASK ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
  }

  get isTransactional(): boolean {
    return (this.attributes & TRANSACTIONAL_FLAG_MASK) !== 0;
  }

  get isControlBatch(): boolean {
    return (this.attributes & CONTROL_FLAG_MASK) !== 0;
  }

  get lastOffsetDelta(): number {
    return this.buffer.readInt32BE(this.position + LAST_OFFSET_DELTA_OFFSET);
  }

  get lastOffset(): number {
    return this.baseOffset + this.lastOffsetDelta;
  }

  get nextOffset(): number {
    return this.lastOffset + 1;
  }

  get firstTimestamp(): number {
    return readInt64(this.buffer, this.position + FIRST_TIMESTAMP_OFFSET);
  }

  get maxTimestamp(): number {
    return readInt64(this.buffer, this.position + MAX_TIMESTAMP_OFFSET);
  }

  get producerId(): number {
    return readInt64(this.buffer, this.position + PRODUCER_ID_OFFSET);
  }

  get producerEpoch(): number {
    return this.buffer.readInt16BE(this.position + PRODUCER_EPOCH_OFFSET);
  }

  get baseSequence(): number {
    return this.buffer.readInt32BE(this.position + BASE_SEQUENCE_OFFSET);
  }

  get recordsCount(): number {
    return this.buffer.readInt32BE(this.position + RECORDS_COUNT_OFFSET);
  }

  /** The bytes of this batch (a view, not a copy). */
  bytes(): Buffer {
    return this.buffer.subarray(this.position, this.position + this.sizeInBytes);
  }

  computeChecksum(): number {
    return crc32c(this.buffer.subarray(this.position + ATTRIBUTES_OFFSET, this.position + this.sizeInBytes));
  }

  isValid(): boolean {
    return this.sizeInBytes >= RECORD_BATCH_OVERHEAD && this.checksum === this.computeChecksum();
  }

  /** Throws CORRUPT_MESSAGE unless the header is sane and the CRC matches. */
  ensureValid(): void {
    if (this.sizeInBytes < RECORD_BATCH_OVERHEAD) {
      throw new KafkaError('CORRUPT_MESSAGE', `Record batch is only ${this.sizeInBytes} bytes, smaller than the minimum ${RECORD_BATCH_OVERHEAD}`);
    }
    const stored = this.checksum;
    const computed = this.computeChecksum();
    if (stored !== computed) {
      throw new KafkaError('CORRUPT_MESSAGE', `Record is corrupt (stored crc = ${stored}, computed crc = ${computed})`);
    }
  }

  /** Marks the batch LogAppendTime with `timestamp` as its max timestamp and recomputes the CRC. */
  setLogAppendTime(timestamp: number): void {
    const attrs = this.attributes | TIMESTAMP_TYPE_MASK;
    this.buffer.writeInt16BE(attrs, this.position + ATTRIBUTES_OFFSET);
    writeInt64(this.buffer, this.position + MAX_TIMESTAMP_OFFSET, timestamp);
    this.buffer.writeUInt32BE(this.computeChecksum(), this.position + CRC_OFFSET);
  }

  /** Sets the max timestamp (CreateTime batches: the records' own, as Kafka's setMaxTimestamp) and the CRC. */
  setMaxTimestamp(timestamp: number): void {
    writeInt64(this.buffer, this.position + MAX_TIMESTAMP_OFFSET, timestamp);
    this.buffer.writeUInt32BE(this.computeChecksum(), this.position + CRC_OFFSET);
  }

  /** The records area as stored (compressed when the codec is not none). */
  recordsPayload(): Buffer {
    return this.buffer.subarray(this.position + RECORD_BATCH_OVERHEAD, this.position + this.sizeInBytes);
  }

  /**
   * Decodes every record (decompressing if needed), with absolute offsets and timestamps. This is per-record
   * work: the append and fetch paths never call it; conversion, compaction and timestamp lookups do.
   * Throws CORRUPT_MESSAGE when the records do not parse or their count differs from the header, or when a
   * compressed batch would inflate beyond `maxInflatedBytes` (by default the largest cap, compression.ts).
   */
  records(maxInflatedBytes?: number): Record[] {
    const data = decompress(this.compressionType, this.recordsPayload(), maxInflatedBytes);
    const count = this.recordsCount;
    const base = this.baseOffset;
    const first = this.firstTimestamp;
    const override = this.timestampType === TimestampType.LOG_APPEND_TIME ? this.maxTimestamp : undefined;
    const out: Record[] = [];
    let pos = 0;
    try {
      for (let i = 0; i < count; i++) {
        const r = readRecord(data, pos, data.length, base, first, override);
        out.push(r.record);
        pos = r.next;
      }
    } catch (err) {
      if (err instanceof InvalidRecordError || err instanceof VarintError || err instanceof RangeError) {
        throw new KafkaError('CORRUPT_MESSAGE', `Invalid record in batch at offset ${base}: ${err.message}`, { cause: err });
      }
      throw err;
    }
    if (pos !== data.length) {
      throw new KafkaError('CORRUPT_MESSAGE', `Batch at offset ${base} has ${data.length - pos} bytes after its ${count} records`);
    }
    return out;
  }

  toString(): string {
    return `RecordBatch(magic=2, offsets=[${this.baseOffset}, ${this.lastOffset}], sizeInBytes=${this.sizeInBytes}, crc=${this.checksum})`;
  }
}

/**
 * The whole batches at the start of `buffer`, stopping at the first incomplete one (a fetch may end mid-batch).
 * Only lengths are looked at; validation is the caller's business.
 */
export function batchesIn(buffer: Buffer): RecordBatch[] {
  const out: RecordBatch[] = [];
  let pos = 0;
  while (pos + LOG_OVERHEAD <= buffer.length) {
    const size = LOG_OVERHEAD + buffer.readInt32BE(pos + BATCH_LENGTH_OFFSET);
    if (size < RECORD_BATCH_OVERHEAD || pos + size > buffer.length) break;
    out.push(new RecordBatch(buffer, pos));
    pos += size;
  }
  return out;
}
