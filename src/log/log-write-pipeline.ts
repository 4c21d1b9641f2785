import { Clock, SYSTEM_CLOCK } from '../common/time';
import { LogSegment } from './log-segment';

/** One append waiting for its bytes to reach the file. */
interface Pending<T> {
  readonly segment: LogSegment;
  readonly position: number;
  readonly records: Buffer;
  readonly value: T;
  readonly resolve: (value: T) => void;
  readonly reject: (err: unknown) => void;
}

interface Write<T> {
  readonly appends: Pending<T>[];
  readonly segment: LogSegment;
  readonly end: number;
  done: boolean;
  error: unknown;
  failed: boolean;
  /** Already rejected because an earlier write failed; only waited for (drain, ordering). */
  abandoned: boolean;
}

/** At most this many bytes go into one writev, so one long write does not hold back many appends. */
const MAX_COALESCED_WRITE_BYTES = 8 << 20;

/** Writevs in flight at once; more than two only adds pool threads fighting over the file's inode lock. */
const MAX_WRITES_IN_FLIGHT = 2;

/**
 * A second write starts only with at least this much queued. Each writev has a fixed cost (waking a pool thread
 * and, on completion, the event loop: tens of µs on the 2-vCPU VM of docs/benchmarks.md), and a lower threshold
 * splits the queue into more, smaller writevs (64 KiB batches, 8 in flight: ~1400–1600 writevs per 256 MiB at
 * 0–128 KiB against ~1030 at 256 KiB, as with one write in flight) for no better throughput. Below it the queued
 * appends wait for the running write to finish, which then starts them at once, as with a single write.
 */
const MIN_SECOND_WRITE_BYTES = 256 << 10;

/**
 * A write this small, with nothing else in flight, goes straight to the page cache on the event loop, as Kafka's
 * request threads write: copying a 64 KiB batch takes about 10 µs, while the pool's hand-off (wake a pool
 * thread, then wake the loop for the callback) costs tens of µs of CPU and, on a 2-core host, milliseconds of
 * tail latency. It matters most when each connection has one request in processing (the muted channel): with
 * acks=all every produce waits on its own follower round, and the hand-offs were a tenth of the brokers' CPU in
 * the rf3 benchmark. Larger writes, or writes queued behind a running one, still go to the pool.
 */
const SYNC_WRITE_MAX_BYTES = 256 << 10;

/**
 * Synchronous writes taking this long on average (the kernel throttling dirty pages, a slow disk) ...
 *
 * An average, not one write: on a busy host a thread is often preempted in the middle of a 20 µs write, and one
 * such write in a thousand took 2–10 ms in the rf3 benchmark. Backing off after any one of them sent nearly every
 * write of a benchmark to the pool (and its hand-offs cost the brokers 12 % more CPU). A throttled disk makes
 * every write slow, and one write of 20 ms or more trips the average on its own.
 */
const SLOW_SYNC_WRITE_MS = 2;

/** Weight of the latest write in the moving average of synchronous write times. */
const SYNC_WRITE_MS_WEIGHT = 0.1;

/** ... sends every write to the pool for this long, so a struggling disk never stalls the event loop for long. */
const SYNC_WRITE_BACKOFF_MS = 10_000;

/**
 * The ordered write path of one log. Appends arrive with their bytes already reserved in a segment (offsets
 * assigned, indexes updated); the pipeline writes them with positional writevs on libuv's pool, coalescing every
 * append that queued up meanwhile into the next writev (group commit), so the event loop never blocks on the
 * disk and validating the next appends overlaps writing the previous ones.
 *
 * Up to two writevs are in flight. With only one, the disk sat idle for the whole hand-off between threads after
 * every write (the pool thread signals the loop, the loop runs the callbacks and submits the next writev, a pool
 * thread wakes up for it): about 50 µs per write on a 2-vCPU VM, a third of the time a 256 KiB write took there.
 * A second write, submitted while the first runs, is already waiting in the kernel when the first returns. The
 * writes cover disjoint byte ranges, but they may finish in any order, so completions are settled strictly in
 * submission order: the segment's readable end and the log end offset only ever move over bytes that are in the
 * file.
 *
 * `onWritten` runs for each append, in order, once its bytes (and all before them) are in the file; the first
 * failure, in that order, rejects its write and everything behind it, through `onError`.
 */
export class LogWritePipeline<T> {
  private syncWritesPausedUntil = 0;
  /** Moving average of synchronous write times (ms). */
  private syncWriteMs = 0;
  private readonly pending: Pending<T>[] = [];
  private pendingBytes = 0;
  /** Writes submitted and not yet settled, in submission order. */
  private readonly writes: Write<T>[] = [];
  private running = 0;
  private drainWaiters: Array<() => void> = [];

  constructor(
    private readonly onWritten: (value: T) => void,
    private readonly onError: (err: unknown) => unknown,
    private readonly syncWriteMaxBytes = SYNC_WRITE_MAX_BYTES,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /** True while writes are queued or in flight. */
  get busy(): boolean {
    return this.writes.length > 0 || this.pending.length > 0;
  }

  /** Queues the write of `records` at `position` of `segment`; resolves with `value` once they are in the file. */
  submit(segment: LogSegment, position: number, records: Buffer, value: T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ segment, position, records, value, resolve, reject });
      this.pendingBytes += records.length;
      this.pump();
    });
  }

  /** Resolves when every queued write has completed or failed. */
  drain(): Promise<void> {
    if (!this.busy) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  private pump(): void {
    while (this.pending.length > 0 && this.running < MAX_WRITES_IN_FLIGHT) {
      if (this.running > 0 && this.pendingBytes < MIN_SECOND_WRITE_BYTES) break;
      this.startWrite();
    }
    if (!this.busy) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }

  private startWrite(): void {
    const first = this.pending[0] as Pending<T>;
    let count = 1;
    let end = first.position + first.records.length;
    while (count < this.pending.length) {
      const next = this.pending[count] as Pending<T>;
      if (next.segment !== first.segment || next.position !== end || end - first.position >= MAX_COALESCED_WRITE_BYTES) break;
      end += next.records.length;
      count++;
    }
    const appends = this.pending.splice(0, count);
    this.pendingBytes -= end - first.position;
    const write: Write<T> = { appends, segment: first.segment, end, done: false, error: undefined, failed: false, abandoned: false };
    this.writes.push(write);
    this.running++;
    const buffers = new Array<Buffer>(count);
    for (let i = 0; i < count; i++) buffers[i] = (appends[i] as Pending<T>).records;
    if (this.running === 1 && end - first.position <= this.syncWriteMaxBytes && this.clock.nowMs() >= this.syncWritesPausedUntil) {
      this.writeNow(write, buffers, first.position);
      return;
    }
    first.segment.write(buffers, first.position).then(
      () => this.complete(write, false, undefined),
      (err: unknown) => this.complete(write, true, err),
    );
  }

  private writeNow(write: Write<T>, buffers: Buffer[], position: number): void {
    const started = this.clock.hiResClockMs();
    let error: unknown;
    let failed = false;
    try {
      write.segment.writeSync(buffers, position);
    } catch (err) {
      failed = true;
      error = err;
    }
    this.syncWriteMs += SYNC_WRITE_MS_WEIGHT * (this.clock.hiResClockMs() - started - this.syncWriteMs);
    if (this.syncWriteMs > SLOW_SYNC_WRITE_MS) {
      this.syncWritesPausedUntil = this.clock.nowMs() + SYNC_WRITE_BACKOFF_MS;
      // After the pause, the disk is judged afresh.
      this.syncWriteMs = 0;
    }
    // Settled after the caller's synchronous code, as an asynchronous write would be, minus the thread hops.
    queueMicrotask(() => this.complete(write, failed, error));
  }

  private complete(write: Write<T>, failed: boolean, err: unknown): void {
    write.done = true;
    write.failed = failed;
    write.error = err;
    this.running--;
    this.settle();
    this.pump();
  }

  /** Settles finished writes from the oldest on, stopping at the first one still running. */
  private settle(): void {
    while (this.writes.length > 0 && (this.writes[0] as Write<T>).done) {
      const w = this.writes.shift() as Write<T>;
      if (w.abandoned) continue;
      if (!w.failed) {
        w.segment.markWritten(w.end);
        for (const a of w.appends) {
          this.onWritten(a.value);
          a.resolve(a.value);
        }
        continue;
      }
      const error = this.onError(w.error);
      for (const a of w.appends) a.reject(error);
      // Writes behind a failed one may still be running: they stay tracked (drain waits for them) but their
      // appends fail now, in order, like everything still queued.
      for (const later of this.writes) {
        if (later.abandoned) continue;
        later.abandoned = true;
        for (const a of later.appends) a.reject(error);
      }
      for (const p of this.pending.splice(0)) p.reject(error);
      this.pendingBytes = 0;
    }
  }
}
