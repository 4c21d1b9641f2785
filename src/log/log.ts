import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaError } from '../common/kafka-error';
import { getLogger, Logger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { Scheduler } from '../common/scheduler';
import { batchesIn, RecordBatch } from '../records/record-batch';
import { CLEANED_FILE_SUFFIX, DELETED_FILE_SUFFIX, FUTURE_DIR_SUFFIX, LEADER_EPOCH_CHECKPOINT_FILE, SWAP_FILE_SUFFIX, logFile, offsetIndexFile, parseTopicPartitionName, timeIndexFile } from './log-file-names';
import { LeaderEpochFileCache } from './leader-epoch-file-cache';
import { isDeletePolicy, LogConfig } from '../common/config/log-config';
import { PartitionMetadataFile } from './partition-metadata-file';
import { LogDirFailureChannel, errnoOf, ioErrorKind, isIoError, storageError, TransientStorageError } from './log-dir-failure-channel';
import { loadLog, segmentOpenOptions } from './log-loader';
import { LogSegment } from './log-segment';
import { LogSegments } from './log-segments';
import { AppendOrigin, ValidatedRecords, validateAndAssignOffsets, validateFollowerRecords } from './log-validator';
import { LogWritePipeline } from './log-write-pipeline';
import { CompletedTxn, ProducerStateManager } from './producer-state-manager';
import type { AbortedTxn } from './transaction-index';
import { SerialQueue } from '../common/serial-queue';
import { TopicPartition, tpString } from '../common/topic-partition';

/** What Log.open needs: the partition directory, its config, and what the LogManager read from its checkpoints. */
export interface LogOpenParams {
  readonly dir: string;
  readonly config: LogConfig;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly logStartOffset?: number;
  readonly recoveryPoint?: number;
  readonly highWatermark?: number;
  readonly hadCleanShutdown?: boolean;
  readonly failureChannel?: LogDirFailureChannel;
  /** How long an idle producer's state is kept (Kafka 2.8: transactional.id.expiration.ms, default 7 days). */
  readonly producerIdExpirationMs?: number;
  /** LogFlushStats' LogFlushRateAndTimeMs, when metrics are on: each segment flush's time in ms (Kafka times each). */
  readonly onSegmentFlush?: (ms: number) => void;
}

/** transactional.id.expiration.ms's default: what Kafka 2.8's LogManager gives each log as maxProducerIdExpirationMs. */
export const DEFAULT_PRODUCER_ID_EXPIRATION_MS = 7 * 24 * 60 * 60 * 1000;

export interface LogAppendInfo {
  /** First offset assigned (−1 for an empty append). */
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly maxTimestamp: number;
  readonly offsetOfMaxTimestamp: number;
  /** Broker time stamped on the records for LogAppendTime topics, else −1. */
  readonly logAppendTime: number;
  readonly logStartOffset: number;
  readonly numMessages: number;
  readonly validBytes: number;
}

export interface FetchDataInfo {
  readonly fetchOffset: number;
  /** Whole v2 batches, starting with the one that holds fetchOffset (it may start below fetchOffset). */
  readonly records: Buffer;
  readonly segmentBaseOffset: number;
  readonly positionInSegment: number;
}

export interface TimestampAndOffset {
  readonly timestamp: number;
  readonly offset: number;
  /** The leader epoch of the offset (Kafka's TimestampAndOffset.leaderEpoch; -1 when unknown). */
  readonly leaderEpoch: number;
}

/** ListOffsets special timestamps. */
export const LATEST_TIMESTAMP = -1;
export const EARLIEST_TIMESTAMP = -2;

/** Why the log start offset moved (Kafka's LogStartOffsetIncrementReason), as its log line says it. */
export type LogStartOffsetIncrementReason = 'client delete records request' | 'leader offset increment';

/**
 * One partition's log: an ordered set of segments in `<log dir>/<topic>-<partition>`, with the log end offset
 * (LEO), log start offset, high watermark and recovery point.
 *
 * Concurrency: appends, truncations, rolls, retention and start-offset moves run one at a time through a
 * per-log SerialQueue, so offsets and file writes never interleave. An append is validated and given its
 * offsets under the queue, then its bytes join the log's LogWritePipeline (coalescing positional writevs, up to
 * two in flight, settled in offset order), so the CRC-32C of the next append overlaps the writes and the
 * event loop never blocks on the disk. The log end offset moves when a write completes; reads, which take no
 * lock, see only written bytes. Truncation, explicit rolls, retention and close first drain the pipeline.
 * fsync is asynchronous and never blocks appends.
 *
 * I/O errors that say the disk is failing (EIO, ENOSPC, EROFS, EDQUOT, ...: `isLogDirFailure`) mark the log dir
 * offline through the LogDirFailureChannel and surface as KAFKA_STORAGE_ERROR; every later call on the log fails
 * the same way. Resource errors (EMFILE, ENFILE, ENOMEM, EAGAIN, ...: `isResourceError`) fail only the call that
 * met them (KAFKA_STORAGE_ERROR too, as a TransientStorageError) and leave the log as it was: an append whose write
 * failed is forgotten (its reserved bytes and index entries dropped) before the next operation runs.
 */
export class Log {
  readonly topicPartition: TopicPartition;
  readonly leaderEpochCache: LeaderEpochFileCache;
  /** Producer ids, epochs and sequences of this partition, with their `<offset>.snapshot` files. */
  readonly producerStateManager: ProducerStateManager;
  private readonly logger: Logger;
  private readonly queue = new SerialQueue();
  private readonly clock: Clock;
  private readonly scheduler: Scheduler;
  private readonly failureChannel: LogDirFailureChannel;
  private readonly onSegmentFlush: ((ms: number) => void) | undefined;
  private readonly segments: LogSegments;
  private readonly pendingDeletes = new Set<LogSegment>();
  private configValue: LogConfig;
  /** The log end offset: everything below it is written and readable. */
  private nextOffset: number;
  /** The next offset to assign; above nextOffset while appends are being written. */
  private nextOffsetToAssign: number;
  private readonly writes: LogWritePipeline<LogAppendInfo>;
  private logStartOffsetValue: number;
  private recoveryPointValue: number;
  private highWatermarkValue: number;
  private unflushedMessages = 0;
  /** The flush running now, and the one that will run after it for everyone who asked meanwhile (group commit). */
  private flushRunning: Promise<void> | undefined;
  private flushQueued: Promise<void> | undefined;
  private lastFlushTimeValue: number;
  private truncations = 0;
  private offline = false;
  private parentDirValue: string | undefined;
  /** A write failed without taking the dir offline: bytes and index entries were reserved for appends never written. */
  private unwrittenReservations = false;
  private closed = false;
  /** The cleaner's progress: offsets below it were compacted (cleaner-offset-checkpoint). */
  firstDirtyOffset = 0;
  /** partition.metadata of this partition (KIP-516). */
  readonly partitionMetadataFile: PartitionMetadataFile;
  /** The topic id in partition.metadata, once known (Kafka 2.8's Log.topicId). */
  topicId: string | undefined;

  private constructor(
    readonly dir: string,
    p: LogOpenParams,
  ) {
    const tp = parseTopicPartitionName(path.basename(dir));
    if (tp === undefined) throw new Error(`Found directory ${dir}, '${path.basename(dir)}' is not in the form of topic-partition`);
    this.topicPartition = tp;
    this.configValue = p.config;
    this.clock = p.clock;
    this.scheduler = p.scheduler;
    this.failureChannel = p.failureChannel ?? new LogDirFailureChannel();
    this.onSegmentFlush = p.onSegmentFlush;
    this.logger = getLogger('kafka.log.Log', `[Log partition=${tpString(tp)}, dir=${this.parentDir}] `);
    const started = p.clock.nowMs();
    // mkdir answers the first directory it made: none when the partition's directory was there already.
    const fresh = fs.mkdirSync(dir, { recursive: true }) !== undefined;
    this.leaderEpochCache = new LeaderEpochFileCache(path.join(dir, LEADER_EPOCH_CHECKPOINT_FILE), {
      onError: (err) => {
        // A log whose dir already went offline has nothing more to report.
        if (this.offline) return;
        // An I/O error takes the dir offline (and is logged there); anything else is logged here.
        if (this.handleIoError('writing the leader epoch checkpoint', err) === err) this.logger.error('Error while writing the leader epoch checkpoint', err);
      },
    });
    const loaded = loadLog({
      dir,
      fresh,
      config: p.config,
      logStartOffsetCheckpoint: p.logStartOffset ?? 0,
      recoveryPointCheckpoint: p.recoveryPoint ?? 0,
      hadCleanShutdown: p.hadCleanShutdown ?? false,
      now: started,
      leaderEpochCache: this.leaderEpochCache,
      logger: this.logger,
    });
    this.segments = loaded.segments;
    this.nextOffset = loaded.nextOffset;
    this.nextOffsetToAssign = loaded.nextOffset;
    this.logStartOffsetValue = loaded.logStartOffset;
    this.producerStateManager = new ProducerStateManager(tp, dir, p.producerIdExpirationMs ?? DEFAULT_PRODUCER_ID_EXPIRATION_MS, fresh);
    if (!fresh) this.producerStateManager.removeStraySnapshots(this.segments.all().map((s) => s.baseOffset));
    this.loadProducerState(this.nextOffset, p.hadCleanShutdown ?? false);
    this.writes = new LogWritePipeline<LogAppendInfo>(
      (info) => {
        this.nextOffset = Math.max(this.nextOffset, info.lastOffset + 1);
        this.unflushedMessages += info.numMessages;
      },
      (err) => {
        this.nextOffsetToAssign = this.nextOffset;
        const error = this.handleIoError('appending to the log', err);
        // The next operation under the queue first forgets the failed appends (discardUnwrittenAppends).
        if (!this.offline) this.unwrittenReservations = true;
        return error;
      },
      undefined,
      p.clock,
    );
    this.recoveryPointValue = loaded.recoveryPoint;
    this.highWatermarkValue = Math.min(Math.max(p.highWatermark ?? 0, this.logStartOffsetValue), this.nextOffset);
    this.producerStateManager.onHighWatermarkUpdated(this.highWatermarkValue);
    this.lastFlushTimeValue = started;
    this.partitionMetadataFile = new PartitionMetadataFile(dir);
    if (this.partitionMetadataFile.exists()) {
      try {
        this.topicId = this.partitionMetadataFile.read();
      } catch (err) {
        // An unreadable file must not keep the partition offline: the id is learnt again from LeaderAndIsr.
        this.logger.error(`Error while reading the partition metadata file ${this.partitionMetadataFile.file}`, err);
      }
    }
    this.logger.info(`Completed load of ${this.toString()} with ${this.segments.size} segments in ${p.clock.nowMs() - started}ms`);
  }

  /** Loads (recovering if needed) or creates the log in `dir`. I/O errors are reported and rethrown as-is. */
  static open(p: LogOpenParams): Log {
    return new Log(p.dir, p);
  }

  get parentDir(): string {
    // Asked for every log on each checkpoint and per-dir pass: computed once (dir never changes).
    this.parentDirValue ??= path.dirname(this.dir);
    return this.parentDirValue;
  }

  get config(): LogConfig {
    return this.configValue;
  }

  /** A future replica: the copy of a partition being moved into this log dir (`<tp>.<uuid>-future`). */
  get isFuture(): boolean {
    return this.dir.endsWith(FUTURE_DIR_SUFFIX);
  }

  get logEndOffset(): number {
    return this.nextOffset;
  }

  get logStartOffset(): number {
    return this.logStartOffsetValue;
  }

  get recoveryPoint(): number {
    return this.recoveryPointValue;
  }

  get highWatermark(): number {
    return this.highWatermarkValue;
  }

  get lastFlushTime(): number {
    return this.lastFlushTimeValue;
  }

  get isOffline(): boolean {
    return this.offline;
  }

  get numberOfSegments(): number {
    return this.segments.size;
  }

  /** Bytes in all segments. */
  get size(): number {
    return this.segments.sizeInBytes();
  }

  activeSegment(): LogSegment {
    return this.segments.last() as LogSegment;
  }

  logSegments(): readonly LogSegment[] {
    return this.segments.all();
  }

  /** Base offset of the segment holding the log start offset (the log-start-offset checkpoint skips equal ones). */
  firstSegmentBaseOffset(): number {
    return (this.segments.first() as LogSegment).baseOffset;
  }

  updateConfig(config: LogConfig): void {
    this.configValue = config;
    for (const s of this.segments.all()) {
      s.setIndexIntervalBytes(config.indexIntervalBytes);
      s.offsetIndex.resize(config.segmentIndexBytes);
      s.timeIndex.resize(config.segmentIndexBytes);
    }
  }

  /** Called by the LogManager when the log dir went offline. */
  markOffline(): void {
    this.offline = true;
  }

  /**
   * Appends records from a producer (or the group coordinator) as leader: validates, assigns offsets from the
   * LEO (rewriting the caller's buffer in place), stamps `leaderEpoch`, rolls if needed and writes.
   */
  appendAsLeader(records: Buffer, leaderEpoch = 0, origin: AppendOrigin = 'client'): Promise<LogAppendInfo> {
    return this.exclusive(() =>
      this.io('appending to the log', () => {
        const validated = validateAndAssignOffsets(records, {
          nextOffset: this.nextOffsetToAssign,
          config: this.configValue,
          now: this.clock.nowMs(),
          leaderEpoch,
          origin,
          topicPartition: this.topicPartition,
        });
        if (validated === undefined) return { done: Promise.resolve(this.emptyAppendInfo()) };
        const batch = new RecordBatch(validated.records);
        if (origin === 'client' && batch.producerId >= 0) {
          // A retry of one of the producer's last five batches: answered with where it was written, not written again.
          const duplicate = this.producerStateManager.findDuplicate(batch);
          if (duplicate !== undefined) return { done: this.duplicateAppendInfo(duplicate.firstOffset, duplicate.lastOffset, duplicate.timestamp) };
        }
        // As Kafka: the epoch cache first, so an append it fails to record is not written either.
        if (leaderEpoch >= 0 && leaderEpoch > this.leaderEpochCache.latestEpoch()) this.leaderEpochCache.assign(leaderEpoch, validated.firstOffset);
        return { done: this.enqueueWrite(validated, origin, batch) };
      }),
    )
      .then((r) => r.done)
      .then((info) => this.maybeFlushAfterAppend(info));
  }

  /** Appends batches fetched from the leader, keeping their offsets and leader epochs. */
  appendAsFollower(records: Buffer): Promise<LogAppendInfo> {
    return this.exclusive(() =>
      this.io('appending to the log', () => {
        const validated = validateFollowerRecords(records, this.nextOffsetToAssign);
        if (validated === undefined) return { done: Promise.resolve(this.emptyAppendInfo()) };
        for (const b of batchesIn(validated.records)) {
          const epoch = b.partitionLeaderEpoch;
          if (epoch >= 0 && epoch > this.leaderEpochCache.latestEpoch()) this.leaderEpochCache.assign(epoch, b.baseOffset);
        }
        return { done: this.enqueueWrite(validated, 'replication') };
      }),
    )
      .then((r) => r.done)
      .then((info) => this.maybeFlushAfterAppend(info));
  }

  /**
   * Reads whole batches from `fetchOffset`: at most `maxBytes` (but the first batch whole when
   * `minOneMessage`), only batches that end below `maxOffset` (exclusive; e.g. the high watermark for
   * consumers), from one segment. Bytes are returned as stored. Throws OFFSET_OUT_OF_RANGE outside
   * [logStartOffset, LEO].
   */
  read(fetchOffset: number, maxBytes: number, maxOffset?: number, minOneMessage = true): FetchDataInfo {
    return this.io('reading the log', () => {
      const end = this.nextOffset;
      if (fetchOffset > end || fetchOffset < this.logStartOffsetValue) {
        throw new KafkaError(
          'OFFSET_OUT_OF_RANGE',
          `Received request for offset ${fetchOffset} for partition ${tpString(this.topicPartition)}, but we only have log segments in the range ${this.logStartOffsetValue} to ${end}.`,
        );
      }
      const upper = Math.min(maxOffset ?? end, end);
      let segment = this.segments.floorSegment(fetchOffset);
      while (segment !== undefined && fetchOffset < upper && segment.baseOffset < upper) {
        const next = this.segments.higherSegment(segment.baseOffset);
        let maxPosition = segment.size;
        if (upper < end && (next === undefined || upper < next.baseOffset)) maxPosition = segment.translateOffset(upper)?.position ?? segment.size;
        const res = segment.read(fetchOffset, maxBytes, maxPosition, minOneMessage);
        if (res !== undefined) return { fetchOffset, records: res.records, segmentBaseOffset: segment.baseOffset, positionInSegment: res.position };
        segment = next;
      }
      return { fetchOffset, records: Buffer.alloc(0), segmentBaseOffset: -1, positionInSegment: -1 };
    });
  }

  /**
   * The bytes a read from `fetchOffset` up to `maxOffset` (exclusive) would find, counted from batch positions
   * without reading any data, and only as far as `atLeast` (Kafka's DelayedFetch position arithmetic): what a
   * parked Fetch checks when woken, so that waiting costs no read buffers.
   */
  bytesAvailable(fetchOffset: number, maxOffset: number, atLeast: number): number {
    return this.io('reading the log', () => {
      const upper = Math.min(maxOffset, this.nextOffset);
      let total = 0;
      let segment = this.segments.floorSegment(fetchOffset);
      while (segment !== undefined && fetchOffset < upper && segment.baseOffset < upper && total < atLeast) {
        const next = this.segments.higherSegment(segment.baseOffset);
        const from = segment.translateOffset(Math.max(fetchOffset, segment.baseOffset));
        if (from !== undefined) {
          const to = next === undefined || upper < next.baseOffset ? (segment.translateOffset(upper)?.position ?? segment.size) : segment.size;
          total += Math.max(0, to - from.position);
        }
        segment = next;
      }
      return total;
    });
  }

  /**
   * ListOffsets: −2 → log start offset, −1 → LEO, otherwise the first record with a timestamp ≥ `timestamp`
   * (undefined if none). Timestamps −1 are returned for the special cases. The leader epoch is, as Kafka's
   * Log.fetchOffsetByTimestamp: the earliest cached epoch if it starts at or before the log start offset (a log
   * from an older message format may have none), the latest cached epoch, or the found batch's.
   */
  fetchOffsetByTimestamp(timestamp: number): TimestampAndOffset | undefined {
    return this.io('looking up an offset by timestamp', () => {
      if (timestamp === EARLIEST_TIMESTAMP) {
        const earliest = this.leaderEpochCache.entries()[0];
        const leaderEpoch = earliest !== undefined && earliest.startOffset <= this.logStartOffsetValue ? earliest.epoch : -1;
        return { timestamp: -1, offset: this.logStartOffsetValue, leaderEpoch };
      }
      if (timestamp === LATEST_TIMESTAMP) return { timestamp: -1, offset: this.nextOffset, leaderEpoch: this.leaderEpochCache.latestEpoch() };
      for (const segment of this.segments.all()) {
        if (segment.largestTimestamp() < timestamp) continue;
        const found = segment.findOffsetByTimestamp(timestamp, this.logStartOffsetValue);
        if (found !== undefined) return found;
      }
      return undefined;
    });
  }

  /**
   * Records that `leaderEpoch` starts at `startOffset` (default: the end of everything appended so far), e.g. when
   * this broker becomes leader (Kafka's maybeAssignEpochStartOffset).
   */
  maybeAssignEpochStartOffset(leaderEpoch: number, startOffset = this.nextOffsetToAssign): void {
    this.io('updating the leader epoch cache', () => this.leaderEpochCache.assign(leaderEpoch, startOffset));
  }

  /** OffsetsForLeaderEpoch: the largest epoch ≤ `leaderEpoch` and where it ends (−1, −1 if unknown). */
  endOffsetForEpoch(leaderEpoch: number): { leaderEpoch: number; endOffset: number } {
    const e = this.leaderEpochCache.endOffsetFor(leaderEpoch, this.nextOffset);
    return { leaderEpoch: e.epoch, endOffset: e.startOffset };
  }

  /** Sets the high watermark, clamped to [logStartOffset, LEO]; returns the value set. */
  updateHighWatermark(hw: number): number {
    this.highWatermarkValue = Math.min(Math.max(hw, this.logStartOffsetValue), this.nextOffset);
    // Completed transactions whose markers are now below the HW no longer hold the LSO back.
    this.producerStateManager.onHighWatermarkUpdated(this.highWatermarkValue);
    return this.highWatermarkValue;
  }

  /**
   * Kafka's Log.lastStableOffset: the first offset of a transaction still open (or decided but with its marker
   * not yet below the high watermark), not below the log start offset; the high watermark when there is none
   * below it. read_committed consumers read up to here.
   */
  get lastStableOffset(): number {
    const firstUnstable = this.producerStateManager.firstUnstableOffset();
    if (firstUnstable === undefined) return this.highWatermarkValue;
    return Math.min(Math.max(firstUnstable, this.logStartOffsetValue), this.highWatermarkValue);
  }

  /**
   * Kafka's Log.collectAbortedTransactions for a read_committed fetch: the transactions aborted in
   * [startOffset, upperBoundOffset), from the `.txnindex` of the segment holding startOffset and those after it
   * (a marker lies at or after its data), stopping at the first index whose search is complete. Per fetch and
   * segment, from memory; no record is looked at.
   */
  /**
   * Kafka's Log.addAbortedTransactions: the aborted transactions a read (one segment's batches) may hold, from its
   * fetch offset up to the next segment or `maxOffset` (the LSO), whichever is first.
   */
  abortedTransactionsInRead(read: FetchDataInfo, maxOffset: number): AbortedTxn[] {
    const next = read.segmentBaseOffset < 0 ? undefined : this.segments.higherSegment(read.segmentBaseOffset);
    return this.collectAbortedTransactions(read.fetchOffset, Math.min(next?.baseOffset ?? this.nextOffset, maxOffset));
  }

  collectAbortedTransactions(startOffset: number, upperBoundOffset: number): AbortedTxn[] {
    const out: AbortedTxn[] = [];
    let segment = this.segments.floorSegment(startOffset) ?? this.segments.first();
    while (segment !== undefined) {
      const result = segment.txnIndex.collectAbortedTxns(startOffset, upperBoundOffset);
      for (const t of result.abortedTransactions) out.push(t);
      if (result.isComplete) break;
      segment = this.segments.higherSegment(segment.baseOffset);
    }
    return out;
  }

  /**
   * DeleteRecords on the leader, and on a follower the leader's log start offset from a fetch response: moves the
   * log start offset up (not beyond the high watermark). Segments below it go at the next retention run.
   */
  maybeIncrementLogStartOffset(newLogStartOffset: number, reason: LogStartOffsetIncrementReason = 'client delete records request'): Promise<boolean> {
    return this.exclusive(() =>
      this.io('incrementing the log start offset', () => {
        if (newLogStartOffset > this.highWatermarkValue) {
          throw new KafkaError('OFFSET_OUT_OF_RANGE', `Cannot increment the log start offset to ${newLogStartOffset} of partition ${tpString(this.topicPartition)} since it is larger than the high watermark ${this.highWatermarkValue}`);
        }
        if (newLogStartOffset <= this.logStartOffsetValue) return false;
        this.logStartOffsetValue = newLogStartOffset;
        this.leaderEpochCache.truncateFromStart(newLogStartOffset);
        this.producerStateManager.onLogStartOffsetIncremented(newLogStartOffset);
        this.logger.info(`Incremented log start offset to ${newLogStartOffset} due to ${reason}`);
        return true;
      }),
    );
  }

  /**
   * Removes every batch whose last offset is ≥ `targetOffset` (followers, after a leader change). Returns false
   * if there was nothing to remove.
   */
  truncateTo(targetOffset: number): Promise<boolean> {
    if (targetOffset < 0) return Promise.reject(new Error(`Cannot truncate partition ${tpString(this.topicPartition)} to a negative offset (${targetOffset}).`));
    return this.exclusive(async () => {
      await this.writes.drain();
      const truncated = this.io('truncating the log', () => {
        if (targetOffset >= this.nextOffset) return false;
        const first = this.segments.first() as LogSegment;
        if (first.baseOffset > targetOffset) {
          this.truncateFullyAndStartAtNow(targetOffset);
          return true;
        }
        this.logger.info(`Truncating to offset ${targetOffset}`);
        for (const s of this.segments.higherThan(targetOffset)) this.removeAndDelete(s);
        this.activeSegment().truncateTo(targetOffset);
        this.nextOffset = this.activeSegment().readNextOffset();
        this.afterTruncation(this.nextOffset);
        // Kafka's rebuildProducerState: newer snapshots go, the state is reloaded and the tail replayed.
        this.loadProducerState(this.nextOffset, false);
        return true;
      });
      // As Kafka, the truncated epochs are on disk before the follower goes on.
      if (truncated) await this.leaderEpochCache.flushed();
      return truncated;
    });
  }

  /** Deletes everything and restarts the log empty at `newOffset` (a follower far behind its leader). */
  truncateFullyAndStartAt(newOffset: number): Promise<void> {
    return this.exclusive(async () => {
      await this.writes.drain();
      this.io('truncating the log', () => this.truncateFullyAndStartAtNow(newOffset));
      await this.leaderEpochCache.flushed();
    });
  }

  /** Starts a new active segment at the LEO (no-op if the active one is empty). */
  roll(): Promise<LogSegment> {
    return this.exclusive(async () => {
      await this.writes.drain();
      return this.io('rolling the log', () => this.rollNow());
    });
  }

  /**
   * Retention: deletes whole old segments beyond retention.ms (by each segment's largest timestamp) or
   * retention.bytes (cleanup.policy=delete), and those entirely below the log start offset (any policy). Never
   * deletes data at or above the high watermark. Returns the number of segments deleted.
   */
  deleteOldSegments(): Promise<number> {
    return this.exclusive(async () => {
      await this.writes.drain();
      return this.io('deleting old segments', () => {
        if (this.closed) return 0;
        let deleted = 0;
        if (isDeletePolicy(this.configValue)) deleted += this.deleteRetentionMsBreached() + this.deleteRetentionSizeBreached();
        return deleted + this.deleteLogStartOffsetBreached();
      });
    });
  }

  /**
   * Flushes segments holding offsets below `offset` (default: the LEO) to disk and advances the recovery point.
   * Runs beside appends; a truncation during the flush leaves the recovery point alone.
   */
  flush(offset = this.nextOffset): Promise<void> {
    // A closed log's files may have moved (a future log renamed into place): a flush scheduled by a roll is moot.
    if (this.offline || this.closed || offset <= this.recoveryPointValue) return Promise.resolve();
    // Group commit: flushes asked for while one runs share the next, which covers everything written by then
    // (with flush.messages=1 every append asks; one fdatasync per append would be the disk's rate, not the log's).
    if (this.flushRunning !== undefined) {
      this.flushQueued ??= this.flushRunning.then(
        () => this.startFlush(),
        () => this.startFlush(),
      );
      return this.flushQueued;
    }
    return this.startFlush(offset);
  }

  private async flushRolledSegment(segment: LogSegment, newOffset: number): Promise<void> {
    await this.flush(newOffset);
    // Deleted or closed meanwhile (retention, truncation, shutdown): nothing left to sync.
    if (this.offline || this.closed || !this.segments.all().includes(segment)) return;
    try {
      await segment.flushIndexes();
    } catch (err) {
      throw this.handleIoError('flushing the indexes of a rolled segment', err);
    }
  }

  private startFlush(offset?: number): Promise<void> {
    this.flushQueued = undefined;
    const running = this.flushNow(offset ?? this.nextOffset).finally(() => {
      if (this.flushRunning === running) this.flushRunning = undefined;
    });
    this.flushRunning = running;
    return running;
  }

  private async flushNow(offset: number): Promise<void> {
    if (this.offline || this.closed || offset <= this.recoveryPointValue) return;
    const generation = this.truncations;
    // Only bytes written before the fsync starts are known durable after it.
    const durableUpTo = Math.min(offset, this.nextOffset);
    const segments = this.segments.range(this.recoveryPointValue, offset);
    if (this.logger.isDebugEnabled()) this.logger.debug(`Flushing log up to offset ${offset} with recovery point ${this.recoveryPointValue}, unflushed: ${this.unflushedMessages}`);
    // The active segment's indexes are not synced here: after an unclean shutdown the segment holding the
    // recovery point and all after it are recovered, their indexes rebuilt from the log (LogLoader, as Kafka's
    // recoverLog), so only the .log bytes of the active segment must be durable. Syncing its two index files too
    // tripled the fsyncs of every flush.messages=1 append. A segment's indexes are synced once it rolls.
    const active = this.activeSegment();
    try {
      const timed = this.onSegmentFlush;
      for (const s of segments) {
        const started = timed === undefined ? 0 : this.clock.hiResClockMs();
        await s.flush(s !== active);
        timed?.(this.clock.hiResClockMs() - started);
      }
      // The epochs of what becomes "below the recovery point" must be in their file first (see LeaderEpochFileCache).
      await this.leaderEpochCache.flushed();
    } catch (err) {
      throw this.handleIoError('flushing the log', err);
    }
    if (generation === this.truncations && durableUpTo > this.recoveryPointValue) {
      this.recoveryPointValue = durableUpTo;
      this.lastFlushTimeValue = this.clock.nowMs();
      if (offset >= this.nextOffset) this.unflushedMessages = 0;
    }
  }

  /**
   * For the cleaner: the segments it may rewrite, oldest first — not the active one, entirely below the last
   * stable offset (Kafka's cleaner stops there: an open or undecided transaction's data and markers stay as they
   * are, and so does everything not yet replicated), and with no record younger than min.compaction.lag.ms.
   */
  cleanableSegments(): LogSegment[] {
    const all = this.segments.all();
    const now = this.clock.nowMs();
    const lastStableOffset = this.lastStableOffset;
    const out: LogSegment[] = [];
    for (let i = 0; i + 1 < all.length; i++) {
      const segment = all[i] as LogSegment;
      const next = all[i + 1] as LogSegment;
      if (next.baseOffset > lastStableOffset) break;
      // As Kafka, the lag is looked at only when set: a record stamped in the future does not hold back cleaning.
      const lagMs = this.configValue.minCompactionLagMs;
      if (lagMs > 0 && now - segment.largestTimestamp() < lagMs) break;
      out.push(segment);
    }
    return out;
  }

  /**
   * For the cleaner: swaps `cleaned` (written with the `.cleaned` suffix, same base offset, with its own
   * `.txnindex`: the aborted transactions whose markers and data it still holds) in for `old`. The cleaned files
   * become `.swap`, the old ones `.deleted` (removed after file.delete.delay.ms), then the swap takes the final
   * names; the loader completes or discards each step after a crash. Returns false, deleting the cleaned files,
   * when `old` is no longer a non-active segment of this log (retention or truncation won).
   */
  replaceSegment(old: LogSegment, cleaned: LogSegment): Promise<boolean> {
    return this.exclusive(async () => {
      await this.writes.drain();
      return this.io('replacing a cleaned segment', () => {
        if (this.closed || this.segments.get(old.baseOffset) !== old || old === this.activeSegment() || cleaned.baseOffset !== old.baseOffset) {
          cleaned.deleteIfExists();
          return false;
        }
        cleaned.onBecomeInactiveSegment();
        cleaned.flushSync();
        cleaned.changeFileSuffixes(CLEANED_FILE_SUFFIX, SWAP_FILE_SUFFIX);
        this.segments.add(cleaned);
        this.asyncDelete(old);
        cleaned.changeFileSuffixes(SWAP_FILE_SUFFIX, '');
        return true;
      });
    });
  }

  /** Forgets producers idle longer than the expiration (Kafka's PeriodicProducerExpirationCheck). */
  removeExpiredProducers(): Promise<void> {
    return this.exclusive(() => {
      if (!this.closed) this.producerStateManager.removeExpiredProducers(this.clock.nowMs());
    });
  }

  /**
   * Resolves once every append, truncation and start-offset move queued so far is done and written: with nothing
   * queued behind it, the log end offset is then final (a log dir move's last copy and swap rely on it).
   */
  quiesce(): Promise<void> {
    return this.exclusive(() => this.writes.drain());
  }

  /** Closes all files (after pending queue work). Segments waiting for deletion are deleted now. */
  close(): Promise<void> {
    return this.exclusive(async () => {
      await this.writes.drain();
      if (this.closed) return;
      this.closed = true;
      // As Kafka's Log.close: a snapshot at the log end, so the next start replays nothing.
      if (!this.offline) {
        try {
          this.producerStateManager.updateMapEndOffset(this.nextOffset);
          this.producerStateManager.takeSnapshot(() => this.clock.nowMs(), true);
        } catch (err) {
          this.logger.warn('The producer state snapshot could not be written at close', err);
        }
      }
      await this.leaderEpochCache.flushed().catch((err: unknown) => this.logger.warn('The leader epoch checkpoint could not be written at close', err));
      this.leaderEpochCache.close();
      try {
        for (const s of this.pendingDeletes) s.deleteIfExists();
        this.pendingDeletes.clear();
        for (const s of this.segments.all()) s.close();
      } catch (err) {
        if (!isIoError(err)) throw err;
        this.logger.warn('Error while closing the log', err);
      }
    });
  }

  /** Closes the log and removes its directory. */
  async delete(): Promise<void> {
    await this.close();
    await this.queue.run(() => fs.rmSync(this.dir, { recursive: true, force: true }));
  }

  /**
   * The log dir failed (Kafka's closeHandlers): closes every file descriptor without writing anything more, so
   * the failed disk is no longer held open. The log stays offline.
   */
  closeHandlers(): void {
    this.offline = true;
    this.closed = true;
    this.leaderEpochCache.close();
    for (const s of [...this.segments.all(), ...this.pendingDeletes]) s.closeHandlers();
    this.pendingDeletes.clear();
  }

  toString(): string {
    return `Log(dir=${this.dir}, topic=${this.topicPartition.topic}, partition=${this.topicPartition.partition}, highWatermark=${this.highWatermarkValue}, lastStableOffset=${this.lastStableOffset}, logStartOffset=${this.logStartOffsetValue}, logEndOffset=${this.nextOffset})`;
  }

  // ---- internals (all called under the queue unless noted) ----

  private emptyAppendInfo(): LogAppendInfo {
    return { firstOffset: -1, lastOffset: -1, maxTimestamp: -1, offsetOfMaxTimestamp: -1, logAppendTime: -1, logStartOffset: this.logStartOffsetValue, numMessages: 0, validBytes: 0 };
  }

  /** Rolls if needed, reserves the bytes in the active segment and queues the write (under the queue). */
  private enqueueWrite(v: ValidatedRecords, origin: AppendOrigin, leaderBatch?: RecordBatch): Promise<LogAppendInfo> {
    if (this.closed) throw storageError(`The log for partition ${tpString(this.topicPartition)} is closed`);
    const segment = this.maybeRoll(v);
    // After the roll (whose snapshot must not hold this append), before anything is reserved: a refused batch
    // (sequence, epoch) leaves the log as it was. The state moves now, so the next pipelined append sees it.
    this.updateProducerState(v.records, origin, leaderBatch, segment);
    const position = segment.reserveAppend(v.lastOffset, v.maxTimestamp, v.offsetOfMaxTimestamp, v.records);
    this.nextOffsetToAssign = v.lastOffset + 1;
    const info: LogAppendInfo = {
      firstOffset: v.firstOffset,
      lastOffset: v.lastOffset,
      maxTimestamp: v.maxTimestamp,
      offsetOfMaxTimestamp: v.offsetOfMaxTimestamp,
      logAppendTime: v.logAppendTime,
      logStartOffset: this.logStartOffsetValue,
      numMessages: v.numMessages,
      validBytes: v.records.length,
    };
    return this.writes.submit(segment, position, v.records, info);
  }

  /** Validates (leader) and records the producer batches of an append; one header read per batch, no record walk. */
  private updateProducerState(records: Buffer, origin: AppendOrigin, leaderBatch: RecordBatch | undefined, segment: LogSegment): void {
    const psm = this.producerStateManager;
    if (leaderBatch !== undefined) {
      if (leaderBatch.producerId >= 0) this.recordAbort(psm.append(leaderBatch, origin), segment, false);
      psm.updateMapEndOffset(leaderBatch.lastOffset + 1);
      return;
    }
    let end = -1;
    for (const b of batchesIn(records)) {
      if (b.producerId >= 0) this.recordAbort(psm.append(b, origin), segment, false);
      end = b.lastOffset + 1;
    }
    if (end >= 0) psm.updateMapEndOffset(end);
  }

  /**
   * Kafka's LogSegment.updateTxnIndex: an ABORT marker puts its transaction, with the LSO it leaves, into the
   * `.txnindex` of the segment the marker is written to. A replay after a restart adds only what is missing.
   */
  private recordAbort(completed: CompletedTxn | undefined, segment: LogSegment, replay: boolean): void {
    if (completed === undefined || !completed.isAborted) return;
    const txn = { producerId: completed.producerId, firstOffset: completed.firstOffset, lastOffset: completed.lastOffset, lastStableOffset: this.producerStateManager.lastStableOffset(completed) };
    if (replay) segment.txnIndex.appendIfAbsent(txn);
    else segment.txnIndex.append(txn);
  }

  /**
   * A duplicate's answer (Kafka: firstOffset, lastOffset and logAppendTime from the batch metadata, error NONE). It
   * waits for writes in flight, so the original is in the file before its retry is acknowledged.
   */
  private duplicateAppendInfo(firstOffset: number, lastOffset: number, timestamp: number): Promise<LogAppendInfo> {
    const info: LogAppendInfo = { firstOffset, lastOffset, maxTimestamp: timestamp, offsetOfMaxTimestamp: lastOffset, logAppendTime: timestamp, logStartOffset: this.logStartOffsetValue, numMessages: 0, validBytes: 0 };
    return this.writes.busy ? this.writes.drain().then(() => info) : Promise.resolve(info);
  }

  /**
   * Kafka 2.8's Log.loadProducerState: at load and after a truncation, the producer state is made to end at
   * `lastOffset`: snapshots above it (or at or below the log start) go, the latest remaining one is read, and
   * the log after it is replayed from batch headers. A clean shutdown of a log with no snapshot at all (one
   * written before producer state existed here) skips the scan, as Kafka's upgrade path does, with empty
   * snapshots at the last two segments and the end.
   */
  private loadProducerState(lastOffset: number, reloadFromCleanShutdown: boolean): void {
    const psm = this.producerStateManager;
    const now = this.clock.nowMs();
    const all = this.segments.all();
    const offsetsToSnapshot = new Set<number>([all[all.length - 2]?.baseOffset ?? -1, (all[all.length - 1] as LogSegment).baseOffset, lastOffset]);
    offsetsToSnapshot.delete(-1);
    if (psm.latestSnapshotOffset() === undefined && reloadFromCleanShutdown) {
      for (const offset of [...offsetsToSnapshot].sort((a, b) => a - b)) {
        psm.updateMapEndOffset(offset);
        psm.takeSnapshot(() => this.clock.nowMs());
      }
    } else {
      const isEmptyBeforeTruncation = psm.isEmpty && psm.mapEndOffset >= lastOffset;
      psm.truncateAndReload(this.logStartOffsetValue, lastOffset, now);
      if (lastOffset > psm.mapEndOffset && !isEmptyBeforeTruncation) {
        const started = this.clock.nowMs();
        this.logger.info(`Loading producer state till offset ${lastOffset} with message format version 2`);
        for (const segment of this.segments.range(psm.mapEndOffset, lastOffset)) {
          const start = Math.max(segment.baseOffset, psm.mapEndOffset, this.logStartOffsetValue);
          psm.updateMapEndOffset(start);
          if (offsetsToSnapshot.has(segment.baseOffset)) psm.takeSnapshot(() => this.clock.nowMs());
          this.replayProducerBatches(segment, start, lastOffset);
        }
        this.logger.info(`Producer state recovery took ${started - now}ms for snapshot load and ${this.clock.nowMs() - started}ms for segment recovery from offset ${lastOffset}`);
      }
    }
    psm.updateMapEndOffset(lastOffset);
    psm.takeSnapshot(() => this.clock.nowMs());
  }

  /** Kafka's loadProducersFromLog: the batches of `segment` from `from` up to `until`, as replication appends. */
  private replayProducerBatches(segment: LogSegment, from: number, until: number): void {
    let offset = from;
    while (offset < until) {
      const res = segment.read(offset, 1 << 20, segment.size, true);
      if (res === undefined || res.records.length === 0) return;
      for (const b of batchesIn(res.records)) {
        if (b.baseOffset >= until) return;
        if (b.producerId >= 0) this.recordAbort(this.producerStateManager.append(b, 'replication'), segment, true);
        offset = b.lastOffset + 1;
      }
    }
  }

  /** Not async: an append that needs no flush (the usual case) then costs no extra promise. */
  private maybeFlushAfterAppend(info: LogAppendInfo): LogAppendInfo | Promise<LogAppendInfo> {
    if (this.unflushedMessages < this.configValue.flushMessages) return info;
    return this.flush().then(() => info);
  }

  private maybeRoll(v: ValidatedRecords): LogSegment {
    const segment = this.activeSegment();
    const now = this.clock.nowMs();
    const params = {
      maxSegmentMs: this.configValue.segmentMs,
      maxSegmentBytes: this.configValue.segmentBytes,
      messagesSize: v.records.length,
      maxTimestampInMessages: v.maxTimestamp,
      maxOffsetInMessages: v.lastOffset,
      now,
    };
    if (!segment.shouldRoll(params)) return segment;
    if (this.logger.isDebugEnabled()) {
      this.logger.debug(`Rolling new log segment (log_size = ${segment.size}/${this.configValue.segmentBytes}}, offset_index_size = ${segment.offsetIndex.entries}/${segment.offsetIndex.maxEntries}, time_index_size = ${segment.timeIndex.entries}/${segment.timeIndex.maxEntries}, inactive_time_ms = ${now - segment.created}/${this.configValue.segmentMs}).`);
    }
    // A follower's batch may start above the LEO (after compaction upstream); the new segment starts with it.
    return this.rollNow(Math.max(v.firstOffset, this.nextOffsetToAssign));
  }

  private rollNow(expectedNextOffset = this.nextOffsetToAssign): LogSegment {
    const start = this.clock.nowMs();
    const newOffset = Math.max(expectedNextOffset, this.nextOffsetToAssign);
    const active = this.activeSegment();
    if (active.baseOffset === newOffset) {
      if (active.size === 0) return active;
      throw new Error(`Trying to roll a new log segment for topic partition ${tpString(this.topicPartition)} with start offset ${newOffset} =max(provided offset = ${expectedNextOffset}, LEO = ${this.nextOffsetToAssign}) while it already exists.`);
    }
    for (const f of [logFile(this.dir, newOffset), offsetIndexFile(this.dir, newOffset), timeIndexFile(this.dir, newOffset)]) {
      if (fs.existsSync(f)) {
        this.logger.warn(`Newly rolled segment file ${f} already exists; deleting it first`);
        fs.rmSync(f);
      }
    }
    active.onBecomeInactiveSegment();
    const segment = LogSegment.open(this.dir, newOffset, segmentOpenOptions(this.configValue, start));
    this.segments.add(segment);
    // Kafka's roll: a snapshot at the new segment's base, so recovering it starts from that snapshot.
    this.producerStateManager.updateMapEndOffset(newOffset);
    this.producerStateManager.takeSnapshot(() => this.clock.nowMs());
    // With writes in flight the log end offset follows them; otherwise it jumps over a follower's gap now.
    if (!this.writes.busy) this.nextOffset = Math.max(this.nextOffset, newOffset);
    this.nextOffsetToAssign = Math.max(this.nextOffsetToAssign, newOffset);
    this.logger.info(`Rolled new log segment at offset ${newOffset} in ${this.clock.nowMs() - start} ms.`);
    // Kafka flushes the finished segment in the background right after a roll; its indexes too, which flushes of
    // the active segment left out (the recovery point may have passed it already).
    this.scheduleTask('flush-log', () => this.flushRolledSegment(active, newOffset), 0);
    return segment;
  }

  private truncateFullyAndStartAtNow(newOffset: number): void {
    this.logger.debug(`Truncate and start at offset ${newOffset}`);
    const old = this.segments.all().slice();
    for (const s of old) s.changeFileSuffixes('', DELETED_FILE_SUFFIX);
    let segment: LogSegment;
    try {
      for (const f of [logFile(this.dir, newOffset), offsetIndexFile(this.dir, newOffset), timeIndexFile(this.dir, newOffset)]) fs.rmSync(f, { force: true });
      segment = LogSegment.open(this.dir, newOffset, segmentOpenOptions(this.configValue, this.clock.nowMs()));
    } catch (err) {
      // The new segment could not be opened (EMFILE, say): the log keeps its segments, under their names.
      for (const s of old) s.changeFileSuffixes(DELETED_FILE_SUFFIX, '');
      throw err;
    }
    for (const s of old) {
      this.segments.remove(s.baseOffset);
      this.scheduleSegmentDeletion(s);
    }
    this.segments.add(segment);
    this.nextOffset = newOffset;
    this.nextOffsetToAssign = newOffset;
    this.leaderEpochCache.clearAndFlush();
    this.producerStateManager.truncateFullyAndStartAt(newOffset);
    this.logStartOffsetValue = newOffset;
    this.afterTruncation(newOffset);
  }

  private afterTruncation(logStartOffset: number): void {
    this.truncations++;
    this.nextOffsetToAssign = this.nextOffset;
    this.logStartOffsetValue = Math.min(this.logStartOffsetValue, logStartOffset);
    this.highWatermarkValue = Math.min(this.highWatermarkValue, this.nextOffset);
    this.recoveryPointValue = Math.min(this.recoveryPointValue, this.nextOffset);
    this.leaderEpochCache.truncateFromEnd(this.nextOffset);
  }

  private removeAndDelete(segment: LogSegment): void {
    this.segments.remove(segment.baseOffset);
    this.asyncDelete(segment);
  }

  /** Renames the segment's files to `.deleted` and removes them after file.delete.delay.ms. */
  private asyncDelete(segment: LogSegment): void {
    segment.changeFileSuffixes('', DELETED_FILE_SUFFIX);
    this.scheduleSegmentDeletion(segment);
  }

  /** Removes the files of a segment already renamed to `.deleted`, after file.delete.delay.ms. */
  private scheduleSegmentDeletion(segment: LogSegment): void {
    this.pendingDeletes.add(segment);
    const remove = (): void => {
      if (!this.pendingDeletes.delete(segment)) return;
      this.logger.info(`Deleting segment files ${segment.toString()}`);
      try {
        segment.deleteIfExists();
      } catch (err) {
        // A resource error leaves the `.deleted` files behind; the next start-up removes them.
        throw this.handleIoError('deleting segment files', err);
      }
    };
    if (this.configValue.fileDeleteDelayMs <= 0) remove();
    else this.scheduleTask('delete-file', remove, this.configValue.fileDeleteDelayMs);
  }

  /** Kafka's deletableSegments: the oldest segments matching `predicate`, stopping at the first that does not. */
  private deletableSegments(predicate: (segment: LogSegment, next: LogSegment | undefined) => boolean): LogSegment[] {
    const all = this.segments.all();
    const out: LogSegment[] = [];
    for (let i = 0; i < all.length; i++) {
      const segment = all[i] as LogSegment;
      const next = all[i + 1];
      const upperBound = next?.baseOffset ?? this.nextOffset;
      const lastAndEmpty = next === undefined && segment.size === 0;
      if (this.highWatermarkValue >= upperBound && !lastAndEmpty && predicate(segment, next)) out.push(segment);
      else break;
    }
    return out;
  }

  private deleteSegments(deletable: LogSegment[], describe: (s: LogSegment) => string): number {
    if (deletable.length === 0) return 0;
    // The active segment is never deleted: when every segment qualifies, a new empty one takes over first.
    if (deletable.length === this.segments.size) this.rollNow();
    for (const s of deletable) {
      this.logger.info(describe(s));
      this.removeAndDelete(s);
      // Kafka's deleteSegmentFiles: a segment's snapshot goes with it.
      this.producerStateManager.removeAndDeleteSnapshot(s.baseOffset);
    }
    const firstBase = (this.segments.first() as LogSegment).baseOffset;
    if (firstBase > this.logStartOffsetValue) {
      this.logStartOffsetValue = firstBase;
      this.leaderEpochCache.truncateFromStart(firstBase);
      this.producerStateManager.onLogStartOffsetIncremented(firstBase);
      this.logger.info(`Incremented log start offset to ${firstBase} due to segment deletion`);
    }
    return deletable.length;
  }

  private deleteRetentionMsBreached(): number {
    const retentionMs = this.configValue.retentionMs;
    if (retentionMs < 0) return 0;
    const now = this.clock.nowMs();
    return this.deleteSegments(
      this.deletableSegments((s) => now - s.largestTimestamp() > retentionMs),
      (s) => `Deleting segment ${s.toString()} due to retention time ${retentionMs}ms breach based on the largest record timestamp in the segment`,
    );
  }

  private deleteRetentionSizeBreached(): number {
    const retentionBytes = this.configValue.retentionBytes;
    const size = this.size;
    if (retentionBytes < 0 || size < retentionBytes) return 0;
    let diff = size - retentionBytes;
    let after = size;
    return this.deleteSegments(
      this.deletableSegments((s) => {
        if (diff - s.size < 0) return false;
        diff -= s.size;
        return true;
      }),
      (s) => {
        after -= s.size;
        return `Deleting segment ${s.toString()} due to retention size ${retentionBytes} breach. Log size after deletion will be ${after}.`;
      },
    );
  }

  private deleteLogStartOffsetBreached(): number {
    const start = this.logStartOffsetValue;
    return this.deleteSegments(
      this.deletableSegments((_s, next) => next !== undefined && next.baseOffset <= start),
      (s) => `Deleting segment ${s.toString()} due to log start offset ${start} breach`,
    );
  }

  private scheduleTask(name: string, task: () => void | Promise<void>, delayMs: number): void {
    try {
      this.scheduler.schedule(name, task, delayMs);
    } catch (err) {
      // The scheduler stops at shutdown; pending deletes are then done by close(), flushes by the LogManager.
      this.logger.debug(`Not scheduling ${name}: ${(err as Error).message}`);
    }
  }

  private io<T>(what: string, fn: () => T): T {
    if (this.offline) throw storageError(`The log dir ${this.parentDir} of partition ${tpString(this.topicPartition)} is offline`);
    try {
      return fn();
    } catch (err) {
      throw this.handleIoError(what, err);
    }
  }

  /**
   * Kafka's maybeHandleIOException, with its classification narrowed: an error of the disk takes the log dir
   * offline (KAFKA_STORAGE_ERROR from now on), a resource error fails this call only (TransientStorageError),
   * anything else is returned as it is.
   */
  private handleIoError(what: string, err: unknown): unknown {
    const kind = ioErrorKind(err);
    if (kind === undefined) return err;
    const message = `Error while ${what} for ${tpString(this.topicPartition)} in dir ${this.parentDir}`;
    if (kind === 'resource') {
      this.logger.warn(`${message}: ${errnoOf(err)} is a shortage of this process or host, not a failure of the log dir, which stays online`, err);
      return new TransientStorageError(message, err);
    }
    this.offline = true;
    this.failureChannel.maybeAddOfflineLogDir(this.parentDir, message, err);
    return storageError(message, err);
  }

  /** Runs `task` under the log's queue, once appends whose writes failed (dir still online) are forgotten. */
  private exclusive<T>(task: () => T | Promise<T>): Promise<T> {
    return this.queue.run(() => (this.unwrittenReservations ? this.discardUnwrittenAppends().then(task) : task()));
  }

  /**
   * After a write failed without taking the dir offline: waits for the writes still in flight, then drops what
   * was reserved beyond the log end offset (segments rolled for the failed appends, their bytes and index
   * entries, leader-epoch entries past the end), so the next append goes exactly where the last written one ended.
   */
  private async discardUnwrittenAppends(): Promise<void> {
    await this.writes.drain();
    this.unwrittenReservations = false;
    this.io('discarding failed appends', () => {
      const end = this.nextOffset;
      for (const s of this.segments.higherThan(end)) this.removeAndDelete(s);
      this.activeSegment().discardUnwritten(end);
      this.nextOffsetToAssign = this.nextOffset;
      // An epoch starting at the end stays: it is the leader's current one, or the failed batch's, re-sent alike.
      this.leaderEpochCache.truncateFromEnd(this.nextOffset + 1);
      // The producer state moved with the failed appends: back to what is written.
      this.loadProducerState(this.nextOffset, false);
      this.logger.info(`Discarded the appends at and above offset ${end} whose writes failed`);
    });
  }
}
