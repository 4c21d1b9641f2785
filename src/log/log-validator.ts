import { KafkaError } from '../common/kafka-error';
import { RecordError, RecordValidationError } from '../common/record-validation-error';
import { TopicPartition, tpString } from '../common/topic-partition';
import { CompressionType, compressionTypeForConfig } from '../records/compression-type';
import { LOG_OVERHEAD, MAGIC_OFFSET, RECORD_BATCH_OVERHEAD, RecordBatch } from '../records/record-batch';
import { RecordBatchBuilder } from '../records/record-batch-builder';
import { inflateCap } from '../records/compression';
import { CHECK_OFFSET_DELTAS, COUNT_NULL_KEYS, recordsWalk, TRACK_MIN_TIMESTAMP, walkBatchRecords } from '../records/record-batch-validator';
import { convertLegacyToRecordBatch } from '../records/record-conversion';
import { TimestampType } from '../records/timestamp-type';
import { isCompactPolicy, LogConfig } from '../common/config/log-config';

/**
 * Validation of incoming records and offset assignment (Kafka's LogValidator + Log.analyzeAndValidateRecords).
 *
 * A leader append takes exactly one magic-2 batch (Kafka: "Compressed outer record has more than one batch",
 * INVALID_RECORD), or one legacy (magic 0/1) set that is converted to one. The batch is checked as Kafka checks
 * it, in Kafka's order: baseOffset 0 from a client, size ≤ max.message.bytes, CRC-32C, lastOffsetDelta + 1 =
 * recordsCount > 0, no control batch from a client, a sequence when there is a producer id — and then every
 * record, by the zero-allocation walk of src/records/record-batch-validator.ts (in place when uncompressed,
 * over a bounded inflated copy when compressed: see inflateCap): lengths, counts, header counts, offset deltas
 * 0..n-1 from clients, keys on compacted topics, timestamps against message.timestamp.difference.max.ms, no
 * LogAppendTime from producers. Offsets are then assigned by overwriting baseOffset and the partition leader
 * epoch in place; the max timestamp is set to the records' own (as Kafka's setMaxTimestamp), and LogAppendTime
 * rewrites it to the broker's clock; either recomputes the CRC only when the bytes change. Records are never
 * re-encoded, unless the topic's compression.type asks for another codec or the input is a legacy set.
 * Everything is validated before anything is modified, so a refused request leaves the log and the caller's
 * buffer as they were.
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
  /** Named in the per-record error messages (Kafka's "... in topic partition t-0."). */
  readonly topicPartition?: TopicPartition;
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

/** Log.analyzeAndValidateRecords: the shallow checks Kafka makes on every batch before LogValidator runs. */
function analyzeBatch(batch: RecordBatch, config: LogConfig, origin: AppendOrigin): void {
  if (origin === 'client' && batch.baseOffset !== 0) {
    throw new KafkaError('INVALID_RECORD', `The baseOffset of the record batch in the append should be 0, but it is ${batch.baseOffset}`);
  }
  if (batch.sizeInBytes > config.maxMessageBytes) {
    throw new KafkaError('MESSAGE_TOO_LARGE', `The record batch size in the append to the log is ${batch.sizeInBytes} bytes which exceeds the maximum configured value of ${config.maxMessageBytes}.`);
  }
  batch.ensureValid();
  void batch.compressionType; // throws CORRUPT_MESSAGE for an unknown codec
}

/** LogValidator.validateBatch (the count checks for every origin: offsets are assigned from them). */
function validateBatchHeader(batch: RecordBatch, origin: AppendOrigin): void {
  const count = batch.recordsCount;
  if (count <= 0 || batch.lastOffsetDelta + 1 !== count) {
    throw new KafkaError('INVALID_RECORD', `Inconsistent batch offset range [0, ${batch.lastOffsetDelta}] and count of records ${count}`);
  }
  if (origin === 'client' && batch.isControlBatch) throw new KafkaError('INVALID_RECORD', 'Clients are not allowed to write control records');
  // Clients only, as Kafka's validateBatch: the coordinator's markers carry a producer id and no sequence.
  if (origin === 'client' && batch.producerId >= 0 && batch.baseSequence < 0) {
    throw new KafkaError('INVALID_RECORD', `Invalid sequence number ${batch.baseSequence} in record batch with producerId ${batch.producerId}`);
  }
}

/**
 * The per-record checks (LogValidator.validateRecord), from one walk over the records that only counts and
 * tracks extremes: nothing is kept per record on the way. Only when something is wrong are the records decoded
 * again, to name each rejected one (rejectedRecords).
 */
function validateRecords(batch: RecordBatch, config: LogConfig, now: number, origin: AppendOrigin, tp: TopicPartition | undefined): void {
  const requireKeys = isCompactPolicy(config) && !batch.isControlBatch;
  const diff = config.messageTimestampDifferenceMaxMs;
  const checkRange = config.messageTimestampType === 'CreateTime' && diff < Number.MAX_SAFE_INTEGER;
  const flags = (origin === 'client' ? CHECK_OFFSET_DELTAS : 0) | (requireKeys ? COUNT_NULL_KEYS : 0) | (checkRange ? TRACK_MIN_TIMESTAMP : 0);
  walkBatchRecords(batch, flags, inflateCap(config.maxMessageBytes));
  const outOfRange = checkRange && (recordsWalk.minTimestamp < now - diff || recordsWalk.maxTimestamp > now + diff);
  if (!outOfRange && batch.timestampType !== TimestampType.LOG_APPEND_TIME && recordsWalk.nullKeys === 0) return;
  throw rejectedRecords(batch, config, now, requireKeys, checkRange, tp);
}

/** Kafka's DefaultRecord.toString, as LogValidator's messages print a record. */
function recordString(r: { offset: number; timestamp: number; key: Buffer | null; value: Buffer | null }): string {
  return `DefaultRecord(offset=${r.offset}, timestamp=${r.timestamp}, key=${r.key?.length ?? 0} bytes, value=${r.value?.length ?? 0} bytes)`;
}

/**
 * LogValidator.validateRecord for each record (its key first, then its timestamp) and processRecordErrors: an
 * INVALID_TIMESTAMP if any record has a bad timestamp, else INVALID_RECORD, with every rejected record's index.
 */
function rejectedRecords(batch: RecordBatch, config: LogConfig, now: number, requireKeys: boolean, checkRange: boolean, tp: TopicPartition | undefined): RecordValidationError {
  const diff = config.messageTimestampDifferenceMaxMs;
  const where = tp === undefined ? '' : ` in topic partition ${tpString(tp)}`;
  const errors: RecordError[] = [];
  let timestampError = false;
  batch.records(inflateCap(config.maxMessageBytes)).forEach((record, batchIndex) => {
    if (requireKeys && record.key === null) {
      errors.push({ batchIndex, message: `Compacted topic cannot accept message without key${where}.` });
    } else if (checkRange && record.timestamp !== -1 && Math.abs(record.timestamp - now) > diff) {
      timestampError = true;
      errors.push({
        batchIndex,
        message: `Timestamp ${record.timestamp} of message with offset ${record.offset} is out of range. The timestamp should be within [${now - diff}, ${now + diff}]`,
      });
    } else if (batch.timestampType === TimestampType.LOG_APPEND_TIME) {
      timestampError = true;
      errors.push({ batchIndex, message: `Invalid timestamp type in message ${recordString(record)}. Producer should not set timestamp type to LogAppendTime.` });
    }
  });
  return timestampError
    ? new RecordValidationError('INVALID_TIMESTAMP', 'One or more records have been rejected due to invalid timestamp', errors)
    : new RecordValidationError('INVALID_RECORD', 'One or more records have been rejected', errors);
}

/** Re-encodes a batch with another codec (compression.type set on the topic). */
function recompress(batch: RecordBatch, codec: CompressionType, maxInflatedBytes: number): Buffer {
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
  for (const r of batch.records(maxInflatedBytes)) builder.append({ offset: r.offset - base, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
  return builder.build();
}

/**
 * Validates records from a producer (or the coordinator) and assigns offsets from `nextOffset`. Returns
 * undefined for an empty input.
 */
export function validateAndAssignOffsets(input: Buffer, p: LeaderValidationParams): ValidatedRecords | undefined {
  if (input.length === 0) return undefined;
  if (input.length <= MAGIC_OFFSET) throw corrupt(`Records of ${input.length} bytes are too short to hold a batch`);
  const config = p.config;
  const cap = inflateCap(config.maxMessageBytes);
  const target = config.compressionType === 'producer' ? undefined : compressionTypeForConfig(config.compressionType);
  let records = input;
  const magic = input.readInt8(MAGIC_OFFSET);
  if (magic === 0 || magic === 1) {
    const converted = convertLegacyToRecordBatch(input, target, cap);
    if (converted === undefined) return undefined;
    records = converted;
  } else if (magic !== 2) {
    throw corrupt(`Invalid magic ${magic} in the records`);
  }
  const batches = splitBatches(records);
  for (const b of batches) analyzeBatch(b, config, p.origin);
  // LogValidator.getFirstBatchAndMaybeValidateNoMoreBatches: one v2 batch per partition and request.
  if (batches.length !== 1) throw new KafkaError('INVALID_RECORD', 'Compressed outer record has more than one batch');
  let batch = batches[0] as RecordBatch;
  validateBatchHeader(batch, p.origin);
  validateRecords(batch, config, p.now, p.origin, p.topicPartition);
  let maxTimestamp = recordsWalk.maxTimestamp;
  if (target !== undefined && batch.compressionId !== target) {
    records = recompress(batch, target, cap);
    batch = new RecordBatch(records);
    if (batch.sizeInBytes > config.maxMessageBytes) {
      throw new KafkaError('MESSAGE_TOO_LARGE', `Message batch size is ${batch.sizeInBytes} bytes in append to partition which exceeds the maximum configured size of ${config.maxMessageBytes}.`);
    }
  }
  if (records.length > config.segmentBytes) {
    throw new KafkaError('RECORD_LIST_TOO_LARGE', `Message batch size is ${records.length} bytes in append to partition which exceeds the maximum configured segment size of ${config.segmentBytes}.`);
  }
  const logAppend = config.messageTimestampType === 'LogAppendTime';
  const first = p.nextOffset;
  const last = first + batch.lastOffsetDelta;
  batch.baseOffset = first;
  batch.partitionLeaderEpoch = p.leaderEpoch;
  if (logAppend) {
    batch.setLogAppendTime(p.now);
    maxTimestamp = p.now;
  } else if (batch.maxTimestamp !== maxTimestamp) {
    batch.setMaxTimestamp(maxTimestamp);
  }
  return {
    records,
    firstOffset: first,
    lastOffset: last,
    maxTimestamp,
    offsetOfMaxTimestamp: last,
    logAppendTime: logAppend ? p.now : -1,
    numMessages: batch.recordsCount,
    shallowCount: 1,
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
