import * as fs from 'node:fs';
import { tpString } from '../common/topic-partition';
import { getLogger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { crc32c } from '../records/crc32c';
import { LOG_OVERHEAD, RECORD_BATCH_OVERHEAD, RecordBatch } from '../records/record-batch';
import { RecordBatchBuilder } from '../records/record-batch-builder';
import { Record } from '../records/record';
import { CleanedTransactionMetadata } from './cleaned-transaction-metadata';
import { CLEANED_FILE_SUFFIX, logFile, offsetIndexFile, timeIndexFile, transactionIndexFile } from './log-file-names';
import { Log } from './log';
import { segmentOpenOptions } from './log-loader';
import { LogSegment } from './log-segment';

/** What one `clean` call did (segments, bytes and records read and kept). */
export interface CleanerStats {
  readonly segmentsCleaned: number;
  readonly bytesRead: number;
  readonly bytesWritten: number;
  readonly recordsRead: number;
  readonly recordsKept: number;
}

const NO_STATS: CleanerStats = { segmentsCleaned: 0, bytesRead: 0, bytesWritten: 0, recordsRead: 0, recordsKept: 0 };

const COMPRESSION_CODEC_MASK = 0x07;

/** Kafka's LastRecord: where an active producer's state lives in the log, so its batch survives cleaning. */
interface LastRecord {
  /** The last data batch's last offset; -1 when the producer's latest entry is a marker. */
  readonly lastDataOffset: number;
  readonly producerEpoch: number;
}

/**
 * Log compaction for cleanup.policy=compact (a simplified Kafka LogCleaner, one cleaner, run from the
 * LogManager's `kafka-log-cleaner` task):
 *
 * 1. The cleanable range is the log's non-active segments below the last stable offset and older than
 *    min.compaction.lag.ms (`Log.cleanableSegments`): nothing of an open or undecided transaction is touched.
 * 2. Pass 1 maps every key to the offset of its last record in that range; aborted transactions' data (the
 *    segments' `.txnindex`) and markers are not in the map, so an aborted write never hides a committed value.
 * 3. Pass 2 rewrites each segment into `<base>.log.cleaned`, keeping a record only if it is the last one of its
 *    key, as Kafka's Cleaner.cleanInto: aborted transactions' data goes; tombstones and transaction markers stay
 *    while the segment was modified after the delete horizon (the last already-cleaned segment's modification
 *    time minus delete.retention.ms), and a marker stays anyway while this round met data of its transaction.
 *    Each active producer's last batch is kept, emptied of its records if none survive (Kafka's RETAIN_EMPTY),
 *    so the producer state rebuilt from the log keeps its sequence and epoch. Batches that lose nothing are
 *    copied byte for byte; others are rebuilt with the same base offset, codec, timestamps, producer fields and
 *    lastOffsetDelta (offsets never change; gaps appear). Batches left empty go.
 * 4. Each cleaned segment, with its own `.txnindex` (the aborted transactions whose markers it keeps) and the
 *    old segment's modification time, is swapped in through `.swap` (`Log.replaceSegment`).
 *
 * Differences from Kafka: segments are not merged (a cleaned segment replaces exactly one segment), the offset
 * map is an in-memory Map over the whole cleanable range rather than a bounded dedupe buffer, and a segment that
 * loses nothing is not rewritten.
 */
export class LogCleaner {
  private readonly logger = getLogger('kafka.log.LogCleaner', 'Cleaner 0: ');

  constructor(private readonly clock: Clock) {}

  /** Share of the cleanable bytes not yet cleaned (at or above the log's firstDirtyOffset). */
  dirtyRatio(log: Log): number {
    let total = 0;
    let dirty = 0;
    for (const s of log.cleanableSegments()) {
      total += s.size;
      if (s.baseOffset >= log.firstDirtyOffset) dirty += s.size;
    }
    return total === 0 ? 0 : dirty / total;
  }

  async clean(log: Log): Promise<CleanerStats> {
    const segments = log.cleanableSegments();
    if (segments.length === 0) return NO_STATS;
    const tp = tpString(log.topicPartition);
    const start = this.clock.nowMs();
    const first = segments[0] as LogSegment;
    const last = segments[segments.length - 1] as LogSegment;
    // The active segment is never cleanable, so there is always a next one.
    const end = log.logSegments().find((s) => s.baseOffset > last.baseOffset)?.baseOffset ?? last.baseOffset;
    const lastRecords = lastRecordsOfActiveProducers(log);
    this.logger.info(`Beginning cleaning of log ${tp}.`);
    this.logger.info(`Building offset map for ${tp}...`);
    const lastOffsetOfKey = new Map<string, number>();
    const mapTxns = new CleanedTransactionMetadata();
    mapTxns.addAbortedTransactions(log.collectAbortedTransactions(first.baseOffset, end));
    let bytesRead = 0;
    for (const segment of segments) {
      await segment.forEachBatch((batch) => {
        if (batch.isControlBatch) {
          mapTxns.onControlBatchRead(batch);
          return;
        }
        if (mapTxns.onBatchRead(batch)) return;
        for (const r of batch.records()) if (r.key !== null) lastOffsetOfKey.set(r.key.toString('latin1'), r.offset);
      });
      bytesRead += segment.size;
    }
    // Kafka's delete horizon: measured from the newest segment already cleaned, so a first round keeps everything.
    const lastCleaned = log.logSegments().filter((s) => s.baseOffset < log.firstDirtyOffset).pop();
    const deleteHorizonMs = lastCleaned === undefined ? 0 : lastCleaned.lastModified() - log.config.deleteRetentionMs;
    // Kafka's line: "cleaning prior to" the last cleanable segment's modification time.
    this.logger.info(`Cleaning log ${tp} (cleaning prior to ${new Date(last.lastModified()).toString()}, discarding tombstones prior to ${new Date(deleteHorizonMs).toString()})...`);
    const txns = new CleanedTransactionMetadata();
    let bytesWritten = 0;
    let recordsRead = 0;
    let recordsKept = 0;
    let segmentsCleaned = 0;
    let endSize = bytesRead;
    for (let i = 0; i < segments.length; i++) {
      const segment = segments[i] as LogSegment;
      txns.addAbortedTransactions(log.collectAbortedTransactions(segment.baseOffset, segments[i + 1]?.baseOffset ?? end));
      const lastModified = segment.lastModified();
      const retainDeletesAndTxnMarkers = lastModified > deleteHorizonMs;
      const cleaned = this.openCleaned(log, segment);
      txns.cleanedIndex = cleaned.txnIndex;
      let changed = false;
      const write = (bytes: Buffer): void => {
        const b = new RecordBatch(bytes);
        cleaned.append(b.lastOffset, b.maxTimestamp, b.lastOffset, bytes);
      };
      await segment.forEachBatch((batch) => {
        const discardRecords = batch.isControlBatch ? txns.onControlBatchRead(batch) && !retainDeletesAndTxnMarkers : txns.onBatchRead(batch);
        const retainEmpty = batch.producerId >= 0 && isLastBatchOfProducer(batch, lastRecords);
        if (discardRecords && !retainEmpty) {
          changed = true;
          return;
        }
        const records = batch.records();
        if (!batch.isControlBatch) recordsRead += records.length;
        const kept = discardRecords ? [] : batch.isControlBatch ? records : records.filter((r) => this.keep(r, lastOffsetOfKey, retainDeletesAndTxnMarkers));
        if (!batch.isControlBatch) recordsKept += kept.length;
        if (kept.length === records.length) {
          write(batch.bytes());
          return;
        }
        changed = true;
        if (kept.length > 0) write(this.rebuild(batch, kept));
        else if (retainEmpty) write(emptyBatchHeader(batch));
      });
      txns.cleanedIndex = undefined;
      if (!changed) {
        cleaned.deleteIfExists();
        continue;
      }
      // As Kafka: the cleaned copy keeps the original's modification time, which the delete horizon is judged by.
      fs.utimesSync(cleaned.file, lastModified / 1000, lastModified / 1000);
      bytesWritten += cleaned.size;
      endSize += cleaned.size - segment.size;
      this.logger.info(`Swapping in cleaned segment ${cleaned.toString()} for segment(s) ${segment.toString()} in log ${log.toString()}`);
      if (await log.replaceSegment(segment, cleaned)) segmentsCleaned++;
    }
    log.firstDirtyOffset = Math.max(log.firstDirtyOffset, end);
    const secs = Math.max(1, this.clock.nowMs() - start) / 1000;
    const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
    this.logger.info(
      `\n\tLog cleaner thread 0 cleaned log ${tp} (dirty section = [${first.baseOffset}, ${log.firstDirtyOffset}])\n` +
        `\t${mb(bytesRead)} MB of log processed in ${secs.toFixed(1)} seconds (${mb(bytesRead / secs)} MB/sec).\n` +
        `\tStart size: ${mb(bytesRead)} MB (${recordsRead.toLocaleString('en-US')} messages)\n` +
        `\tEnd size: ${mb(endSize)} MB (${recordsKept.toLocaleString('en-US')} messages)\n`,
    );
    return { segmentsCleaned, bytesRead, bytesWritten, recordsRead, recordsKept };
  }

  private keep(r: Record, lastOffsetOfKey: ReadonlyMap<string, number>, retainDeletes: boolean): boolean {
    if (r.key !== null && lastOffsetOfKey.get(r.key.toString('latin1')) !== r.offset) return false;
    return r.value !== null || retainDeletes;
  }

  private rebuild(batch: RecordBatch, kept: readonly Record[]): Buffer {
    const builder = new RecordBatchBuilder({
      compression: batch.compressionType,
      timestampType: batch.timestampType,
      baseOffset: batch.baseOffset,
      partitionLeaderEpoch: batch.partitionLeaderEpoch,
      producerId: batch.producerId,
      producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence,
      isTransactional: batch.isTransactional,
      lastOffsetDelta: batch.lastOffsetDelta,
      initialCapacity: batch.sizeInBytes,
    });
    for (const r of kept) builder.append({ offset: r.offset, timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers });
    return builder.build();
  }

  private openCleaned(log: Log, segment: LogSegment): LogSegment {
    const base = segment.baseOffset;
    for (const f of [logFile(log.dir, base, CLEANED_FILE_SUFFIX), offsetIndexFile(log.dir, base, CLEANED_FILE_SUFFIX), timeIndexFile(log.dir, base, CLEANED_FILE_SUFFIX), transactionIndexFile(log.dir, base, CLEANED_FILE_SUFFIX)]) {
      fs.rmSync(f, { force: true });
    }
    return LogSegment.open(log.dir, base, { ...segmentOpenOptions(log.config, this.clock.nowMs()), fileSuffix: CLEANED_FILE_SUFFIX });
  }
}

function lastRecordsOfActiveProducers(log: Log): Map<number, LastRecord> {
  const out = new Map<number, LastRecord>();
  for (const [producerId, entry] of log.producerStateManager.activeProducers) {
    out.set(producerId, { lastDataOffset: entry.lastDataOffset, producerEpoch: entry.producerEpoch });
  }
  return out;
}

/**
 * Kafka's isBatchLastRecordOfProducer: the batch holding a producer's last sequence (its last data batch), or,
 * when its latest entry is a marker, that marker (it carries the epoch that fences older producers).
 */
function isLastBatchOfProducer(batch: RecordBatch, lastRecords: ReadonlyMap<number, LastRecord>): boolean {
  const last = lastRecords.get(batch.producerId);
  if (last === undefined) return false;
  if (last.lastDataOffset >= 0) return batch.lastOffset === last.lastDataOffset;
  return batch.isControlBatch && batch.producerEpoch === last.producerEpoch;
}

/**
 * Kafka's DefaultRecordBatch.writeEmptyHeader: the batch's header with no records — same offsets, producer id,
 * epoch, base sequence and flags, uncompressed, both timestamps the batch's max timestamp — so the producer's
 * last sequence survives the removal of its records. Header layout as RecordBatchBuilder writes it.
 */
function emptyBatchHeader(batch: RecordBatch): Buffer {
  const out = Buffer.from(batch.bytes().subarray(0, RECORD_BATCH_OVERHEAD));
  out.writeInt32BE(RECORD_BATCH_OVERHEAD - LOG_OVERHEAD, 8);
  out.writeInt16BE(batch.attributes & ~COMPRESSION_CODEC_MASK, 21);
  out.writeBigInt64BE(BigInt(batch.maxTimestamp), 27);
  out.writeInt32BE(0, 57);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}
