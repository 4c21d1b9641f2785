import { KafkaError } from '../common/kafka-error';
import { decompress } from './compression';
import { RecordBatch } from './record-batch';

export interface RecordPayloadSizes {
  /** Records at or past the offset asked for. */
  count: number;
  /** Sum of their key and value lengths (what Kafka's ConsumerPerformance counts as data consumed). */
  bytes: number;
}

/** Position after the last varint read; a module variable so the scan allocates nothing per record. */
let cursor = 0;

function varint(buf: Buffer, pos: number, end: number): number {
  let raw = 0;
  let shift = 0;
  for (;;) {
    if (pos >= end || shift > 28) throw new KafkaError('CORRUPT_MESSAGE', 'Truncated or overlong varint in a record');
    const b = buf[pos++] as number;
    raw |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) break;
    shift += 7;
  }
  cursor = pos;
  return (raw >>> 1) ^ -(raw & 1);
}

function skipVarlong(buf: Buffer, pos: number, end: number): number {
  for (let i = 0; i < 10; i++) {
    if (pos >= end) break;
    if (((buf[pos++] as number) & 0x80) === 0) return pos;
  }
  throw new KafkaError('CORRUPT_MESSAGE', 'Truncated or overlong varlong in a record');
}

/**
 * Counts the records of `batch` whose offset is at least `fromOffset` and sums their key and value lengths,
 * walking only the length fields: no Record objects, no copies. A consumer that only measures (the perf tool)
 * needs no more than this; headers are skipped through each record's own length.
 */
export function recordPayloadSizes(batch: RecordBatch, fromOffset: number): RecordPayloadSizes {
  const base = batch.baseOffset;
  if (batch.nextOffset <= fromOffset) return { count: 0, bytes: 0 };
  const data = decompress(batch.compressionType, batch.recordsPayload());
  const end = data.length;
  const n = batch.recordsCount;
  let pos = 0;
  let count = 0;
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const length = varint(data, pos, end);
    const recordEnd = cursor + length;
    if (length < 0 || recordEnd > end) throw new KafkaError('CORRUPT_MESSAGE', `Invalid record length ${length} in batch at offset ${base}`);
    const afterTimestamp = skipVarlong(data, cursor + 1, recordEnd);
    const offsetDelta = varint(data, afterTimestamp, recordEnd);
    const keyLength = varint(data, cursor, recordEnd);
    const valueLength = varint(data, cursor + Math.max(0, keyLength), recordEnd);
    if (base + offsetDelta >= fromOffset) {
      count++;
      bytes += Math.max(0, keyLength) + Math.max(0, valueLength);
    }
    pos = recordEnd;
  }
  return { count, bytes };
}
