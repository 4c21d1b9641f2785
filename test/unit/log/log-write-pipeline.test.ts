import { LogSegment } from '../../../src/log/log-segment';
import { LogWritePipeline } from '../../../src/log/log-write-pipeline';
import { MockClock } from '../../helpers/mock-clock';

/** A segment whose writes complete only when the test says so, recording what was written and made readable. */
class FakeSegment {
  readonly writes: Array<{ position: number; lengths: number[]; resolve: () => void; reject: (err: unknown) => void }> = [];
  readonly marked: number[] = [];

  write(buffers: Buffer[], position: number): Promise<void> {
    return new Promise<void>((resolve, reject) => this.writes.push({ position, lengths: buffers.map((b) => b.length), resolve, reject }));
  }

  markWritten(end: number): void {
    this.marked.push(end);
  }

  readonly syncWrites: number[][] = [];
  /** How long each synchronous write takes, on the test's clock (the wall clock would make these tests race the machine's load). */
  syncWriteMs = 0;
  clock: MockClock | undefined;

  writeSync(buffers: Buffer[]): void {
    this.syncWrites.push(buffers.map((b) => b.length));
    this.clock?.advance(this.syncWriteMs);
  }

  asSegment(): LogSegment {
    return this as unknown as LogSegment;
  }
}

const KiB = 1024;
/** Two of these queued behind a running write are enough for a second write. */
const BIG = 128 * KiB;

/** Lets promise callbacks (write completions, resolutions) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

function setup(): { seg: FakeSegment; pipeline: LogWritePipeline<number>; written: number[]; errors: unknown[]; submit: (n: number, length: number) => Promise<number> } {
  const seg = new FakeSegment();
  const written: number[] = [];
  const errors: unknown[] = [];
  const pipeline = new LogWritePipeline<number>(
    (v) => written.push(v),
    (err) => {
      errors.push(err);
      return new Error(`wrapped: ${String((err as Error).message)}`);
    },
    0,
  );
  let position = 0;
  const submit = (n: number, length: number): Promise<number> => {
    const p = pipeline.submit(seg.asSegment(), position, Buffer.alloc(length), n);
    position += length;
    return p;
  };
  return { seg, pipeline, written, errors, submit };
}

describe('LogWritePipeline', () => {
  it('coalesces appends queued behind a running write into one writev', async () => {
    const { seg, submit, written } = setup();
    const a = submit(0, 10);
    const b = submit(1, 20);
    const c = submit(2, 30);
    expect(seg.writes.map((w) => w.lengths)).toEqual([[10]]);
    seg.writes[0]?.resolve();
    await a;
    expect(seg.writes.map((w) => w.lengths)).toEqual([[10], [20, 30]]);
    expect(seg.writes[1]?.position).toBe(10);
    seg.writes[1]?.resolve();
    expect(await Promise.all([b, c])).toEqual([1, 2]);
    expect(written).toEqual([0, 1, 2]);
    expect(seg.marked).toEqual([10, 60]);
  });

  it('starts a second write only when enough bytes are queued', async () => {
    const { seg, submit } = setup();
    void submit(0, 64 * KiB);
    for (let i = 1; i <= 3; i++) void submit(i, 64 * KiB);
    expect(seg.writes.length).toBe(1);
    void submit(4, 64 * KiB);
    expect(seg.writes.length).toBe(2);
    expect(seg.writes[1]?.lengths).toEqual([64 * KiB, 64 * KiB, 64 * KiB, 64 * KiB]);
    // never a third
    for (let i = 5; i < 15; i++) void submit(i, 64 * KiB);
    expect(seg.writes.length).toBe(2);
    seg.writes[0]?.resolve();
    await settle();
    expect(seg.writes.length).toBe(3);
    expect(seg.writes[2]?.lengths.length).toBe(10);
  });

  it('settles writes in submission order even when a later one finishes first', async () => {
    const { seg, submit, written, pipeline } = setup();
    const first = submit(0, BIG);
    const rest = [submit(1, BIG), submit(2, BIG)];
    expect(seg.writes.length).toBe(2);
    let restDone = false;
    void Promise.all(rest).then(() => (restDone = true));
    seg.writes[1]?.resolve();
    await settle();
    // the second write's bytes are in the file, but the first's are not: nothing may become readable yet
    expect(seg.marked).toEqual([]);
    expect(written).toEqual([]);
    expect(restDone).toBe(false);
    expect(pipeline.busy).toBe(true);
    seg.writes[0]?.resolve();
    expect(await first).toBe(0);
    await Promise.all(rest);
    expect(written).toEqual([0, 1, 2]);
    expect(seg.marked).toEqual([BIG, 3 * BIG]);
    expect(pipeline.busy).toBe(false);
  });

  it('fails a write and everything behind it, in flight or queued, and drains only when all writes ended', async () => {
    const { seg, submit, written, errors, pipeline } = setup();
    const first = submit(0, BIG);
    const second = [submit(1, BIG), submit(2, BIG)];
    const queued = submit(3, 10);
    expect(seg.writes.length).toBe(2);
    const outcomes = Promise.allSettled([first, ...second, queued]);
    seg.writes[0]?.reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
    const results = await outcomes;
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected', 'rejected']);
    for (const r of results) expect(((r as PromiseRejectedResult).reason as Error).message).toBe('wrapped: EIO: i/o error');
    expect(errors.length).toBe(1);
    expect(written).toEqual([]);
    expect(seg.marked).toEqual([]);
    // the second writev is still running: drain waits for it, and its completion changes nothing
    let drained = false;
    void pipeline.drain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    seg.writes[1]?.resolve();
    await settle();
    expect(drained).toBe(true);
    expect(seg.marked).toEqual([]);
    expect(written).toEqual([]);
  });

  it('keeps the appends of an earlier write when a later one fails', async () => {
    const { seg, submit, written, errors } = setup();
    const first = submit(0, BIG);
    const second = [submit(1, BIG), submit(2, BIG)];
    const outcomes = Promise.allSettled(second);
    seg.writes[1]?.reject(new Error('boom'));
    await settle();
    expect(errors).toEqual([]);
    seg.writes[0]?.resolve();
    expect(await first).toBe(0);
    expect((await outcomes).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(written).toEqual([0]);
    expect(seg.marked).toEqual([BIG]);
    expect(errors.length).toBe(1);
  });

  it('writes appends for different segments separately', async () => {
    const { seg, pipeline } = setup();
    const other = new FakeSegment();
    const a = pipeline.submit(seg.asSegment(), 0, Buffer.alloc(10), 0);
    const b = pipeline.submit(other.asSegment(), 0, Buffer.alloc(10), 1);
    const c = pipeline.submit(other.asSegment(), 10, Buffer.alloc(10), 2);
    seg.writes[0]?.resolve();
    await a;
    expect(other.writes.map((w) => w.lengths)).toEqual([[10, 10]]);
    other.writes[0]?.resolve();
    expect(await Promise.all([b, c])).toEqual([1, 2]);
    expect(other.marked).toEqual([20]);
  });

  describe('small writes', () => {
    function syncSetup(): { seg: FakeSegment; pipeline: LogWritePipeline<number>; written: number[] } {
      const seg = new FakeSegment();
      seg.clock = new MockClock();
      const written: number[] = [];
      const pipeline = new LogWritePipeline<number>((v) => written.push(v), (err) => err, undefined, seg.clock);
      return { seg, pipeline, written };
    }

    it('go to the file at once when nothing is in flight, and larger ones or ones behind a running write go to the pool', async () => {
      const { seg, pipeline, written } = syncSetup();
      const a = pipeline.submit(seg.asSegment(), 0, Buffer.alloc(100), 0);
      expect(seg.syncWrites).toEqual([[100]]);
      expect(written).toEqual([]); // settled after the caller's code, as an asynchronous write would be
      await expect(a).resolves.toBe(0);
      expect(seg.marked).toEqual([100]);
      const big = pipeline.submit(seg.asSegment(), 100, Buffer.alloc(300 * KiB), 1);
      const behind = pipeline.submit(seg.asSegment(), 100 + 300 * KiB, Buffer.alloc(100), 2);
      expect(seg.writes.map((w) => w.lengths)).toEqual([[300 * KiB]]);
      seg.writes[0]?.resolve();
      await big;
      expect(seg.writes.map((w) => w.lengths)).toEqual([[300 * KiB]]);
      expect(seg.syncWrites).toEqual([[100], [100]]);
      await expect(behind).resolves.toBe(2);
      expect(written).toEqual([0, 1, 2]);
    });

    it('stay synchronous after one slow write (a preempted thread)', async () => {
      const { seg, pipeline } = syncSetup();
      seg.syncWriteMs = 5;
      await pipeline.submit(seg.asSegment(), 0, Buffer.alloc(100), 0);
      seg.syncWriteMs = 0;
      await pipeline.submit(seg.asSegment(), 100, Buffer.alloc(100), 1);
      expect(seg.syncWrites).toEqual([[100], [100]]);
      expect(seg.writes).toEqual([]);
    });

    it('go to the pool for a while once synchronous writes are slow on average (a throttled disk)', async () => {
      const { seg, pipeline } = syncSetup();
      seg.syncWriteMs = 3;
      let position = 0;
      while (seg.syncWrites.length < 100) {
        const append = pipeline.submit(seg.asSegment(), position, Buffer.alloc(100), 0);
        position += 100;
        if (seg.writes.length > 0) {
          seg.writes[0]?.resolve();
          await append;
          break;
        }
        await append;
      }
      // The moving average passes 2 ms after about ten writes of 3 ms; the next one went to the pool.
      expect(seg.writes.length).toBe(1);
      expect(seg.syncWrites.length).toBeGreaterThan(5);
      expect(seg.syncWrites.length).toBeLessThan(20);
      seg.syncWriteMs = 0;
      const next = pipeline.submit(seg.asSegment(), position, Buffer.alloc(100), 1);
      expect(seg.writes.length).toBe(2);
      seg.writes[1]?.resolve();
      await expect(next).resolves.toBe(1);
    });

    it('go to the pool for a while after one very slow synchronous write', async () => {
      const { seg, pipeline } = syncSetup();
      seg.syncWriteMs = 30;
      await pipeline.submit(seg.asSegment(), 0, Buffer.alloc(100), 0);
      const next = pipeline.submit(seg.asSegment(), 100, Buffer.alloc(100), 1);
      expect(seg.syncWrites).toEqual([[100]]);
      expect(seg.writes.map((w) => w.lengths)).toEqual([[100]]);
      seg.writes[0]?.resolve();
      await expect(next).resolves.toBe(1);
    });
  });
});
