import { LogSegment } from './log-segment';

/**
 * The segments of one log ordered by base offset (Kafka 3's LogSegments). A sorted array: appends add at the
 * end, and floor/higher lookups are a binary search, so finding the segment for an offset costs O(log n)
 * however long the log is.
 */
export class LogSegments {
  private segments: LogSegment[] = [];

  get size(): number {
    return this.segments.length;
  }

  isEmpty(): boolean {
    return this.segments.length === 0;
  }

  all(): readonly LogSegment[] {
    return this.segments;
  }

  first(): LogSegment | undefined {
    return this.segments[0];
  }

  last(): LogSegment | undefined {
    return this.segments[this.segments.length - 1];
  }

  /** Adds or replaces the segment with the same base offset; returns the replaced one. */
  add(segment: LogSegment): LogSegment | undefined {
    const last = this.last();
    if (last === undefined || segment.baseOffset > last.baseOffset) {
      this.segments.push(segment);
      return undefined;
    }
    const i = this.floorIndex(segment.baseOffset);
    const existing = i >= 0 ? this.segments[i] : undefined;
    if (existing !== undefined && existing.baseOffset === segment.baseOffset) {
      this.segments[i] = segment;
      return existing;
    }
    this.segments.splice(i + 1, 0, segment);
    return undefined;
  }

  remove(baseOffset: number): LogSegment | undefined {
    const i = this.floorIndex(baseOffset);
    const s = i >= 0 ? this.segments[i] : undefined;
    if (s === undefined || s.baseOffset !== baseOffset) return undefined;
    this.segments.splice(i, 1);
    return s;
  }

  clear(): LogSegment[] {
    const old = this.segments;
    this.segments = [];
    return old;
  }

  get(baseOffset: number): LogSegment | undefined {
    const s = this.floorSegment(baseOffset);
    return s?.baseOffset === baseOffset ? s : undefined;
  }

  /** The segment with the largest base offset ≤ `offset`. */
  floorSegment(offset: number): LogSegment | undefined {
    const i = this.floorIndex(offset);
    return i >= 0 ? this.segments[i] : undefined;
  }

  /** The segment with the smallest base offset > `offset`. */
  higherSegment(offset: number): LogSegment | undefined {
    return this.segments[this.floorIndex(offset) + 1];
  }

  /** Segments that may hold offsets in [from, to): from the floor of `from` up to base offsets below `to`. */
  range(from: number, to: number): LogSegment[] {
    const start = Math.max(0, this.floorIndex(from));
    const out: LogSegment[] = [];
    for (let i = start; i < this.segments.length; i++) {
      const s = this.segments[i] as LogSegment;
      if (s.baseOffset >= to) break;
      out.push(s);
    }
    return out;
  }

  /** Segments with base offset > `offset`. */
  higherThan(offset: number): LogSegment[] {
    return this.segments.slice(this.floorIndex(offset) + 1);
  }

  sizeInBytes(): number {
    let total = 0;
    for (const s of this.segments) total += s.size;
    return total;
  }

  private floorIndex(offset: number): number {
    let lo = 0;
    let hi = this.segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.segments[mid] as LogSegment).baseOffset <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }
}
