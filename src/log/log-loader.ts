import * as fs from 'node:fs';
import * as path from 'node:path';
import { Logger } from '../common/logging/logging';
import {
  CLEANED_FILE_SUFFIX,
  DELETED_FILE_SUFFIX,
  INDEX_FILE_SUFFIX,
  LOG_FILE_SUFFIX,
  SWAP_FILE_SUFFIX,
  TIME_INDEX_FILE_SUFFIX,
  TMP_FILE_SUFFIX,
  TXN_INDEX_FILE_SUFFIX,
  logFile,
  offsetFromFileName,
  offsetIndexFile,
  timeIndexFile,
} from './log-file-names';
import { LeaderEpochFileCache } from './leader-epoch-file-cache';
import { LogConfig } from '../common/config/log-config';
import { LogSegment } from './log-segment';
import { LogSegments } from './log-segments';

/**
 * Opens a partition directory at startup and makes it consistent (Kafka 3's LogLoader):
 *
 * 1. Leftovers of interrupted operations go: `.deleted`, `.cleaned` and `.tmp` files are removed, `.swap`
 *    files are renamed back into place; index files without a `.log` are removed.
 * 2. Every segment is opened. A segment whose index is missing, or fails the sanity check, is recovered.
 * 3. Without a clean-shutdown marker, every segment from the one holding the recovery point onwards is
 *    recovered: re-read batch by batch (structure, CRC-32C, increasing offsets), indexes rebuilt, and cut at the
 *    first invalid byte; segments after a cut are deleted. Nothing before the first bad byte is lost.
 * 4. An empty directory gets one empty segment at the log start offset.
 *
 * The leader-epoch cache is rebuilt from recovered batches and trimmed to the loaded offsets.
 */
export interface LoadParams {
  readonly dir: string;
  /** The directory was just created: nothing to scan or recover, one empty segment at the log start offset. */
  readonly fresh?: boolean;
  readonly config: LogConfig;
  readonly logStartOffsetCheckpoint: number;
  readonly recoveryPointCheckpoint: number;
  readonly hadCleanShutdown: boolean;
  readonly now: number;
  readonly leaderEpochCache: LeaderEpochFileCache;
  readonly logger: Logger;
}

export interface LoadedLog {
  readonly segments: LogSegments;
  readonly logStartOffset: number;
  readonly recoveryPoint: number;
  readonly nextOffset: number;
}

export function segmentOpenOptions(config: LogConfig, now: number): { indexIntervalBytes: number; maxIndexSize: number; rollJitterMs: number; now: number } {
  const jitter = config.segmentJitterMs > 0 ? Math.floor(Math.random() * Math.min(config.segmentJitterMs, config.segmentMs)) : 0;
  return { indexIntervalBytes: config.indexIntervalBytes, maxIndexSize: config.segmentIndexBytes, rollJitterMs: jitter, now };
}

function removeTemporaryFiles(dir: string, logger: Logger): void {
  for (const name of fs.readdirSync(dir)) {
    const file = path.join(dir, name);
    if (name.endsWith(DELETED_FILE_SUFFIX) || name.endsWith(CLEANED_FILE_SUFFIX) || name.endsWith(TMP_FILE_SUFFIX)) {
      logger.debug(`Deleting stray temporary file ${file}`);
      fs.rmSync(file, { force: true });
    } else if (name.endsWith(SWAP_FILE_SUFFIX)) {
      const target = file.slice(0, -SWAP_FILE_SUFFIX.length);
      if (target.endsWith(LOG_FILE_SUFFIX)) {
        // A .swap is complete (written and synced before the rename to .swap) and replaces exactly the segment
        // with its base offset; that segment's indexes are stale, so they go and get rebuilt.
        logger.info(`Found log file ${file} from interrupted swap operation, repairing.`);
        fs.renameSync(file, target);
        const base = offsetFromFileName(path.basename(target));
        fs.rmSync(offsetIndexFile(dir, base), { force: true });
        fs.rmSync(timeIndexFile(dir, base), { force: true });
      } else if (target.endsWith(TXN_INDEX_FILE_SUFFIX)) {
        // The cleaned segment's aborted transactions (written by the cleaner): they go with its .log.
        fs.renameSync(file, target);
      } else fs.rmSync(file, { force: true });
    }
  }
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith(INDEX_FILE_SUFFIX) && !name.endsWith(TIME_INDEX_FILE_SUFFIX) && !name.endsWith(TXN_INDEX_FILE_SUFFIX)) continue;
    const base = offsetFromFileName(name);
    if (Number.isNaN(base) || !fs.existsSync(logFile(dir, base))) {
      logger.warn(`Found an orphaned index file ${path.join(dir, name)}, with no corresponding log file.`);
      fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

function recoverSegment(segment: LogSegment, cache: LeaderEpochFileCache) {
  return segment.recover((batch) => {
    const epoch = batch.partitionLeaderEpoch;
    if (epoch >= 0 && epoch > cache.latestEpoch()) cache.assign(epoch, batch.baseOffset);
  });
}

export function loadLog(p: LoadParams): LoadedLog {
  if (p.fresh === true) {
    // A new partition (thousands at once when topics are created): no directory listings, no existence checks.
    const segments = new LogSegments();
    const start = p.logStartOffsetCheckpoint;
    segments.add(LogSegment.open(p.dir, start, { ...segmentOpenOptions(p.config, p.now), fresh: true }));
    return { segments, logStartOffset: start, recoveryPoint: start, nextOffset: start };
  }
  fs.mkdirSync(p.dir, { recursive: true });
  removeTemporaryFiles(p.dir, p.logger);
  const segments = new LogSegments();
  const baseOffsets = fs
    .readdirSync(p.dir)
    .filter((n) => n.endsWith(LOG_FILE_SUFFIX))
    .map(offsetFromFileName)
    .filter((o) => !Number.isNaN(o))
    .sort((a, b) => a - b);
  const opts = segmentOpenOptions(p.config, p.now);
  const needsRecovery = new Set<LogSegment>();
  for (const base of baseOffsets) {
    const indexMissing = !fs.existsSync(offsetIndexFile(p.dir, base)) || !fs.existsSync(timeIndexFile(p.dir, base));
    const segment = LogSegment.open(p.dir, base, opts);
    if (indexMissing) {
      p.logger.warn(`Could not find offset index file corresponding to log file ${segment.file}, recovering segment and rebuilding index files...`);
      needsRecovery.add(segment);
    } else {
      try {
        segment.sanityCheckIndexes();
      } catch (err) {
        p.logger.warn(`Found a corrupted index file corresponding to log file ${segment.file} due to ${(err as Error).message}}, recovering segment and rebuilding index files...`);
        needsRecovery.add(segment);
      }
    }
    segments.add(segment);
  }

  if (!p.hadCleanShutdown && !segments.isEmpty()) {
    const first = segments.floorSegment(p.recoveryPointCheckpoint) ?? (segments.first() as LogSegment);
    for (const s of segments.all()) {
      if (s.baseOffset >= first.baseOffset) needsRecovery.add(s);
    }
  }
  const all = segments.all().slice();
  // Best effort, for the log line: where the log ended before recovery (a corrupt tail may hide more).
  let endBeforeRecovery = -1;
  try {
    endBeforeRecovery = all.length > 0 && needsRecovery.size > 0 ? (all[all.length - 1] as LogSegment).readNextOffset() : -1;
  } catch {
    endBeforeRecovery = -1;
  }
  for (let i = 0; i < all.length; i++) {
    const segment = all[i] as LogSegment;
    if (!needsRecovery.has(segment)) continue;
    p.logger.info(`Recovering unflushed segment ${segment.baseOffset}`);
    const result = recoverSegment(segment, p.leaderEpochCache);
    if (result.truncatedBytes > 0) {
      const later = all.slice(i + 1);
      p.logger.warn(
        `Corruption found in segment ${segment.baseOffset}, truncating to offset ${result.nextOffset}: ` +
          `cut ${result.truncatedBytes} bytes at byte offset ${result.validBytes}` +
          (later.length > 0 ? ` and deleted ${later.length} later segment(s) from offset ${(later[0] as LogSegment).baseOffset}` : '') +
          (endBeforeRecovery > result.nextOffset ? `; ${endBeforeRecovery - result.nextOffset} offset(s) lost ([${result.nextOffset}, ${endBeforeRecovery - 1}])` : ''),
      );
      for (const s of later) {
        segments.remove(s.baseOffset);
        s.deleteIfExists();
      }
      break;
    }
  }

  let logStartOffset = p.logStartOffsetCheckpoint;
  if (!segments.isEmpty()) {
    const next = (segments.last() as LogSegment).readNextOffset();
    if (next < logStartOffset) {
      p.logger.warn(`Deleting all segments because logEndOffset (${next}) is smaller than logStartOffset ${logStartOffset}. This could happen if segment files were deleted from the file system.`);
      for (const s of segments.clear()) s.deleteIfExists();
      p.leaderEpochCache.clearAndFlush();
    }
  }
  if (segments.isEmpty()) {
    for (const f of [logFile(p.dir, logStartOffset), offsetIndexFile(p.dir, logStartOffset), timeIndexFile(p.dir, logStartOffset)]) fs.rmSync(f, { force: true });
    segments.add(LogSegment.open(p.dir, logStartOffset, opts));
  }
  const firstBase = (segments.first() as LogSegment).baseOffset;
  logStartOffset = Math.max(logStartOffset, firstBase);
  const nextOffset = (segments.last() as LogSegment).readNextOffset();
  p.leaderEpochCache.truncateFromEnd(nextOffset);
  p.leaderEpochCache.truncateFromStart(logStartOffset);
  return { segments, logStartOffset, recoveryPoint: nextOffset, nextOffset };
}
