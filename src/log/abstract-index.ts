import * as fs from 'node:fs';

/**
 * What the offset and time indexes share: fixed-size big-endian entries kept in memory (Node has no mmap) and
 * mirrored to the index file by positional writes.
 *
 * Kafka pre-allocates index files to segment.index.bytes and memory-maps them, closing their descriptors, so that a
 * segment costs one descriptor (its .log). Here, likewise, an index holds no descriptor: each write opens the file,
 * writes and closes it, and writes are rare. The file holds exactly the
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
  /** Whether the file was written since its last fdatasync (flush skips a clean file, as msync of clean pages). */
  private dirty = false;
  private maxEntriesValue: number;
  /** Current length of the file (as found when opened, then as written); the sanity check uses it. */
  protected fileLength: number;

  protected constructor(
    public file: string,
    readonly baseOffset: number,
    maxIndexSize: number,
    protected readonly entrySize: number,
    /** The file cannot exist yet (a new partition's directory): it is created without being looked for. */
    fresh = false,
  ) {
    this.maxEntriesValue = Math.floor(maxIndexSize / entrySize);
    let existing: Buffer | undefined;
    try {
      if (!fresh) existing = fs.readFileSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    this.fileLength = existing?.length ?? 0;
    const whole = Math.floor(this.fileLength / entrySize);
    this.buf = Buffer.alloc(Math.max(entrySize * 64, whole * entrySize * 2));
    if (existing !== undefined) existing.copy(this.buf, 0, 0, whole * entrySize);
    this.entryCount = whole;
    this.persisted = whole;
    if (existing === undefined) this.withFd(() => undefined);
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
    this.withFd((fd) => fs.writeSync(fd, this.buf, from, to - from, from));
    this.persisted = this.entryCount;
    this.fileLength = to;
  }

  protected truncateToEntries(n: number): void {
    if (n >= this.entryCount && this.fileLength === this.persisted * this.entrySize) return;
    this.entryCount = Math.min(n, this.entryCount);
    this.persisted = Math.min(this.persisted, this.entryCount);
    this.withFd((fd) => fs.ftruncateSync(fd, this.persisted * this.entrySize));
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
    if (!this.dirty) return;
    this.dirty = false;
    const fd = await fs.promises.open(this.file, 'r+');
    try {
      await fd.datasync();
    } catch (err) {
      this.dirty = true;
      throw err;
    } finally {
      await fd.close();
    }
  }

  flushSync(): void {
    this.persist();
    if (!this.dirty) return;
    this.withFd((fd) => fs.fdatasyncSync(fd));
    this.dirty = false;
  }

  /** Makes sure the file exists with exactly the in-memory entries (after a rebuild or for a new segment). */
  writeAll(): void {
    this.withFd((fd) => {
      fs.ftruncateSync(fd, 0);
      if (this.entryCount > 0) fs.writeSync(fd, this.buf, 0, this.entryCount * this.entrySize, 0);
    });
    this.persisted = this.entryCount;
    this.fileLength = this.entryCount * this.entrySize;
  }

  renameTo(file: string): void {
    if (fs.existsSync(this.file)) fs.renameSync(this.file, file);
    this.file = file;
  }

  close(): void {
    this.persist();
  }

  /** Drops pending entries without writing them (the log dir failed); there is no descriptor to close. */
  closeHandler(): void {
    this.persisted = this.entryCount;
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

  /** Opens the file (creating it), runs `use` and closes it whatever happens. */
  private withFd<T>(use: (fd: number) => T): T {
    const fd = fs.openSync(this.file, fs.constants.O_RDWR | fs.constants.O_CREAT, 0o644);
    try {
      const result = use(fd);
      this.dirty = true;
      return result;
    } finally {
      fs.closeSync(fd);
    }
  }
}

export class CorruptIndexError extends Error {}
