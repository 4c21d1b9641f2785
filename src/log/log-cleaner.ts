import * as fs from 'node:fs';
import { tpString } from '../common/topic-partition';
import { getLogger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { RecordBatch } from '../records/record-batch';
import { RecordBatchBuilder } from '../records/record-batch-builder';
import { Record } from '../records/record';
import { CLEANED_FILE_SUFFIX, logFile, offsetIndexFile, timeIndexFile } from './log-file-names';
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

/**
 * Log compaction for cleanup.policy=compact (a simplified Kafka LogCleaner, one cleaner, run from the
 * LogManager's `kafka-log-cleaner` task):
 *
 * 1. The cleanable range is the log's non-active segments below the high watermark and older than
 *    min.compaction.lag.ms (`Log.cleanableSegments`).
 * 2. Pass 1 maps every key to the offset of its last record in that range.
 * 3. Pass 2 rewrites each segment into `<base>.log.cleaned`, keeping a record only if it is the last one of its
 *    key, and dropping tombstones (null values) once their segment is older than delete.retention.ms.
 *    Batches that lose nothing are copied byte for byte; others are rebuilt with the same base offset, codec,
 *    timestamps, producer fields and lastOffsetDelta (offsets never change; gaps appear). Batches left empty go.
 * 4. Each cleaned segment is swapped in through `.swap` (`Log.replaceSegment`).
 *
 * Differences from Kafka: segments are not merged (a cleaned segment replaces exactly one segment), the offset
 * map is an in-memory Map over the whole cleanable range rather than a bounded dedupe buffer, and tombstone
 * age is judged on the segment's largest timestamp.
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
    this.logger.info(`Beginning cleaning of log ${tp}.`);
    this.logger.info(`Building offset map for ${tp}...`);
    const lastOffsetOfKey = new Map<string, number>();
    let bytesRead = 0;
    for (const segment of segments) {
      await segment.forEachBatch((batch) => {
        if (batch.isControlBatch) return;
        for (const r of batch.records()) if (r.key !== null) lastOffsetOfKey.set(r.key.toString('latin1'), r.offset);
      });
      bytesRead += segment.size;
    }
    const horizon = start - log.config.deleteRetentionMs;
    this.logger.info(`Cleaning log ${tp} (cleaning prior to ${new Date(start).toString()}, discarding tombstones prior to ${new Date(horizon).toString()})...`);
    let bytesWritten = 0;
    let recordsRead = 0;
    let recordsKept = 0;
    let segmentsCleaned = 0;
    let endSize = bytesRead;
    for (const segment of segments) {
      const dropTombstones = segment.largestTimestamp() < horizon;
      const cleaned = this.openCleaned(log, segment);
      let changed = false;
      await segment.forEachBatch((batch) => {
        if (batch.isControlBatch) {
          cleaned.append(batch.lastOffset, batch.maxTimestamp, batch.lastOffset, batch.bytes());
          return;
        }
        const records = batch.records();
        recordsRead += records.length;
        const kept = records.filter((r) => this.keep(r, lastOffsetOfKey, dropTombstones));
        recordsKept += kept.length;
        if (kept.length === records.length) {
          cleaned.append(batch.lastOffset, batch.maxTimestamp, batch.lastOffset, batch.bytes());
          return;
        }
        changed = true;
        if (kept.length === 0) return;
        const rebuilt = new RecordBatch(this.rebuild(batch, kept));
        cleaned.append(rebuilt.lastOffset, rebuilt.maxTimestamp, rebuilt.lastOffset, rebuilt.bytes());
      });
      if (!changed) {
        cleaned.deleteIfExists();
        continue;
      }
      bytesWritten += cleaned.size;
      endSize += cleaned.size - segment.size;
      this.logger.info(`Swapping in cleaned segment ${cleaned.toString()} for segment(s) ${segment.toString()} in log ${log.toString()}`);
      if (await log.replaceSegment(segment, cleaned)) segmentsCleaned++;
    }
    const last = segments[segments.length - 1] as LogSegment;
    const next = log.logSegments().find((s) => s.baseOffset > last.baseOffset);
    log.firstDirtyOffset = Math.max(log.firstDirtyOffset, next?.baseOffset ?? last.baseOffset);
    const secs = Math.max(1, this.clock.nowMs() - start) / 1000;
    const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
    this.logger.info(
      `\n\tLog cleaner thread 0 cleaned log ${tp} (dirty section = [${segments[0]?.baseOffset ?? 0}, ${log.firstDirtyOffset}])\n` +
        `\t${mb(bytesRead)} MB of log processed in ${secs.toFixed(1)} seconds (${mb(bytesRead / secs)} MB/sec).\n` +
        `\tStart size: ${mb(bytesRead)} MB (${recordsRead.toLocaleString('en-US')} messages)\n` +
        `\tEnd size: ${mb(endSize)} MB (${recordsKept.toLocaleString('en-US')} messages)\n`,
    );
    return { segmentsCleaned, bytesRead, bytesWritten, recordsRead, recordsKept };
  }

  private keep(r: Record, lastOffsetOfKey: ReadonlyMap<string, number>, dropTombstones: boolean): boolean {
    if (r.key !== null && lastOffsetOfKey.get(r.key.toString('latin1')) !== r.offset) return false;
    return !(dropTombstones && r.value === null);
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
    for (const f of [logFile(log.dir, segment.baseOffset, CLEANED_FILE_SUFFIX), offsetIndexFile(log.dir, segment.baseOffset, CLEANED_FILE_SUFFIX), timeIndexFile(log.dir, segment.baseOffset, CLEANED_FILE_SUFFIX)]) {
      fs.rmSync(f, { force: true });
    }
    return LogSegment.open(log.dir, segment.baseOffset, { ...segmentOpenOptions(log.config, this.clock.nowMs()), fileSuffix: CLEANED_FILE_SUFFIX });
  }
}
