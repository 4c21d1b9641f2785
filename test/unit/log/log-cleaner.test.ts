import * as fs from 'node:fs';
import { LogCleaner } from '../../../src/log/log-cleaner';
import { Log } from '../../../src/log/log';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { LogFixture, logFixture } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

function keyed(entries: Array<[string, string | null]>, timestamp: number, compression = CompressionType.NONE): Buffer {
  const b = new RecordBatchBuilder({ compression });
  for (const [k, v] of entries) b.append({ timestamp, key: Buffer.from(k), value: v === null ? null : Buffer.from(v) });
  return b.build();
}

function contents(log: Log): Array<[number, string, string | null]> {
  const out: Array<[number, string, string | null]> = [];
  let o = log.logStartOffset;
  while (o < log.logEndOffset) {
    const batches = batchesIn(log.read(o, 1 << 20).records);
    if (batches.length === 0) break;
    for (const b of batches) for (const r of b.records()) out.push([r.offset, r.key?.toString() ?? '', r.value?.toString() ?? null]);
    o = batches[batches.length - 1]!.nextOffset;
  }
  return out;
}

describe('LogCleaner', () => {
  let f: LogFixture;
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  beforeEach(() => {
    f = logFixture('compacted-0');
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('keeps the last record per key in the cleanable segments, offsets unchanged, active segment untouched', async () => {
    const log = f.open({ 'cleanup.policy': 'compact', 'segment.bytes': '250' });
    const now = f.clock.nowMs();
    for (let round = 0; round < 10; round++) {
      await log.appendAsLeader(keyed([['a', `a${round}`], ['b', `b${round}`], ['c', round % 2 === 0 ? `c${round}` : null]], now, round % 2 ? CompressionType.GZIP : CompressionType.NONE));
    }
    log.updateHighWatermark(log.logEndOffset);
    const before = contents(log);
    const active = log.activeSegment();
    const cleanable = log.cleanableSegments();
    expect(cleanable.length).toBeGreaterThan(1);
    const stats = await new LogCleaner(f.clock).clean(log);
    expect(stats.segmentsCleaned).toBeGreaterThan(0);
    const after = contents(log);
    const cleanEnd = log.logSegments()[log.logSegments().length - 1]!.baseOffset;
    // the uncleaned tail is as before
    expect(after.filter(([o]) => o >= cleanEnd)).toEqual(before.filter(([o]) => o >= cleanEnd));
    // in the cleaned part each key appears once, with its last value there
    const cleanedPart = after.filter(([o]) => o < cleanEnd);
    const keys = cleanedPart.map(([, k]) => k);
    expect(new Set(keys).size).toBe(keys.length);
    for (const [o, k, v] of cleanedPart) {
      const last = before.filter(([bo, bk]) => bk === k && bo < cleanEnd).pop()!;
      expect([o, v]).toEqual([last[0], last[2]]);
    }
    expect(log.activeSegment()).toBe(active);
    expect(log.firstDirtyOffset).toBe(cleanEnd);
    // batches keep their original offset span
    for (const b of batchesIn(log.read(0, 1 << 20).records)) expect(b.isValid()).toBe(true);
    // appends and reads go on; reopening gives the same contents
    await log.appendAsLeader(keyed([['a', 'late']], now));
    const reopened = contents(log);
    await log.close();
    const again = f.open({ 'cleanup.policy': 'compact', 'segment.bytes': '250' }, { hadCleanShutdown: true });
    expect(contents(again)).toEqual(reopened);
    // old segment files went to .deleted
    expect(fs.readdirSync(f.logDir).some((n) => n.endsWith('.cleaned') || n.endsWith('.swap'))).toBe(false);
  });

  it('drops tombstones only once their segment is delete.retention.ms older than the newest cleaned one', async () => {
    const log = f.open({ 'cleanup.policy': 'compact', 'delete.retention.ms': '1000' });
    const now = f.clock.nowMs();
    await log.appendAsLeader(keyed([['k', 'v1']], now));
    await log.appendAsLeader(keyed([['k', null]], now));
    await log.roll();
    await log.appendAsLeader(keyed([['other', 'x']], now));
    await log.appendAsLeader(keyed([['other', 'y']], now));
    await log.roll();
    await log.appendAsLeader(keyed([['active', 'z']], now));
    log.updateHighWatermark(log.logEndOffset);
    const cleaner = new LogCleaner(f.clock);
    // Kafka's delete horizon: the newest already-cleaned segment's modification time minus delete.retention.ms, so a
    // first round keeps every tombstone, and so does a round where the tombstone's segment is as recent as that one.
    await cleaner.clean(log);
    expect(contents(log).filter(([, k]) => k === 'k')).toEqual([[1, 'k', null]]);
    await cleaner.clean(log);
    expect(contents(log).filter(([, k]) => k === 'k')).toEqual([[1, 'k', null]]);
    const t = (Date.now() - 2000) / 1000;
    fs.utimesSync(log.logSegments()[0]!.file, t, t);
    await cleaner.clean(log);
    expect(contents(log).filter(([, k]) => k === 'k')).toEqual([]);
    expect(contents(log).map(([o]) => o)).toEqual([3, 4]);
  });

  it('completes an interrupted swap on load', async () => {
    const log = f.open({ 'cleanup.policy': 'compact', 'segment.bytes': '200' });
    const now = f.clock.nowMs();
    for (let i = 0; i < 4; i++) await log.appendAsLeader(keyed([['k', `v${i}`]], now));
    log.updateHighWatermark(log.logEndOffset);
    const first = log.logSegments()[0]!;
    const cleanedBytes = keyed([['k', 'v0']], now);
    await log.close();
    // as if the process died after writing <base>.log.swap (a cleaned copy of the first segment)
    const view = new RecordBatch(cleanedBytes);
    view.baseOffset = first.baseOffset;
    fs.writeFileSync(`${first.file}.swap`, cleanedBytes);
    const again = f.open({ 'cleanup.policy': 'compact', 'segment.bytes': '200' });
    expect(fs.existsSync(`${first.file}.swap`)).toBe(false);
    expect(contents(again)[0]).toEqual([0, 'k', 'v0']);
  });
});

describe('LogCleaner against a model', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());

  it('never changes the latest value of a key, keeps surviving records byte-identical, keeps offsets', async () => {
    const fc = (await import('fast-check')).default;
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.option(fc.integer({ min: 0, max: 999 }), { nil: null, freq: 5 })), { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(CompressionType.NONE, CompressionType.GZIP, CompressionType.LZ4),
        async (batches, codec) => {
          const f = logFixture(`model${run++}-0`);
          try {
            const log = f.open({ 'cleanup.policy': 'compact', 'segment.bytes': '300' });
            for (const b of batches) await log.appendAsLeader(keyed(b.map(([k, v]) => [`key${k}`, v === null ? null : `v${v}`]), f.clock.nowMs(), codec));
            log.updateHighWatermark(log.logEndOffset);
            const before = contents(log);
            await new LogCleaner(f.clock).clean(log);
            const after = contents(log);
            const latest = (rows: typeof before): Map<string, string | null> => new Map(rows.map(([, k, v]) => [k, v]));
            expect(latest(after)).toEqual(latest(before));
            const byOffset = new Map(before.map((r) => [r[0], r]));
            let prev = -1;
            for (const r of after) {
              expect(byOffset.get(r[0])).toEqual(r);
              expect(r[0]).toBeGreaterThan(prev);
              prev = r[0];
            }
            expect(log.logEndOffset).toBe(before.length);
          } finally {
            await f.cleanup();
          }
        },
      ),
      { seed: 4242, numRuns: 40 },
    );
  });
});
