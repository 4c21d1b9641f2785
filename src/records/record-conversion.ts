import { KafkaError } from '../common/kafka-error';
import { CompressionType } from './compression-type';
import { MAX_INFLATE_CAP } from './compression';
import { legacyEntrySize, visitLegacyRecords, writeLegacyEntry } from './legacy-message-set';
import { batchesIn, RecordBatch } from './record-batch';
import { RecordBatchBuilder } from './record-batch-builder';
import { TimestampType } from './timestamp-type';

/*
 * Conversion between legacy message sets and v2 batches (Kafka's LogValidator up-conversion and
 * LazyDownConversionRecords). Both are per-record work and run only for pre-0.11 clients.
 */

/**
 * Converts a legacy message set from a producer (magic 0/1, possibly compressed wrappers) into one v2 batch
 * with offsets 0..n-1, keeping the producer's codec unless `compression` says otherwise. Magic-0 messages get
 * no timestamp (−1), as in Kafka. The batch is CreateTime; the log applies LogAppendTime afterwards if the topic
 * asks for it. Returns undefined for an empty set. Errors, as Kafka's LogValidator gives them for this input:
 * CORRUPT_MESSAGE for a malformed set (lengths, magic, CRC-32, undecodable wrapper) or wrappers inflating beyond
 * `maxInflatedBytes` in all; INVALID_RECORD for a compressed set of more than one entry ("Compressed outer record
 * has more than one batch") or a wrapper inside a wrapper; INVALID_TIMESTAMP for a message marked LogAppendTime.
 */
export function convertLegacyToRecordBatch(buf: Buffer, compression?: CompressionType, maxInflatedBytes = MAX_INFLATE_CAP): Buffer | undefined {
  let builder: RecordBatchBuilder | undefined;
  const info = visitLegacyRecords(
    buf,
    (r, wrapperCodec) => {
      builder ??= new RecordBatchBuilder({ compression: compression ?? wrapperCodec, initialCapacity: Math.max(1024, buf.length * 2) });
      builder.append({ timestamp: r.timestamp, key: r.key, value: r.value });
    },
    maxInflatedBytes,
  );
  if (info.compression !== CompressionType.NONE && info.entries > 1) throw new KafkaError('INVALID_RECORD', 'Compressed outer record has more than one batch');
  if (info.logAppendTime) {
    throw new KafkaError('INVALID_TIMESTAMP', 'Invalid timestamp type in message: producer should not set timestamp type to LogAppendTime.');
  }
  if (builder === undefined) return undefined;
  return (builder as RecordBatchBuilder).build();
}

/** Outcome of a down-conversion: the converted bytes, and the error that stopped it early if one did. */
export interface DownConversion {
  readonly records: Buffer;
  /** Set when a batch could not be converted after at least one that could: the records stop before it. */
  readonly stoppedBy?: KafkaError;
}

/**
 * Rewrites v2 batches (as read from the log) as an uncompressed legacy message set of `toMagic`, for Fetch
 * v0-v3 readers: one message per record with its absolute offset; records below `fetchOffset` and control
 * batches are dropped; headers are lost; magic 1 keeps timestamps and the LogAppendTime bit. Emitting
 * uncompressed messages is a simplification of Kafka (which re-wraps with the batch's codec) that every old
 * reader accepts. A trailing partial batch is ignored.
 *
 * A batch that cannot be converted — zstd (UNSUPPORTED_COMPRESSION_TYPE, as Kafka refuses it to old fetchers),
 * records that do not parse, data that does not decompress or inflates beyond `maxInflatedBytes`
 * (CORRUPT_MESSAGE) — throws that KafkaError when it is the first batch with records to return; after one that
 * converted, the conversion stops there and returns what it has, so the reader makes progress up to the bad
 * batch (as Kafka's lazy down-conversion sends the chunks it converted) and gets the error when it fetches it.
 */
export function downConvertUntilError(buf: Buffer, toMagic: 0 | 1, fetchOffset = 0, maxInflatedBytes = MAX_INFLATE_CAP): DownConversion {
  const parts: Buffer[] = [];
  for (const batch of batchesIn(buf)) {
    if (batch.magic < 2) {
      parts.push(batch.bytes());
      continue;
    }
    if (batch.isControlBatch || batch.lastOffset < fetchOffset) continue;
    let converted: Buffer;
    try {
      converted = convertBatch(batch, toMagic, fetchOffset, maxInflatedBytes);
    } catch (err) {
      const error =
        err instanceof KafkaError ? err : new KafkaError('CORRUPT_MESSAGE', `Cannot down-convert the batch at offset ${batch.baseOffset}: ${(err as Error).message}`, { cause: err });
      if (parts.length === 0) throw error;
      return { records: concat(parts), stoppedBy: error };
    }
    parts.push(converted);
  }
  return { records: concat(parts) };
}

/** `downConvertUntilError` for callers that only want the bytes. */
export function downConvert(buf: Buffer, toMagic: 0 | 1, fetchOffset = 0, maxInflatedBytes = MAX_INFLATE_CAP): Buffer {
  return downConvertUntilError(buf, toMagic, fetchOffset, maxInflatedBytes).records;
}

function concat(parts: Buffer[]): Buffer {
  return parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
}

function convertBatch(batch: RecordBatch, toMagic: 0 | 1, fetchOffset: number, maxInflatedBytes: number): Buffer {
  if (batch.compressionType === CompressionType.ZSTD) {
    throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', 'Down-conversion of zstd-compressed batches is not supported');
  }
  const logAppend = batch.timestampType === TimestampType.LOG_APPEND_TIME;
  const attributes = toMagic === 1 && logAppend ? 0x08 : 0;
  const records = batch.records(maxInflatedBytes).filter((r) => r.offset >= fetchOffset);
  let size = 0;
  for (const r of records) size += legacyEntrySize(toMagic, r.key, r.value);
  const out = Buffer.allocUnsafe(size);
  let pos = 0;
  for (const r of records) pos = writeLegacyEntry(out, pos, r.offset, toMagic, attributes, r.timestamp, r.key, r.value);
  return out;
}
