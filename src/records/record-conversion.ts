import { KafkaError } from '../common/kafka-error';
import { CompressionType } from './compression-type';
import { legacyEntrySize, readLegacyRecords, writeLegacyEntry } from './legacy-message-set';
import { batchesIn } from './record-batch';
import { RecordBatchBuilder } from './record-batch-builder';
import { TimestampType } from './timestamp-type';

/*
 * Conversion between legacy message sets and v2 batches (Kafka's LogValidator up-conversion and
 * LazyDownConversionRecords). Both are per-record work and run only for pre-0.11 clients.
 */

/**
 * Converts a legacy message set (magic 0/1, possibly compressed wrappers) into one v2 batch with offsets
 * 0..n-1, keeping the producer's codec. Magic-0 messages get no timestamp (−1), as in Kafka. The batch is
 * CreateTime; the log applies LogAppendTime afterwards if the topic asks for it. Throws CORRUPT_MESSAGE for a
 * malformed set and returns undefined for an empty one.
 */
export function convertLegacyToRecordBatch(buf: Buffer, compression?: CompressionType): Buffer | undefined {
  const { records, compression: producerCodec } = readLegacyRecords(buf);
  if (records.length === 0) return undefined;
  const builder = new RecordBatchBuilder({
    compression: compression ?? producerCodec,
    initialCapacity: buf.length + records.length * 8,
  });
  for (const r of records) builder.append({ timestamp: r.timestamp, key: r.key, value: r.value });
  return builder.build();
}

/**
 * Rewrites v2 batches (as read from the log) as an uncompressed legacy message set of `toMagic`, for Fetch
 * v0-v3 readers: one message per record with its absolute offset; records below `fetchOffset` and control
 * batches are dropped; headers are lost; magic 1 keeps timestamps and the LogAppendTime bit. Emitting
 * uncompressed messages is a simplification of Kafka (which re-wraps with the batch's codec) that every old
 * reader accepts. zstd batches are refused with UNSUPPORTED_COMPRESSION_TYPE, as Kafka does for old fetchers.
 * A trailing partial batch is ignored.
 */
export function downConvert(buf: Buffer, toMagic: 0 | 1, fetchOffset = 0): Buffer {
  const parts: Buffer[] = [];
  for (const batch of batchesIn(buf)) {
    if (batch.magic < 2) {
      parts.push(batch.bytes());
      continue;
    }
    if (batch.isControlBatch || batch.lastOffset < fetchOffset) continue;
    if (batch.compressionType === CompressionType.ZSTD) {
      throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', 'Down-conversion of zstd-compressed batches is not supported');
    }
    const logAppend = batch.timestampType === TimestampType.LOG_APPEND_TIME;
    const attributes = toMagic === 1 && logAppend ? 0x08 : 0;
    const records = batch.records().filter((r) => r.offset >= fetchOffset);
    let size = 0;
    for (const r of records) size += legacyEntrySize(toMagic, r.key, r.value);
    const out = Buffer.allocUnsafe(size);
    let pos = 0;
    for (const r of records) pos = writeLegacyEntry(out, pos, r.offset, toMagic, attributes, r.timestamp, r.key, r.value);
    parts.push(out);
  }
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}
