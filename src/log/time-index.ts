import { AbstractIndex, CorruptIndexError } from './abstract-index';
import { readInt64, writeInt64 } from '../common/int64';

/** One time-index entry, with the offset absolute. */
export interface TimestampOffset {
  readonly timestamp: number;
  readonly offset: number;
}

const ENTRY_SIZE = 12;

/**
 * The sparse time index of a segment (`<base>.timeindex`). Each 12-byte big-endian entry is
 *
 *   timestamp       int64   the largest timestamp seen in the segment up to the offset below
 *   relativeOffset  int32   offset (− base) of the batch that carried that timestamp
 *
 * Entries are written alongside offset-index entries but only when the timestamp grows, so timestamps are
 * strictly increasing (and a segment of timestamp-less data has an empty time index). One final entry is forced
 * when the segment stops being active; the last slot is kept for it, so the index is "full" one entry early.
 */
export class TimeIndex extends AbstractIndex {
  private readonly scratch = Buffer.alloc(ENTRY_SIZE);

  constructor(file: string, baseOffset: number, maxIndexSize: number, fresh = false) {
    super(file, baseOffset, maxIndexSize, ENTRY_SIZE, fresh);
  }

  override isFull(): boolean {
    return this.entryCount >= this.maxEntries - 1;
  }

  entry(slot: number): TimestampOffset {
    const pos = slot * ENTRY_SIZE;
    return { timestamp: readInt64(this.buf, pos), offset: this.baseOffset + this.buf.readInt32BE(pos + 8) };
  }

  /** The last entry, or (−1, baseOffset) when empty. */
  lastEntry(): TimestampOffset {
    return this.entryCount === 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(this.entryCount - 1);
  }

  /**
   * Adds (timestamp, offset) if the timestamp is larger than the last entry's. `skipFullCheck` is for the final
   * entry written when the segment becomes inactive.
   */
  maybeAppend(timestamp: number, offset: number, skipFullCheck = false): void {
    if (!skipFullCheck && this.isFull()) throw new Error(`Attempt to append to a full time index (size = ${this.entryCount}).`);
    const last = this.lastEntry();
    if (this.entryCount > 0 && offset < last.offset) {
      throw new Error(`Attempt to append an offset (${offset}) to slot ${this.entryCount} no larger than the last offset appended (${last.offset}) to ${this.file}.`);
    }
    if (this.entryCount > 0 && timestamp <= last.timestamp) return;
    if (timestamp < 0) return;
    writeInt64(this.scratch, 0, timestamp);
    this.scratch.writeInt32BE(offset - this.baseOffset, 8);
    this.appendEntry(this.scratch);
  }

  /** The entry with the largest timestamp ≤ `target`, or (−1, baseOffset) if there is none. */
  lookup(target: number): TimestampOffset {
    const slot = this.largestLowerBoundSlot(target, (s) => readInt64(this.buf, s * ENTRY_SIZE));
    return slot < 0 ? { timestamp: -1, offset: this.baseOffset } : this.entry(slot);
  }

  /** Removes the entries whose offset is ≥ `offset`. */
  truncateTo(offset: number): void {
    let keep = this.entryCount;
    while (keep > 0 && this.entry(keep - 1).offset >= offset) keep--;
    this.truncateToEntries(keep);
  }

  sanityCheck(): void {
    if (this.fileLength % ENTRY_SIZE !== 0) {
      throw new CorruptIndexError(`Time index file ${this.file} is corrupt, found ${this.fileLength} bytes which is neither positive nor a multiple of ${ENTRY_SIZE}.`);
    }
    let prev: TimestampOffset | undefined;
    for (let s = 0; s < this.entryCount; s++) {
      const e = this.entry(s);
      if (e.offset < this.baseOffset || e.timestamp < 0 || (prev !== undefined && (e.timestamp <= prev.timestamp || e.offset < prev.offset))) {
        throw new CorruptIndexError(`Corrupt time index found, time index file (${this.file}) has entry ${s} (timestamp ${e.timestamp}, offset ${e.offset}) out of order.`);
      }
      prev = e;
    }
  }
}
