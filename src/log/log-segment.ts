import * as fs from 'node:fs';
import { getLogger } from '../common/logging/logging';
import { readInt64 } from '../common/int64';
import {
  BASE_OFFSET_OFFSET,
  BATCH_LENGTH_OFFSET,
  CURRENT_MAGIC,
  LAST_OFFSET_DELTA_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
  MAX_TIMESTAMP_OFFSET,
  OFFSET_RANGE_HEADER_LENGTH,
  RECORD_BATCH_OVERHEAD,
  RecordBatch,
} from '../records/record-batch';
import { DELETED_FILE_SUFFIX, logFile, offsetIndexFile, timeIndexFile, transactionIndexFile } from './log-file-names';
import { TransactionIndex } from './transaction-index';
import { OffsetIndex } from './offset-index';
import { RecentBatches } from './recent-batches';
import { TimeIndex } from './time-index';

/** Where a batch lies in a segment: its base and last offsets, byte position and size. */
export interface LogOffsetPosition {
  /** Base offset of the batch. */
  readonly offset: number;
  readonly lastOffset: number;
  readonly position: number;
  readonly size: number;
}

export interface SegmentRead {
  readonly records: Buffer;
  readonly position: number;
}

export interface RollParams {
  readonly maxSegmentMs: number;
  readonly maxSegmentBytes: number;
  readonly messagesSize: number;
  readonly maxTimestampInMessages: number;
  readonly maxOffsetInMessages: number;
  readonly now: number;
}

export interface RecoveryResult {
  readonly truncatedBytes: number;
  /** Why recovery stopped early (undefined when the whole file was valid). */
  readonly invalidReason?: string;
  readonly validBytes: number;
  /** The offset after the last valid batch (the base offset when none). */
  readonly nextOffset: number;
}

const HEADER_READ = RECORD_BATCH_OVERHEAD;
const RECOVERY_CHUNK = 1 << 20;

/**
 * One segment of a partition's log: the `<base>.log` file of whole v2 batches plus its sparse `.index` and
 * `.timeindex`. Owned by a Log; every mutation (append, truncate, recover, rename, delete) runs under the
 * log's append queue, reads may run at any time between them. An append is split in two: `reserveAppend`
 * (bookkeeping, under the queue) and `write` (a positional writev on libuv's pool, driven by the log's
 * LogWritePipeline); reads are bounded by the bytes already written (`readableSize`). Data reaches the disk on
 * `flush()` or when the OS decides. The cleaner writes its `.cleaned` copies with the synchronous `append`.
 *
 * The .log only ever holds magic-2 batches: legacy input is converted before it gets here.
 */
export class LogSegment {
  private readonly logger;
  private fd: number | undefined;
  /** Bytes appended, including writes still in flight (roll decisions, positions of new appends). */
  private sizeValue: number;
  /** Bytes known to be in the file (the bound for every read). */
  private committedSize: number;
  private bytesSinceLastIndexEntry = 0;
  private maxTimestampSoFarValue: number;
  private offsetOfMaxTimestampSoFarValue: number;
  private rollingBasedTimestamp: number | undefined;
  private readonly header = Buffer.allocUnsafe(HEADER_READ);
  /** The latest appended batches' positions, so that tailing fetches find them without reading headers. */
  private readonly recent = new RecentBatches();
  private flushing = 0;
  private closeWhenFlushed = false;
  private logPath: string;

  private constructor(
    readonly dir: string,
    readonly baseOffset: number,
    readonly offsetIndex: OffsetIndex,
    readonly timeIndex: TimeIndex,
    /** `.txnindex`: the transactions aborted by markers in this segment (read_committed fetches). */
    readonly txnIndex: TransactionIndex,
    private indexIntervalBytes: number,
    private readonly rollJitterMs: number,
    readonly created: number,
    fd: number,
    size: number,
  ) {
    this.logger = getLogger('kafka.log.LogSegment');
    this.fd = fd;
    this.sizeValue = size;
    this.committedSize = size;
    this.logPath = logFile(dir, baseOffset);
    const last = timeIndex.lastEntry();
    this.maxTimestampSoFarValue = last.timestamp;
    this.offsetOfMaxTimestampSoFarValue = last.offset;
  }

  /** Opens the files of the segment at `baseOffset`, creating empty ones if absent. */
  static open(
    dir: string,
    baseOffset: number,
    opts: { indexIntervalBytes: number; maxIndexSize: number; rollJitterMs: number; now: number; fileSuffix?: string; fresh?: boolean },
  ): LogSegment {
    const suffix = opts.fileSuffix ?? '';
    const file = logFile(dir, baseOffset, suffix);
    const fresh = opts.fresh === true;
    const existed = !fresh && fs.existsSync(file);
    const fd = fs.openSync(file, existed ? 'r+' : 'w+');
    let offsetIndex: OffsetIndex | undefined;
    try {
      const size = existed ? fs.fstatSync(fd).size : 0;
      offsetIndex = new OffsetIndex(offsetIndexFile(dir, baseOffset, suffix), baseOffset, opts.maxIndexSize, fresh);
      const timeIndex = new TimeIndex(timeIndexFile(dir, baseOffset, suffix), baseOffset, opts.maxIndexSize, fresh);
      const txnFile = transactionIndexFile(dir, baseOffset, suffix);
      // A new segment's base offset may have had files before (a truncation rolled back): no stale aborts.
      if (!existed && !fresh) fs.rmSync(txnFile, { force: true });
      const txnIndex = new TransactionIndex(txnFile, fresh || !existed);
      const segment = new LogSegment(dir, baseOffset, offsetIndex, timeIndex, txnIndex, opts.indexIntervalBytes, opts.rollJitterMs, opts.now, fd, size);
      segment.logPath = file;
      return segment;
    } catch (err) {
      // Half-opened (an index hit EMFILE, say): no descriptor leaks and a new segment leaves no file behind.
      swallow(() => fs.closeSync(fd));
      if (offsetIndex !== undefined) swallow(() => (offsetIndex as OffsetIndex).closeHandler());
      if (!existed) {
        swallow(() => fs.unlinkSync(file));
        swallow(() => fs.rmSync(offsetIndexFile(dir, baseOffset, suffix), { force: true }));
      }
      throw err;
    }
  }

  get size(): number {
    return this.sizeValue;
  }

  /** Bytes readable now; below `size` while appends are being written. */
  get readableSize(): number {
    return this.committedSize;
  }

  get file(): string {
    return this.logPath;
  }

  get maxTimestampSoFar(): number {
    return this.maxTimestampSoFarValue;
  }

  get offsetOfMaxTimestampSoFar(): number {
    return this.offsetOfMaxTimestampSoFarValue;
  }

  setIndexIntervalBytes(bytes: number): void {
    this.indexIntervalBytes = bytes;
  }

  /** Largest record timestamp in the segment, or the file's mtime when it holds no timestamps (Kafka's rule). */
  largestTimestamp(): number {
    return this.maxTimestampSoFarValue >= 0 ? this.maxTimestampSoFarValue : this.lastModified();
  }

  lastModified(): number {
    return Math.floor(fs.fstatSync(this.openFd()).mtimeMs);
  }

  canConvertToRelativeOffset(offset: number): boolean {
    const rel = offset - this.baseOffset;
    return rel >= 0 && rel <= 0x7fffffff;
  }

  /**
   * Appends `records` (whole batches, offsets already assigned) at the end of the file, synchronously.
   * `largestOffset` is the last offset in them.
   */
  append(largestOffset: number, largestTimestamp: number, offsetOfMaxTimestamp: number, records: Buffer): void {
    if (records.length === 0) return;
    const position = this.reserveAppend(largestOffset, largestTimestamp, offsetOfMaxTimestamp, records);
    this.writeFully(records, position);
    this.committedSize = Math.max(this.committedSize, position + records.length);
  }

  /**
   * The bookkeeping half of an append: takes the next `length` bytes of the file for records ending at
   * `largestOffset` and updates the timestamps and indexes (an index entry if more than index.interval.bytes
   * went in since the last one). The bytes must then be written with `write` at the returned position.
   * Index entries may briefly point past the readable end; lookups only ever ask for offsets below the log end
   * offset, which those entries exceed, and recovery rebuilds indexes anyway.
   */
  reserveAppend(largestOffset: number, largestTimestamp: number, offsetOfMaxTimestamp: number, records: Buffer): number {
    const length = records.length;
    const physicalPosition = this.sizeValue;
    if (!this.canConvertToRelativeOffset(largestOffset)) {
      throw new Error(`Offset ${largestOffset} cannot be stored in the segment with base offset ${this.baseOffset}`);
    }
    if (physicalPosition === 0) this.rollingBasedTimestamp = largestTimestamp;
    this.sizeValue += length;
    if (largestTimestamp > this.maxTimestampSoFarValue) {
      this.maxTimestampSoFarValue = largestTimestamp;
      this.offsetOfMaxTimestampSoFarValue = offsetOfMaxTimestamp;
    }
    if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
      this.offsetIndex.append(largestOffset, physicalPosition);
      this.timeIndex.maybeAppend(this.maxTimestampSoFarValue, this.offsetOfMaxTimestampSoFarValue);
      this.bytesSinceLastIndexEntry = 0;
    }
    this.bytesSinceLastIndexEntry += length;
    this.recent.add(records, physicalPosition);
    return physicalPosition;
  }

  /**
   * Writes `buffers` back to back at `position` with one positional writev on libuv's thread pool, so the
   * caller can validate the next append meanwhile. The bytes become readable only with `markWritten`: several
   * writes may be in flight and finish out of order, and readers must never see a hole.
   */
  write(buffers: Buffer[], position: number): Promise<void> {
    const fd = this.openFd();
    let total = 0;
    for (const b of buffers) total += b.length;
    return new Promise<void>((resolve, reject) => {
      const step = (bufs: Buffer[], pos: number, remaining: number): void => {
        fs.writev(fd, bufs, pos, (err, written) => {
          if (err) return reject(err);
          if (written >= remaining) return resolve();
          // A short write (rare): continue with what is left.
          step(unwritten(bufs, written), pos + written, remaining - written);
        });
      };
      step(buffers, position, total);
    });
  }

  /** `write` on the calling thread, for small writes where the pool's hand-off costs more than the copy. */
  writeSync(buffers: Buffer[], position: number): void {
    const fd = this.openFd();
    let bufs = buffers;
    let pos = position;
    let remaining = 0;
    for (const b of buffers) remaining += b.length;
    while (remaining > 0) {
      const written = fs.writevSync(fd, bufs, pos);
      if (written >= remaining) return;
      bufs = unwritten(bufs, written);
      pos += written;
      remaining -= written;
    }
  }

  /** Makes the bytes below `end` readable; every `write` below it must have completed. */
  markWritten(end: number): void {
    this.committedSize = Math.max(this.committedSize, end);
  }

  /**
   * After failed writes (nothing in flight any more): forgets the bytes reserved beyond what was written, with the
   * index entries of offsets ≥ `nextOffset` (the offset after the last written batch), and cuts whatever part of
   * them reached the file.
   */
  discardUnwritten(nextOffset: number): void {
    this.recent.clear();
    this.offsetIndex.truncateTo(nextOffset);
    this.timeIndex.truncateTo(nextOffset);
    this.txnIndex.truncateTo(nextOffset);
    if (this.sizeValue === this.committedSize) return;
    fs.ftruncateSync(this.openFd(), this.committedSize);
    this.sizeValue = this.committedSize;
    const last = this.timeIndex.lastEntry();
    this.maxTimestampSoFarValue = last.timestamp;
    this.offsetOfMaxTimestampSoFarValue = last.offset;
    if (this.sizeValue === 0) this.rollingBasedTimestamp = undefined;
    this.bytesSinceLastIndexEntry = 0;
  }

  /**
   * The first batch whose last offset is ≥ `offset`, found by an index lookup and a forward scan of batch
   * headers from `startingPosition` at the earliest. Undefined if the segment has no such batch.
   */
  translateOffset(offset: number, startingPosition = 0): LogOffsetPosition | undefined {
    const recent = this.recent.find(offset);
    if (recent === null) return undefined;
    if (recent !== undefined && recent.position >= startingPosition) {
      // Reserved but not yet written: not readable, as the scan below would find.
      return recent.position + LOG_OVERHEAD <= this.committedSize ? recent : undefined;
    }
    let pos = Math.max(startingPosition, this.offsetIndex.lookup(offset).position);
    while (pos + LOG_OVERHEAD <= this.committedSize) {
      const h = this.readHeader(pos, OFFSET_RANGE_HEADER_LENGTH);
      if (h === undefined) return undefined;
      const size = LOG_OVERHEAD + h.readInt32BE(BATCH_LENGTH_OFFSET);
      if (size < RECORD_BATCH_OVERHEAD) return undefined;
      const base = readInt64(h, BASE_OFFSET_OFFSET);
      const last = base + h.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
      if (last >= offset) return { offset: base, lastOffset: last, position: pos, size };
      pos += size;
    }
    return undefined;
  }

  /**
   * Whole batches starting with the one holding `startOffset`, at most `maxSize` bytes, not at or beyond
   * `maxPosition`. With `minOneMessage` the first batch is returned whole even if larger than maxSize (so a
   * consumer can always make progress). Undefined when the segment has nothing at or after startOffset.
   */
  read(startOffset: number, maxSize: number, maxPosition = this.committedSize, minOneMessage = true): SegmentRead | undefined {
    const start = this.translateOffset(startOffset);
    if (start === undefined) return undefined;
    const limit = Math.min(maxPosition, this.committedSize);
    if (start.position >= limit) return { records: Buffer.alloc(0), position: start.position };
    const adjustedMax = minOneMessage ? Math.max(maxSize, start.size) : maxSize;
    const length = Math.min(limit - start.position, adjustedMax);
    if (length <= 0) return { records: Buffer.alloc(0), position: start.position };
    const buf = Buffer.allocUnsafe(length);
    this.readFully(buf, start.position);
    let end = 0;
    while (end + LOG_OVERHEAD <= length) {
      const size = LOG_OVERHEAD + buf.readInt32BE(end + BATCH_LENGTH_OFFSET);
      if (end + size > length) break;
      end += size;
    }
    return { records: end === length ? buf : buf.subarray(0, end), position: start.position };
  }

  /** The offset after the last batch of the segment (its base offset if empty). */
  readNextOffset(): number {
    let pos = this.offsetIndex.lastEntry().position;
    let next = this.baseOffset;
    while (pos + LOG_OVERHEAD <= this.committedSize) {
      const h = this.readHeader(pos, OFFSET_RANGE_HEADER_LENGTH);
      if (h === undefined) break;
      next = readInt64(h, BASE_OFFSET_OFFSET) + h.readInt32BE(LAST_OFFSET_DELTA_OFFSET) + 1;
      pos += LOG_OVERHEAD + h.readInt32BE(BATCH_LENGTH_OFFSET);
    }
    return next;
  }

  /**
   * The first record with timestamp ≥ `timestamp` and offset ≥ `startingOffset`. Only the one batch that
   * contains it is decoded. `leaderEpoch` is that batch's partition leader epoch (-1 when it has none: ListOffsets v4+).
   */
  findOffsetByTimestamp(timestamp: number, startingOffset: number): { timestamp: number; offset: number; leaderEpoch: number } | undefined {
    const indexed = this.timeIndex.lookup(timestamp);
    let pos = this.offsetIndex.lookup(Math.max(indexed.offset, startingOffset)).position;
    while (pos + LOG_OVERHEAD <= this.committedSize) {
      const h = this.readHeader(pos, HEADER_READ);
      if (h === undefined) return undefined;
      const size = LOG_OVERHEAD + h.readInt32BE(BATCH_LENGTH_OFFSET);
      const maxTs = readInt64(h, MAX_TIMESTAMP_OFFSET);
      const last = readInt64(h, BASE_OFFSET_OFFSET) + h.readInt32BE(LAST_OFFSET_DELTA_OFFSET);
      if (maxTs >= timestamp && last >= startingOffset) {
        const bytes = Buffer.allocUnsafe(size);
        this.readFully(bytes, pos);
        const batch = new RecordBatch(bytes);
        for (const r of batch.records()) {
          if (r.timestamp >= timestamp && r.offset >= startingOffset) return { timestamp: r.timestamp, offset: r.offset, leaderEpoch: Math.max(batch.partitionLeaderEpoch, -1) };
        }
      }
      pos += size;
    }
    return undefined;
  }

  /**
   * Decides whether the next append (of `messagesSize` bytes) needs a new segment: size, age (from the first
   * batch's timestamp when there is one, else from creation), a full index, or an offset not expressible
   * relative to this base.
   */
  shouldRoll(p: RollParams): boolean {
    const reachedRollMs = this.timeWaitedForRoll(p.now, p.maxTimestampInMessages) > p.maxSegmentMs - this.rollJitterMs;
    return (
      this.sizeValue > p.maxSegmentBytes - p.messagesSize ||
      (this.sizeValue > 0 && reachedRollMs) ||
      this.offsetIndex.isFull() ||
      this.timeIndex.isFull() ||
      !this.canConvertToRelativeOffset(p.maxOffsetInMessages)
    );
  }

  private timeWaitedForRoll(now: number, messageTimestamp: number): number {
    if (this.rollingBasedTimestamp === undefined && this.committedSize > 0) {
      const h = this.readHeader(0, HEADER_READ);
      this.rollingBasedTimestamp = h === undefined ? -1 : readInt64(h, MAX_TIMESTAMP_OFFSET);
    }
    const t = this.rollingBasedTimestamp;
    return t !== undefined && t >= 0 ? messageTimestamp - t : now - this.created;
  }

  /**
   * Calls `fn` for every batch of the segment in order, reading the file in chunks and yielding to the event
   * loop after each chunk (the cleaner uses this; a 1 GiB segment must not stall the broker). The RecordBatch
   * view is only valid during the call. Stops at the first incomplete or impossible length.
   */
  async forEachBatch(fn: (batch: RecordBatch, position: number) => void): Promise<void> {
    const end = this.committedSize;
    let buf = Buffer.allocUnsafe(Math.min(RECOVERY_CHUNK, Math.max(end, HEADER_READ)));
    let bufStart = 0;
    let bufLen = 0;
    let pos = 0;
    const load = async (from: number): Promise<void> => {
      await new Promise<void>((resolve) => setImmediate(resolve));
      bufStart = from;
      bufLen = Math.min(buf.length, end - from);
      this.readFully(buf.subarray(0, bufLen), from);
    };
    while (pos + LOG_OVERHEAD <= end) {
      if (pos + LOG_OVERHEAD > bufStart + bufLen || pos < bufStart) await load(pos);
      const size = LOG_OVERHEAD + buf.readInt32BE(pos - bufStart + BATCH_LENGTH_OFFSET);
      if (size < RECORD_BATCH_OVERHEAD || pos + size > end) return;
      if (pos + size > bufStart + bufLen) {
        if (buf.length < size) buf = Buffer.allocUnsafe(size);
        await load(pos);
      }
      fn(new RecordBatch(buf, pos - bufStart), pos);
      pos += size;
    }
  }

  /**
   * Re-reads the .log batch by batch, validating structure, CRC-32C and offsets and rebuilding both indexes.
   * At the first invalid byte the file is truncated there. `onBatch` sees every valid batch (leader-epoch
   * cache rebuild). Returns how much was cut.
   */
  recover(onBatch?: (batch: RecordBatch) => void): RecoveryResult {
    this.offsetIndex.reset();
    this.timeIndex.reset();
    this.maxTimestampSoFarValue = -1;
    this.offsetOfMaxTimestampSoFarValue = this.baseOffset;
    this.bytesSinceLastIndexEntry = 0;
    this.rollingBasedTimestamp = undefined;
    const fileSize = this.sizeValue;
    let buf = Buffer.allocUnsafe(Math.min(RECOVERY_CHUNK, Math.max(fileSize, HEADER_READ)));
    let bufStart = 0;
    let bufLen = 0;
    let pos = 0;
    let nextOffset = this.baseOffset;
    let invalidReason: string | undefined;
    const ensure = (from: number, len: number): boolean => {
      if (from + len > fileSize) return false;
      if (from >= bufStart && from + len <= bufStart + bufLen) return true;
      if (buf.length < len) buf = Buffer.allocUnsafe(len);
      bufStart = from;
      bufLen = Math.min(buf.length, fileSize - from);
      this.readFully(buf.subarray(0, bufLen), from);
      return true;
    };
    while (pos < fileSize) {
      if (!ensure(pos, HEADER_READ)) {
        invalidReason = `only ${fileSize - pos} bytes left, less than a batch header`;
        break;
      }
      const rel = pos - bufStart;
      const size = LOG_OVERHEAD + buf.readInt32BE(rel + BATCH_LENGTH_OFFSET);
      const magic = buf.readInt8(rel + MAGIC_OFFSET);
      if (size < RECORD_BATCH_OVERHEAD) {
        invalidReason = `batch size ${size} is smaller than the minimum ${RECORD_BATCH_OVERHEAD}`;
        break;
      }
      if (magic !== 2) {
        invalidReason = `invalid magic ${magic}`;
        break;
      }
      if (!ensure(pos, size)) {
        invalidReason = `batch of ${size} bytes runs past the end of the file (${fileSize - pos} bytes left)`;
        break;
      }
      const batch = new RecordBatch(buf, pos - bufStart);
      if (!batch.isValid()) {
        invalidReason = `Record is corrupt (stored crc = ${batch.checksum}, computed crc = ${batch.computeChecksum()})`;
        break;
      }
      const base = batch.baseOffset;
      const lastDelta = batch.lastOffsetDelta;
      if (base < nextOffset || lastDelta < 0 || !this.canConvertToRelativeOffset(base + lastDelta)) {
        invalidReason = `batch offsets [${base}, ${base + lastDelta}] are out of order or out of range (expected at least ${nextOffset})`;
        break;
      }
      const last = base + lastDelta;
      const maxTs = batch.maxTimestamp;
      if (this.sizeValue > 0 && pos === 0) this.rollingBasedTimestamp = maxTs;
      if (maxTs > this.maxTimestampSoFarValue) {
        this.maxTimestampSoFarValue = maxTs;
        this.offsetOfMaxTimestampSoFarValue = last;
      }
      if (this.bytesSinceLastIndexEntry > this.indexIntervalBytes) {
        this.offsetIndex.append(last, pos);
        this.timeIndex.maybeAppend(this.maxTimestampSoFarValue, this.offsetOfMaxTimestampSoFarValue);
        this.bytesSinceLastIndexEntry = 0;
      }
      this.bytesSinceLastIndexEntry += size;
      onBatch?.(batch);
      nextOffset = last + 1;
      pos += size;
    }
    this.recent.clear();
    const truncatedBytes = fileSize - pos;
    if (truncatedBytes > 0) {
      this.logger.warn(`Found invalid messages in log segment ${this.logPath} at byte offset ${pos}: ${invalidReason}.`);
      fs.ftruncateSync(this.openFd(), pos);
      this.sizeValue = pos;
    }
    this.committedSize = this.sizeValue;
    this.offsetIndex.writeAll();
    this.timeIndex.writeAll();
    // Aborts whose markers did not survive go; those that did stay (the log's producer-state replay adds any lost).
    this.txnIndex.truncateTo(nextOffset);
    return { truncatedBytes, invalidReason, validBytes: pos, nextOffset };
  }

  /** Throws if an index cannot be trusted (then the segment is recovered instead). */
  sanityCheckIndexes(): void {
    this.offsetIndex.sanityCheck(this.sizeValue);
    this.timeIndex.sanityCheck();
    // The last index entry must point at a batch whose offsets bracket the entry's offset.
    if (this.offsetIndex.entries > 0) {
      const e = this.offsetIndex.lastEntry();
      const h = this.readHeader(e.position, OFFSET_RANGE_HEADER_LENGTH);
      const ok = h !== undefined && h.readInt8(MAGIC_OFFSET) === CURRENT_MAGIC && readInt64(h, BASE_OFFSET_OFFSET) <= e.offset && readInt64(h, BASE_OFFSET_OFFSET) >= this.baseOffset;
      if (!ok) throw new Error(`Index entry (offset ${e.offset}, position ${e.position}) of ${this.offsetIndex.file} does not point at a batch holding that offset`);
    }
  }

  /**
   * Cuts the segment before the first batch whose last offset is ≥ `offset` (appends are whole batches, so
   * truncation is too). Returns the number of bytes removed.
   */
  truncateTo(offset: number): number {
    const mapping = this.translateOffset(offset);
    this.recent.clear();
    this.offsetIndex.truncateTo(offset);
    this.timeIndex.truncateTo(offset);
    this.txnIndex.truncateTo(offset);
    if (mapping === undefined) return 0;
    const truncated = this.sizeValue - mapping.position;
    fs.ftruncateSync(this.openFd(), mapping.position);
    this.sizeValue = mapping.position;
    this.committedSize = mapping.position;
    const last = this.timeIndex.lastEntry();
    this.maxTimestampSoFarValue = last.timestamp;
    this.offsetOfMaxTimestampSoFarValue = last.offset;
    if (this.sizeValue === 0) this.rollingBasedTimestamp = undefined;
    this.bytesSinceLastIndexEntry = 0;
    return truncated;
  }

  /** Called when a newer segment takes over appends: writes the final time-index entry. */
  onBecomeInactiveSegment(): void {
    if (this.maxTimestampSoFarValue >= 0) this.timeIndex.maybeAppend(this.maxTimestampSoFarValue, this.offsetOfMaxTimestampSoFarValue, true);
    this.offsetIndex.persist();
    this.timeIndex.persist();
  }

  /**
   * fdatasync of the .log and, unless `withIndexes` is false, both indexes (off the event loop). The log flushes
   * the active segment without its indexes: see Log.flushNow.
   */
  async flush(withIndexes = true): Promise<void> {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.flushing++;
    try {
      await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
      if (withIndexes) await this.flushIndexes();
    } finally {
      this.flushing--;
      if (this.flushing === 0 && this.closeWhenFlushed) this.close();
    }
  }

  /** fdatasync of both indexes, if they were written since the last one. */
  async flushIndexes(): Promise<void> {
    await this.offsetIndex.flush();
    await this.timeIndex.flush();
  }

  flushSync(): void {
    if (this.fd === undefined) return;
    fs.fdatasyncSync(this.fd);
    this.offsetIndex.flushSync();
    this.timeIndex.flushSync();
    this.txnIndex.flushSync();
  }

  /** Renames the three files from `oldSuffix` to `newSuffix` (e.g. '' → '.deleted'); open descriptors stay valid. */
  changeFileSuffixes(oldSuffix: string, newSuffix: string): void {
    const target = logFile(this.dir, this.baseOffset, newSuffix);
    if (this.logPath.endsWith(oldSuffix)) fs.renameSync(this.logPath, target);
    this.logPath = target;
    this.offsetIndex.renameTo(offsetIndexFile(this.dir, this.baseOffset, newSuffix));
    this.timeIndex.renameTo(timeIndexFile(this.dir, this.baseOffset, newSuffix));
    this.txnIndex.renameTo(transactionIndexFile(this.dir, this.baseOffset, newSuffix));
  }

  hasSuffix(suffix: string): boolean {
    return this.logPath.endsWith(suffix);
  }

  close(): void {
    if (this.flushing > 0) {
      this.closeWhenFlushed = true;
      return;
    }
    if (this.fd !== undefined) {
      if (this.size > 0 && !this.hasSuffix(DELETED_FILE_SUFFIX)) this.onBecomeInactiveSegment();
      fs.closeSync(this.fd);
    }
    this.fd = undefined;
    this.offsetIndex.close();
    this.timeIndex.close();
  }

  /** The log dir failed: closes the descriptors without writing anything (Kafka's closeHandlers); errors are ignored. */
  closeHandlers(): void {
    const fd = this.fd;
    this.fd = undefined;
    this.closeWhenFlushed = false;
    if (fd !== undefined) swallow(() => fs.closeSync(fd));
    swallow(() => this.offsetIndex.closeHandler());
    swallow(() => this.timeIndex.closeHandler());
  }

  /** Closes and removes the files (under whatever suffix they carry now). */
  deleteIfExists(): void {
    this.closeWhenFlushed = false;
    if (this.fd !== undefined && this.flushing === 0) fs.closeSync(this.fd);
    if (this.flushing === 0) this.fd = undefined;
    else this.closeWhenFlushed = true;
    try {
      fs.unlinkSync(this.logPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.offsetIndex.deleteIfExists();
    this.timeIndex.deleteIfExists();
    this.txnIndex.deleteIfExists();
  }

  toString(): string {
    const ts = this.maxTimestampSoFarValue >= 0 ? `Some(${this.maxTimestampSoFarValue})` : 'None';
    let modified = 0;
    try {
      modified = this.lastModified();
    } catch {
      modified = 0;
    }
    return `LogSegment(baseOffset=${this.baseOffset}, size=${this.sizeValue}, lastModifiedTime=${modified}, largestRecordTimestamp=${ts})`;
  }

  private openFd(): number {
    if (this.fd === undefined) this.fd = fs.openSync(this.logPath, 'r+');
    return this.fd;
  }

  private readHeader(pos: number, length: number): Buffer | undefined {
    if (pos + length > this.committedSize) return undefined;
    const n = fs.readSync(this.openFd(), this.header, 0, length, pos);
    return n < length ? undefined : this.header;
  }

  private readFully(buf: Buffer, position: number): void {
    let done = 0;
    while (done < buf.length) {
      const n = fs.readSync(this.openFd(), buf, done, buf.length - done, position + done);
      if (n === 0) throw new Error(`Unexpected end of ${this.logPath} at ${position + done}`);
      done += n;
    }
  }

  private writeFully(buf: Buffer, position: number): void {
    let done = 0;
    while (done < buf.length) done += fs.writeSync(this.openFd(), buf, done, buf.length - done, position + done);
  }
}

function swallow(fn: () => void): void {
  try {
    fn();
  } catch {
    // already failing: the first error is the one that counts
  }
}

/** What is left of `bufs` after a short writev that wrote only their first `written` bytes. */
function unwritten(bufs: Buffer[], written: number): Buffer[] {
  let skip = written;
  const rest: Buffer[] = [];
  for (const b of bufs) {
    if (skip >= b.length) skip -= b.length;
    else {
      rest.push(skip > 0 ? b.subarray(skip) : b);
      skip = 0;
    }
  }
  return rest;
}
