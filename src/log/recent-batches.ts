import { readInt64 } from '../common/int64';
import { BASE_OFFSET_OFFSET, BATCH_LENGTH_OFFSET, LAST_OFFSET_DELTA_OFFSET, LOG_OVERHEAD, RECORD_BATCH_OVERHEAD } from '../records/record-batch';

/** Batches remembered per segment: enough for the fetches that tail the log (followers, caught-up consumers). */
const CAPACITY = 128;

/** A remembered batch: base and last offsets, byte position and size (as LogSegment.translateOffset answers). */
export interface RecentBatch {
  readonly offset: number;
  readonly lastOffset: number;
  readonly position: number;
  readonly size: number;
}

/**
 * Where the latest batches of a segment lie, taken from the bytes as they are appended. A fetch at the tail of
 * the log (every follower fetch, and consumers that keep up) asks for offsets among the last few batches; without
 * this, finding one means reading batch headers from the file after the index lookup, one positional read each,
 * several times per fetch (Kafka keeps a LogOffsetMetadata with the segment position for the same reason).
 *
 * The entries are a contiguous run of batches ending at the segment's reserved end, so an offset at or above the
 * oldest entry's base offset is answered exactly: its batch, or none. Anything that rewrites the tail (truncation,
 * recovery, a failed write) clears it, and unparseable appended bytes do too.
 */
export class RecentBatches {
  private readonly base = new Float64Array(CAPACITY);
  private readonly last = new Float64Array(CAPACITY);
  private readonly pos = new Float64Array(CAPACITY);
  private readonly size = new Int32Array(CAPACITY);
  private start = 0;
  private count = 0;

  /** Remembers the batches of `records`, appended at `position` right after the previous ones. */
  add(records: Buffer, position: number): void {
    let at = 0;
    while (at < records.length) {
      if (at + RECORD_BATCH_OVERHEAD > records.length) return this.clear();
      const size = LOG_OVERHEAD + records.readInt32BE(at + BATCH_LENGTH_OFFSET);
      if (size < RECORD_BATCH_OVERHEAD || at + size > records.length) return this.clear();
      const base = readInt64(records, at + BASE_OFFSET_OFFSET);
      const i = (this.start + this.count) % CAPACITY;
      this.base[i] = base;
      this.last[i] = base + records.readInt32BE(at + LAST_OFFSET_DELTA_OFFSET);
      this.pos[i] = position + at;
      this.size[i] = size;
      if (this.count < CAPACITY) this.count++;
      else this.start = (this.start + 1) % CAPACITY;
      at += size;
    }
  }

  clear(): void {
    this.start = 0;
    this.count = 0;
  }

  /**
   * The first remembered batch whose last offset is ≥ `offset`; null when `offset` is above every batch of the
   * segment; undefined when the answer may lie before the oldest entry (the caller reads the file).
   */
  find(offset: number): RecentBatch | null | undefined {
    if (this.count === 0 || offset < (this.base[this.start] as number)) return undefined;
    // Binary search over the ring for the first entry with last >= offset.
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.last[(this.start + mid) % CAPACITY] as number) >= offset) hi = mid;
      else lo = mid + 1;
    }
    if (lo === this.count) return null;
    const i = (this.start + lo) % CAPACITY;
    return { offset: this.base[i] as number, lastOffset: this.last[i] as number, position: this.pos[i] as number, size: this.size[i] as number };
  }
}
