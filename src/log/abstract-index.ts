import * as fs from 'node:fs';

/**
 * What the offset and time indexes share: fixed-size big-endian entries kept in memory (Node has no mmap) and
 * mirrored to the index file by positional writes.
 *
 * Kafka pre-allocates index files to segment.index.bytes and memory-maps them; here the file holds exactly the
 * entries persisted so far, so its length says how many entries it has, and "full" is an entry count
 * (segment.index.bytes / entrySize). New entries are written to the file lazily (`persist`: on flush, roll,
 * truncation and close), in one write, instead of one syscall per entry: an index file that lags behind is
 * still correct, only sparser, and indexes carry no checksum anyway — after an unclean shutdown, or when a
 * sanity check fails, they are rebuilt from the .log (Kafka's rule).
 *
 * Not thread-safe in Kafka's sense; callers (LogSegment, under the log's append queue) serialise mutations.
 */
export abstract class AbstractIndex {
  protected buf: Buffer;
  protected entryCount = 0;
  /** Entries [0, persisted) are in the file. */
  private persisted = 0;
  private fd: number | undefined;
  private maxEntriesValue: number;
  /** Current length of the file (as found when opened, then as written); the sanity check uses it. */
  protected fileLength: number;

  protected constructor(
    public file: string,
    readonly baseOffset: number,
    maxIndexSize: number,
    protected readonly entrySize: number,
  ) {
    this.maxEntriesValue = Math.floor(maxIndexSize / entrySize);
    let existing: Buffer | undefined;
    try {
      existing = fs.readFileSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.fileLength = existing?.length ?? 0;
    const whole = Math.floor(this.fileLength / entrySize);
    this.buf = Buffer.alloc(Math.max(entrySize * 64, whole * entrySize * 2));
    if (existing !== undefined) existing.copy(this.buf, 0, 0, whole * entrySize);
    this.entryCount = whole;
    this.persisted = whole;
    if (existing === undefined) this.openFd();
  }

  get entries(): number {
    return this.entryCount;
  }

  get maxEntries(): number {
    return this.maxEntriesValue;
  }

  get sizeInBytes(): number {
    return this.entryCount * this.entrySize;
  }

  isFull(): boolean {
    return this.entryCount >= this.maxEntriesValue;
  }

  /** Changes the capacity (segment.index.bytes changed at run time); never drops entries. */
  resize(maxIndexSize: number): void {
    this.maxEntriesValue = Math.max(this.entryCount, Math.floor(maxIndexSize / this.entrySize));
  }

  /** Throws with a reason if the index cannot be trusted; `logSize` is the size of the segment's .log. */
  abstract sanityCheck(logSize: number): void;

  /** Removes every entry (before a rebuild). */
  reset(): void {
    this.truncateToEntries(0);
  }

  protected appendEntry(entry: Buffer): void {
    const pos = this.entryCount * this.entrySize;
    if (pos + this.entrySize > this.buf.length) {
      const next = Buffer.alloc(this.buf.length * 2);
      this.buf.copy(next, 0, 0, pos);
      this.buf = next;
    }
    entry.copy(this.buf, pos);
    this.entryCount++;
  }

  /** Writes the entries not yet in the file. */
  persist(): void {
    if (this.persisted >= this.entryCount) return;
    const from = this.persisted * this.entrySize;
    const to = this.entryCount * this.entrySize;
    fs.writeSync(this.openFd(), this.buf, from, to - from, from);
    this.persisted = this.entryCount;
    this.fileLength = to;
  }

  protected truncateToEntries(n: number): void {
    if (n >= this.entryCount && this.fileLength === this.persisted * this.entrySize) return;
    this.entryCount = Math.min(n, this.entryCount);
    this.persisted = Math.min(this.persisted, this.entryCount);
    fs.ftruncateSync(this.openFd(), this.persisted * this.entrySize);
    this.fileLength = this.persisted * this.entrySize;
    this.persist();
  }

  /** Binary search: the largest slot whose key is ≤ target, or -1. `keyAt` must be non-decreasing. */
  protected largestLowerBoundSlot(target: number, keyAt: (slot: number) => number): number {
    let lo = 0;
    let hi = this.entryCount - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (keyAt(mid) <= target) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  async flush(): Promise<void> {
    this.persist();
    if (this.fd === undefined) return;
    const fd = this.fd;
    await new Promise<void>((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
  }

  flushSync(): void {
    this.persist();
    if (this.fd !== undefined) fs.fdatasyncSync(this.fd);
  }

  /** Makes sure the file exists with exactly the in-memory entries (after a rebuild or for a new segment). */
  writeAll(): void {
    const fd = this.openFd();
    fs.ftruncateSync(fd, 0);
    if (this.entryCount > 0) fs.writeSync(fd, this.buf, 0, this.entryCount * this.entrySize, 0);
    this.persisted = this.entryCount;
    this.fileLength = this.entryCount * this.entrySize;
  }

  renameTo(file: string): void {
    if (fs.existsSync(this.file)) fs.renameSync(this.file, file);
    this.file = file;
  }

  close(): void {
    if (this.fd !== undefined) {
      this.persist();
      fs.closeSync(this.fd);
    }
    this.fd = undefined;
  }

  /** Closes the descriptor without writing pending entries (the log dir failed). */
  closeHandler(): void {
    const fd = this.fd;
    this.fd = undefined;
    if (fd !== undefined) fs.closeSync(fd);
  }

  deleteIfExists(): boolean {
    this.persisted = this.entryCount; // nothing left worth writing
    this.close();
    try {
      fs.unlinkSync(this.file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  }

  private openFd(): number {
    if (this.fd === undefined) this.fd = fs.openSync(this.file, fs.existsSync(this.file) ? 'r+' : 'w+');
    return this.fd;
  }
}

export class CorruptIndexError extends Error {}
