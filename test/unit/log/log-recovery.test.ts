import * as fs from 'node:fs';
import * as path from 'node:path';
import { Scheduler } from '../../../src/common/scheduler';
import { createLogConfig } from '../../../src/common/config/log-config';
import { Log } from '../../../src/log/log';
import { batchesIn } from '../../../src/records/record-batch';
import { MockClock } from '../../helpers/mock-clock';
import { makeBatch, makeTempDir, removeDir } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

/**
 * Crash recovery: a log written and then "killed" (files left as they are, no clean shutdown) is reopened.
 * Every whole batch before the first bad byte must survive; nothing after it may.
 */
describe('Log recovery', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let root: string;
  let clock: MockClock;
  let scheduler: Scheduler;
  const config = createLogConfig({}, { 'segment.bytes': '4000', 'index.interval.bytes': '200' });

  beforeEach(() => {
    root = makeTempDir();
    clock = new MockClock();
    scheduler = new Scheduler(clock);
  });
  afterEach(async () => {
    await scheduler.shutdown();
    removeDir(root);
  });

  const open = (dir: string, extra: Partial<Parameters<typeof Log.open>[0]> = {}): Log => Log.open({ dir, config, clock, scheduler, ...extra });

  /** Writes a log of 3 segments; returns the dir and the byte boundaries of the active segment's batches. */
  async function writeLog(name: string): Promise<{ dir: string; activeFile: string; boundaries: number[]; offsets: number[]; leo: number }> {
    const dir = path.join(root, name);
    const log = open(dir);
    let i = 0;
    while (log.numberOfSegments < 3 || log.activeSegment().size < 1500) {
      await log.appendAsLeader(makeBatch({ count: 1 + (i % 4), valueSize: 40 + (i % 7) * 10, seed: i }));
      i++;
    }
    const active = log.activeSegment();
    const boundaries: number[] = [0];
    const offsets: number[] = [active.baseOffset];
    for (const b of batchesIn(fs.readFileSync(active.file))) {
      boundaries.push((boundaries[boundaries.length - 1] as number) + b.sizeInBytes);
      offsets.push(b.nextOffset);
    }
    const result = { dir, activeFile: active.file, boundaries, offsets, leo: log.logEndOffset };
    await log.close(); // files closed but no clean-shutdown marker: the next open recovers
    return result;
  }

  function readAll(log: Log): number[] {
    const out: number[] = [];
    let o = log.logStartOffset;
    while (o < log.logEndOffset) {
      const batches = batchesIn(log.read(o, 1 << 20).records);
      for (const b of batches) for (let x = b.baseOffset; x <= b.lastOffset; x++) out.push(x);
      o = (batches[batches.length - 1] as (typeof batches)[number]).nextOffset;
    }
    return out;
  }

  it('keeps every whole batch before a cut at any byte of the last batch, and nothing after', async () => {
    const w = await writeLog('orders-0');
    const original = fs.readFileSync(w.activeFile);
    const lastStart = w.boundaries[w.boundaries.length - 2] as number;
    const fileEnd = w.boundaries[w.boundaries.length - 1] as number;
    expect(fileEnd).toBe(original.length);
    for (let cut = lastStart; cut <= fileEnd; cut++) {
      fs.writeFileSync(w.activeFile, original.subarray(0, cut));
      const log = open(w.dir, { recoveryPoint: 0 });
      const expectedLeo = cut === fileEnd ? w.leo : (w.offsets[w.offsets.length - 2] as number);
      expect(log.logEndOffset).toBe(expectedLeo);
      expect(fs.statSync(w.activeFile).size).toBe(cut === fileEnd ? fileEnd : lastStart);
      const offsets = readAll(log);
      expect(offsets).toEqual(Array.from({ length: expectedLeo }, (_, i) => i));
      await log.close();
    }
  });

  it('truncates random garbage tails and corrupt bytes, keeping what precedes them', async () => {
    const w = await writeLog('orders-1');
    const original = fs.readFileSync(w.activeFile);
    let seed = 12345;
    const rand = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let round = 0; round < 25; round++) {
      const boundaryIndex = rand() % w.boundaries.length;
      const keep = w.boundaries[boundaryIndex] as number;
      const garbage = Buffer.alloc(1 + (rand() % 300));
      for (let i = 0; i < garbage.length; i++) garbage[i] = rand() & 0xff;
      fs.writeFileSync(w.activeFile, Buffer.concat([original.subarray(0, keep), garbage]));
      const log = open(w.dir, { recoveryPoint: 0 });
      expect(log.logEndOffset).toBe(w.offsets[boundaryIndex]);
      expect(fs.statSync(w.activeFile).size).toBe(keep);
      await log.close();
    }
    // a flipped byte inside an early batch of the active segment: everything from that batch on goes
    const corrupted = Buffer.from(original);
    const victim = 2;
    const at = (w.boundaries[victim] as number) + 70;
    corrupted[at] = (corrupted[at] as number) ^ 0xff;
    fs.writeFileSync(w.activeFile, corrupted);
    const log = open(w.dir, { recoveryPoint: 0 });
    expect(log.logEndOffset).toBe(w.offsets[victim]);
    await log.close();
  });

  it('drops later segments when an earlier one is corrupt past the recovery point', async () => {
    const w = await writeLog('orders-2');
    const segments = fs.readdirSync(w.dir).filter((n) => n.endsWith('.log')).sort();
    expect(segments.length).toBe(3);
    const middle = path.join(w.dir, segments[1] as string);
    const bytes = fs.readFileSync(middle);
    const firstBatch = batchesIn(bytes)[0]!;
    fs.writeFileSync(middle, bytes.subarray(0, firstBatch.sizeInBytes + 10));
    const log = open(w.dir, { recoveryPoint: 0 });
    expect(log.numberOfSegments).toBe(2);
    expect(log.logEndOffset).toBe(firstBatch.nextOffset);
    expect(fs.readdirSync(w.dir).filter((n) => n.endsWith('.log')).length).toBe(2);
    await log.close();
  });

  it('trusts segments below the recovery point after a clean shutdown', async () => {
    const w = await writeLog('orders-3');
    const log = open(w.dir, { hadCleanShutdown: true, recoveryPoint: w.leo });
    expect(log.logEndOffset).toBe(w.leo);
    await log.close();
  });

  it.each(['delete', 'garbage', 'truncate-odd', 'zero'])('rebuilds %s index files', async (mode) => {
    const w = await writeLog(`idx${mode.replace("-", "")}-0`);
    const before = open(w.dir, { hadCleanShutdown: true });
    const expected = readAll(before);
    const lookups = [0, 3, 7, 12, w.leo - 1].map((o) => before.read(o, 1).records.toString('hex'));
    await before.close();
    for (const name of fs.readdirSync(w.dir).filter((n) => n.endsWith('.index') || n.endsWith('.timeindex'))) {
      const file = path.join(w.dir, name);
      const size = fs.statSync(file).size;
      if (mode === 'delete') fs.rmSync(file);
      if (mode === 'garbage') fs.writeFileSync(file, Buffer.from(Array.from({ length: Math.max(size, 24) }, (_, i) => (i * 37 + 11) & 0xff)));
      if (mode === 'truncate-odd') fs.writeFileSync(file, fs.readFileSync(file).subarray(0, Math.max(0, size - 3)));
      if (mode === 'zero') fs.writeFileSync(file, Buffer.alloc(size + 8 * 12));
    }
    // a clean shutdown: only the index checks can trigger the rebuild
    const log = open(w.dir, { hadCleanShutdown: true });
    expect(readAll(log)).toEqual(expected);
    expect([0, 3, 7, 12, w.leo - 1].map((o) => log.read(o, 1).records.toString('hex'))).toEqual(lookups);
    for (const s of log.logSegments()) {
      if (s.size > 400) expect(s.offsetIndex.entries).toBeGreaterThan(0);
      s.sanityCheckIndexes();
    }
    await log.close();
  });

  it('removes .deleted, .cleaned and .tmp leftovers and orphan indexes', async () => {
    const w = await writeLog('orders-4');
    for (const n of ['00000000000000009999.log.deleted', '00000000000000009999.log.cleaned', 'x.tmp', '00000000000000007777.index']) {
      fs.writeFileSync(path.join(w.dir, n), 'junk');
    }
    const log = open(w.dir, { hadCleanShutdown: true });
    const names = fs.readdirSync(w.dir);
    expect(names.some((n) => n.includes('9999') || n.includes('7777') || n.endsWith('.tmp'))).toBe(false);
    expect(log.logEndOffset).toBe(w.leo);
    await log.close();
  });
});
