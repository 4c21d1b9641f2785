import { KafkaError } from '../common/kafka-error';
import { CompressionType, compressionTypeForConfig } from '../records/compression-type';
import { LOG_OVERHEAD, MAGIC_OFFSET, RECORD_BATCH_OVERHEAD, RecordBatch } from '../records/record-batch';
import { RecordBatchBuilder } from '../records/record-batch-builder';
import { convertLegacyToRecordBatch } from '../records/record-conversion';
import { TimestampType } from '../records/timestamp-type';
import { isCompactPolicy, LogConfig } from '../common/config/log-config';

/**
 * Validation of incoming records and offset assignment (Kafka's LogValidator + Log.analyzeAndValidateRecords).
 *
 * Magic-2 input is checked per batch from its header and CRC only: lengths consistent with the bytes present,
 * magic 2, CRC-32C, size ≤ max.message.bytes, lastOffsetDelta + 1 = recordsCount > 0, no control batch from a
 * client, a sequence when there is a producer id, keys on compacted topics (the only check that decodes
 * records). Offsets are then assigned by overwriting baseOffset and the
 * partition leader epoch in place; LogAppendTime also rewrites maxTimestamp and the CRC. Records are never
 * re-encoded, unless the topic's compression.type asks for another codec or the input is a legacy (magic 0/1)
 * set, which is converted to one v2 batch. Everything is validated before anything is modified, so a refused
 * request leaves the log and the caller's buffer as they were.
 */
export type AppendOrigin = 'client' | 'replication' | 'coordinator';

export interface ValidatedRecords {
  /** The bytes to append: the caller's buffer rewritten in place, or a new buffer after conversion. */
  readonly records: Buffer;
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
  readonly offsetOfMaxTimestamp: number;
  /** −1 unless the topic uses LogAppendTime. */
  readonly logAppendTime: number;
  readonly numMessages: number;
  readonly shallowCount: number;
}

export interface LeaderValidationParams {
  readonly nextOffset: number;
  readonly config: LogConfig;
  readonly now: number;
  readonly leaderEpoch: number;
  readonly origin: AppendOrigin;
}

function corrupt(message: string): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', message);
}

/** The batches of `records`, checked for consistent lengths and magic 2 (throws CORRUPT_MESSAGE). */
export function splitBatches(records: Buffer): RecordBatch[] {
  const batches: RecordBatch[] = [];
  let pos = 0;
  while (pos < records.length) {
    if (pos + LOG_OVERHEAD > records.length) throw corrupt(`Record batch at byte ${pos} is truncated (${records.length - pos} bytes)`);
    const size = LOG_OVERHEAD + records.readInt32BE(pos + 8);
    if (size < RECORD_BATCH_OVERHEAD) throw corrupt(`Record batch at byte ${pos} has length ${size - LOG_OVERHEAD}, below the minimum ${RECORD_BATCH_OVERHEAD - LOG_OVERHEAD}`);
    if (pos + size > records.length) throw corrupt(`Record batch at byte ${pos} has size ${size} but only ${records.length - pos} bytes are present`);
    const magic = records.readInt8(pos + MAGIC_OFFSET);
    if (magic !== 2) throw corrupt(`Invalid magic ${magic} in a record batch at byte ${pos} (mixed or unknown formats)`);
    batches.push(new RecordBatch(records, pos));
    pos += size;
  }
  return batches;
}

function validateBatch(batch: RecordBatch, config: LogConfig, now: number, origin: AppendOrigin): void {
  if (batch.sizeInBytes > config.maxMessageBytes) {
    throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch size in the append to the log is ${batch.sizeInBytes} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`);
  }
  batch.ensureValid();
  void batch.compressionType; // throws CORRUPT_MESSAGE for an unknown codec
  const count = batch.recordsCount;
  if (count <= 0 || batch.lastOffsetDelta + 1 !== count) {
    throw new KafkaError('INVALID_RECORD', `Record batch has ${count} records but lastOffsetDelta ${batch.lastOffsetDelta}`);
  }
  if (origin === 'client' && batch.isControlBatch) throw new KafkaError('INVALID_RECORD', 'Clients are not allowed to write control records');
  if (batch.producerId >= 0 && batch.baseSequence < 0) {
    throw new KafkaError('INVALID_RECORD', `Invalid sequence number ${batch.baseSequence} in a batch with producer id ${batch.producerId}`);
  }
  // Compaction keeps the last record per key, so a compacted topic refuses keyless records (this is the one
  // case where Kafka decodes records on append even for v2 input).
  if (isCompactPolicy(config) && !batch.isControlBatch && batch.records().some((r) => r.key === null)) {
    throw new KafkaError('INVALID_RECORD', 'Compacted topic cannot accept message without key.');
  }
  if (config.messageTimestampType === 'CreateTime' && config.messageTimestampDifferenceMaxMs < Number.MAX_SAFE_INTEGER) {
    for (const ts of [batch.firstTimestamp, batch.maxTimestamp]) {
      if (ts >= 0 && Math.abs(ts - now) > config.messageTimestampDifferenceMaxMs) {
        throw new KafkaError('INVALID_TIMESTAMP', `Timestamp ${ts} of a message is out of range. The timestamp should be within [${now - config.messageTimestampDifferenceMaxMs}, ${now + config.messageTimestampDifferenceMaxMs}]`);
      }
    }
  }
}

/** Re-encodes a batch with another codec (compression.type set on the topic). */
function recompress(batch: RecordBatch, codec: CompressionType): Buffer {
  const builder = new RecordBatchBuilder({
    compression: codec,
    baseOffset: 0,
    producerId: batch.producerId,
    producerEpoch: batch.producerEpoch,
    baseSequence: batch.baseSequence,
    isTransactional: batch.isTransactional,
    isControlBatch: batch.isControlBatch,
    initialCapacity: batch.sizeInBytes * 2,
  });
  const base = batch.baseOffset;
  for (const r of batch.records()) builder.append({ offset: r.offset - base, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
  return builder.build();
}

/**
 * Validates records from a producer (or the coordinator) and assigns offsets from `nextOffset`. Returns
 * undefined for an empty input.
 */
export function validateAndAssignOffsets(input: Buffer, p: LeaderValidationParams): ValidatedRecords | undefined {
  if (input.length === 0) return undefined;
  if (input.length <= MAGIC_OFFSET) throw corrupt(`Records of ${input.length} bytes are too short to hold a batch`);
  const target = p.config.compressionType === 'producer' ? undefined : compressionTypeForConfig(p.config.compressionType);
  let records = input;
  const magic = input.readInt8(MAGIC_OFFSET);
  if (magic === 0 || magic === 1) {
    const converted = convertLegacyToRecordBatch(input, target);
    if (converted === undefined) return undefined;
    records = converted;
  } else if (magic !== 2) {
    throw corrupt(`Invalid magic ${magic} in the records`);
  }
  let batches = splitBatches(records);
  for (const b of batches) validateBatch(b, p.config, p.now, p.origin);
  if (target !== undefined && batches.some((b) => b.compressionId !== target)) {
    records = Buffer.concat(batches.map((b) => (b.compressionId === target ? b.bytes() : recompress(b, target))));
    batches = splitBatches(records);
  }
  if (records.length > p.config.segmentBytes) {
    throw new KafkaError('RECORD_LIST_TOO_LARGE', `Message batch size is ${records.length} bytes in append to partition which exceeds the maximum configured segment size of ${p.config.segmentBytes}.`);
  }
  const logAppend = p.config.messageTimestampType === 'LogAppendTime';
  let next = p.nextOffset;
  let maxTimestamp = -1;
  let offsetOfMaxTimestamp = -1;
  let numMessages = 0;
  for (const b of batches) {
    b.baseOffset = next;
    b.partitionLeaderEpoch = p.leaderEpoch;
    if (logAppend) b.setLogAppendTime(p.now);
    const last = next + b.lastOffsetDelta;
    const ts = b.maxTimestamp;
    if (ts > maxTimestamp || offsetOfMaxTimestamp < 0) {
      maxTimestamp = ts;
      offsetOfMaxTimestamp = last;
    }
    numMessages += b.recordsCount;
    next = last + 1;
  }
  return {
    records,
    firstOffset: p.nextOffset,
    lastOffset: next - 1,
    maxTimestamp,
    offsetOfMaxTimestamp,
    logAppendTime: logAppend ? p.now : -1,
    numMessages,
    shallowCount: batches.length,
  };
}

/**
 * Checks records a follower fetched from its leader: structure and CRC, offsets increasing and not below the
 * follower's log end offset. Offsets are kept as they are. A fetch response may end in the middle of a batch;
 * that incomplete tail is dropped (Kafka trims it the same way).
 */
export function validateFollowerRecords(fetched: Buffer, logEndOffset: number): ValidatedRecords | undefined {
  let complete = 0;
  while (complete + LOG_OVERHEAD <= fetched.length) {
    const size = LOG_OVERHEAD + fetched.readInt32BE(complete + 8);
    if (size < RECORD_BATCH_OVERHEAD || complete + size > fetched.length) break;
    complete += size;
  }
  const input = complete === fetched.length ? fetched : fetched.subarray(0, complete);
  if (input.length === 0) return undefined;
  const batches = splitBatches(input);
  let expected = logEndOffset;
  let maxTimestamp = -1;
  let offsetOfMaxTimestamp = -1;
  let numMessages = 0;
  for (const b of batches) {
    b.ensureValid();
    const base = b.baseOffset;
    if (base < expected || b.lastOffsetDelta < 0) {
      throw new KafkaError('OFFSET_OUT_OF_RANGE', `Unexpected offset in append to the log: batch [${base}, ${base + b.lastOffsetDelta}] after log end offset ${expected}`);
    }
    if (b.maxTimestamp > maxTimestamp || offsetOfMaxTimestamp < 0) {
      maxTimestamp = b.maxTimestamp;
      offsetOfMaxTimestamp = b.lastOffset;
    }
    numMessages += b.recordsCount;
    expected = b.lastOffset + 1;
  }
  const first = batches[0] as RecordBatch;
  return {
    records: input,
    firstOffset: first.baseOffset,
    lastOffset: expected - 1,
    maxTimestamp,
    offsetOfMaxTimestamp,
    logAppendTime: first.timestampType === TimestampType.LOG_APPEND_TIME ? first.maxTimestamp : -1,
    numMessages,
    shallowCount: batches.length,
  };
}
