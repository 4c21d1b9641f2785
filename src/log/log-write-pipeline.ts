import { LogSegment } from './log-segment';

/**
 * The ordered write path of one log. Appends arrive with their bytes already reserved in a segment (offsets
 * assigned, indexes updated); the pipeline writes them in arrival order with at most one positional writev in
 * flight, coalescing every append that queued up meanwhile into the next writev (group commit). So the event
 * loop never blocks on the disk, and validating the next append overlaps writing the previous one.
 *
 * `onWritten` runs for each append, in order, once its bytes are in the file (the log moves its end offset
 * there); the first failure rejects that write and everything queued behind it, through `onError`.
 */
interface Pending<T> {
  readonly segment: LogSegment;
  readonly position: number;
  readonly records: Buffer;
  readonly value: T;
  readonly resolve: (value: T) => void;
  readonly reject: (err: unknown) => void;
}

/** At most this many bytes go into one writev, so one long write does not hold back many appends. */
const MAX_COALESCED_WRITE_BYTES = 8 << 20;

export class LogWritePipeline<T> {
  private readonly pending: Pending<T>[] = [];
  private writing = false;
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly onWritten: (value: T) => void,
    private readonly onError: (err: unknown) => unknown,
  ) {}

  /** True while writes are queued or in flight. */
  get busy(): boolean {
    return this.writing || this.pending.length > 0;
  }

  /** Queues the write of `records` at `position` of `segment`; resolves with `value` once they are in the file. */
  submit(segment: LogSegment, position: number, records: Buffer, value: T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ segment, position, records, value, resolve, reject });
      this.pump();
    });
  }

  /** Resolves when every queued write has completed or failed. */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private pump(): void {
    if (this.writing) return;
    const first = this.pending[0];
    if (first === undefined) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
      return;
    }
    const group: Pending<T>[] = [first];
    let end = first.position + first.records.length;
    for (let i = 1; i < this.pending.length; i++) {
      const next = this.pending[i] as Pending<T>;
      if (next.segment !== first.segment || next.position !== end || end - first.position >= MAX_COALESCED_WRITE_BYTES) break;
      group.push(next);
      end += next.records.length;
    }
    this.pending.splice(0, group.length);
    this.writing = true;
    first.segment.write(group.map((g) => g.records), first.position).then(
      () => {
        for (const g of group) {
          this.onWritten(g.value);
          g.resolve(g.value);
        }
        this.writing = false;
        this.pump();
      },
      (err: unknown) => {
        const error = this.onError(err);
        for (const g of [...group, ...this.pending.splice(0)]) g.reject(error);
        this.writing = false;
        this.pump();
      },
    );
  }
}
