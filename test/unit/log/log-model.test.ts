import fc from 'fast-check';
import { Scheduler } from '../../../src/common/scheduler';
import { createLogConfig } from '../../../src/common/config/log-config';
import { Log } from '../../../src/log/log';
import { batchesIn } from '../../../src/records/record-batch';
import { MockClock } from '../../helpers/mock-clock';
import { makeBatch, makeTempDir, removeDir } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';
import * as path from 'node:path';

/**
 * Property test: random sequences of appends, reads, rolls, truncations, start-offset moves, retention runs and
 * reopenings, checked after every step against a plain in-memory model (a list of batches as bytes).
 * Seeded, so a failure reproduces.
 */
type Op =
  | { kind: 'append'; count: number; valueSize: number }
  | { kind: 'read'; at: number; maxBytes: number }
  | { kind: 'roll' }
  | { kind: 'truncate'; at: number }
  | { kind: 'hw'; at: number }
  | { kind: 'deleteRecords'; at: number }
  | { kind: 'retention'; bytes: number }
  | { kind: 'reopen'; clean: boolean };

const frac = fc.double({ min: 0, max: 1, noNaN: true });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('append' as const), count: fc.integer({ min: 1, max: 6 }), valueSize: fc.integer({ min: 0, max: 150 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('read' as const), at: frac, maxBytes: fc.integer({ min: 1, max: 3000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('roll' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: frac }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('hw' as const), at: frac }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deleteRecords' as const), at: frac }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('retention' as const), bytes: fc.integer({ min: 500, max: 5000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reopen' as const), clean: fc.boolean() }) },
);

interface ModelBatch {
  base: number;
  last: number;
  bytes: Buffer;
}

class Model {
  batches: ModelBatch[] = [];
  leo = 0;
  logStart = 0;
  hw = 0;

  visible(): ModelBatch[] {
    return this.batches.filter((b) => b.last >= this.logStart);
  }
}

describe('Log against an in-memory model', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  it('agrees with the model on random operation sequences', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 10, maxLength: 60 }), async (ops) => {
        const root = makeTempDir();
        const dir = path.join(root, `model-${run++}`);
        const clock = new MockClock();
        const scheduler = new Scheduler(clock);
        let config = createLogConfig({}, { 'segment.bytes': '1200', 'index.interval.bytes': '150', 'retention.ms': '-1', 'file.delete.delay.ms': '0' });
        let log = Log.open({ dir, config, clock, scheduler });
        const m = new Model();
        let seed = 0;
        try {
          for (const op of ops) {
            switch (op.kind) {
              case 'append': {
                const batch = makeBatch({ count: op.count, valueSize: op.valueSize, seed: seed++ });
                const info = await log.appendAsLeader(batch);
                expect(info.firstOffset).toBe(m.leo);
                m.batches.push({ base: m.leo, last: m.leo + op.count - 1, bytes: Buffer.from(batch) });
                m.leo += op.count;
                break;
              }
              case 'read': {
                const offset = m.logStart + Math.floor(op.at * (m.leo - m.logStart + 1));
                const got = batchesIn(log.read(Math.min(offset, m.leo), op.maxBytes).records);
                if (offset >= m.leo) {
                  expect(got.length).toBe(0);
                  break;
                }
                const idx = m.batches.findIndex((b) => b.last >= offset);
                expect(got.length).toBeGreaterThan(0);
                let total = 0;
                got.forEach((g, i) => {
                  const want = m.batches[idx + i]!;
                  expect(g.bytes().equals(want.bytes)).toBe(true);
                  total += g.sizeInBytes;
                });
                if (got.length > 1) expect(total).toBeLessThanOrEqual(op.maxBytes);
                break;
              }
              case 'roll':
                await log.roll();
                break;
              case 'truncate': {
                const target = m.logStart + Math.floor(op.at * (m.leo - m.logStart + 1));
                await log.truncateTo(target);
                const removed = m.batches.filter((b) => b.last >= target);
                if (target < m.leo && removed.length > 0) m.leo = removed[0]!.base;
                m.batches = m.batches.filter((b) => b.last < target);
                m.logStart = Math.min(m.logStart, m.leo);
                m.hw = Math.min(m.hw, m.leo);
                break;
              }
              case 'hw':
                m.hw = m.logStart + Math.floor(op.at * (m.leo - m.logStart + 1));
                expect(log.updateHighWatermark(m.hw)).toBe(m.hw);
                break;
              case 'deleteRecords': {
                const target = m.logStart + Math.floor(op.at * (m.hw - m.logStart + 1));
                await log.maybeIncrementLogStartOffset(target);
                m.logStart = Math.max(m.logStart, target);
                break;
              }
              case 'retention': {
                config = createLogConfig({}, { ...config.originals, 'retention.bytes': String(op.bytes) });
                log.updateConfig(config);
                const sizeBefore = log.size;
                await log.deleteOldSegments();
                expect(log.logStartOffset).toBeGreaterThanOrEqual(m.logStart);
                expect(log.logStartOffset).toBeLessThanOrEqual(Math.max(m.hw, m.logStart));
                m.logStart = log.logStartOffset;
                m.batches = m.batches.filter((b) => b.last >= m.logStart);
                expect(log.size).toBeLessThanOrEqual(sizeBefore);
                expect(log.numberOfSegments).toBeGreaterThanOrEqual(1);
                break;
              }
              case 'reopen': {
                await log.close();
                log = Log.open({ dir, config, clock, scheduler, logStartOffset: m.logStart, highWatermark: m.hw, hadCleanShutdown: op.clean, recoveryPoint: op.clean ? m.leo : 0 });
                break;
              }
            }
            expect(log.logEndOffset).toBe(m.leo);
            expect(log.logStartOffset).toBe(m.logStart);
            expect(log.highWatermark).toBe(Math.min(m.hw, m.leo));
            m.hw = log.highWatermark;
          }
          // full read-through at the end
          const seen: Buffer[] = [];
          let o = m.logStart;
          while (o < m.leo) {
            const got = batchesIn(log.read(o, 5000).records);
            expect(got.length).toBeGreaterThan(0);
            for (const g of got) seen.push(Buffer.from(g.bytes()));
            o = got[got.length - 1]!.nextOffset;
          }
          const want = m.visible().map((b) => b.bytes);
          expect(seen.length).toBe(want.length);
          seen.forEach((s, i) => expect(s.equals(want[i]!)).toBe(true));
        } finally {
          await log.close();
          await scheduler.shutdown();
          removeDir(root);
        }
      }),
      { seed: 20261129, numRuns: 120 },
    );
    // 120 logs opened, written and read back: about 2 s on a quiet machine, much more under load.
  }, 60000);
});
