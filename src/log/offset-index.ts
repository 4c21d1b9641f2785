import { AbstractIndex, CorruptIndexError } from './abstract-index';

/** One offset-index entry, with the offset absolute. */
export interface OffsetPosition {
  readonly offset: number;
  readonly position: number;
}

const ENTRY_SIZE = 8;

/**
 * The sparse offset index of a segment (`<base>.index`). Each 8-byte big-endian entry is
 *
 *   relativeOffset  int32   offset − segment base offset
 *   position        int32   byte position of a batch in the segment's .log
 *
 * An entry (o, p) means: the batches from position p onwards hold offsets > the previous entry's and the
 * append that started at p ends with offset o (Kafka 2.0+ indexes an append's last offset). Entries are added
 * at most once per index.interval.bytes of appended data. Lookup returns the entry with the largest offset ≤
 * the target (or the segment start), from which a short forward scan of batch headers finds the batch itself.
 * Offsets are relative inside the file and absolute at this class's API.
 */
export class OffsetIndex extends AbstractIndex {
  private readonly scratch = Buffer.alloc(ENTRY_SIZE);

  constructor(file: string, baseOffset: number, maxIndexSize: number, fresh = false) {
    super(file, baseOffset, maxIndexSize, ENTRY_SIZE, fresh);
  }

  entry(slot: number): OffsetPosition {
    const pos = slot * ENTRY_SIZE;
    return { offset: this.baseOffset + this.buf.readInt32BE(pos), position: this.buf.readInt32BE(pos + 4) };
  }

  /** The last entry, or (baseOffset, 0) when empty. */
  lastEntry(): OffsetPosition {
    return this.entryCount === 0 ? { offset: this.baseOffset, position: 0 } : this.entry(this.entryCount - 1);
  }

  get lastOffset(): number {
    return this.lastEntry().offset;
  }

  append(offset: number, position: number): void {
    if (this.isFull()) throw new Error(`Attempt to append to a full index (size = ${this.entryCount}).`);
    if (this.entryCount > 0 && offset <= this.lastOffset) {
      throw new Error(`Attempt to append an offset (${offset}) to position ${this.entryCount} no larger than the last offset appended (${this.lastOffset}) to ${this.file}.`);
    }
    const relative = offset - this.baseOffset;
    if (relative < 0 || relative > 0x7fffffff) throw new Error(`Offset ${offset} is not relative to base offset ${this.baseOffset}`);
    this.scratch.writeInt32BE(relative, 0);
    this.scratch.writeInt32BE(position, 4);
    this.appendEntry(this.scratch);
  }

  /** The entry with the largest offset ≤ `target`, or (baseOffset, 0) if there is none. */
  lookup(target: number): OffsetPosition {
    const rel = target - this.baseOffset;
    const slot = this.largestLowerBoundSlot(rel, (s) => this.buf.readInt32BE(s * ENTRY_SIZE));
    return slot < 0 ? { offset: this.baseOffset, position: 0 } : this.entry(slot);
  }

  /** Removes the entries whose offset is ≥ `offset`. */
  truncateTo(offset: number): void {
    const rel = offset - this.baseOffset;
    const slot = this.largestLowerBoundSlot(rel, (s) => this.buf.readInt32BE(s * ENTRY_SIZE));
    let keep: number;
    if (slot < 0) keep = 0;
    else if (this.buf.readInt32BE(slot * ENTRY_SIZE) === rel) keep = slot;
    else keep = slot + 1;
    this.truncateToEntries(keep);
  }

  sanityCheck(logSize: number): void {
    if (this.fileLength % ENTRY_SIZE !== 0) {
      throw new CorruptIndexError(`Index file ${this.file} is corrupt, found ${this.fileLength} bytes which is neither positive nor a multiple of ${ENTRY_SIZE}.`);
    }
    let prevRel = -1;
    let prevPos = -1;
    for (let s = 0; s < this.entryCount; s++) {
      const rel = this.buf.readInt32BE(s * ENTRY_SIZE);
      const pos = this.buf.readInt32BE(s * ENTRY_SIZE + 4);
      if (rel <= prevRel || pos <= prevPos || pos < 0 || pos >= logSize) {
        throw new CorruptIndexError(`Corrupt index found, index file (${this.file}) has entry ${s} (offset ${this.baseOffset + rel}, position ${pos}) out of order or beyond the log (${logSize} bytes).`);
      }
      prevRel = rel;
      prevPos = pos;
    }
  }
}
