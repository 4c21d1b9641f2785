import * as fs from 'node:fs';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { LogFixture, logFixture, makeBatch } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

/** Retention with an injected clock: by time (largest record timestamp), by size, by log start offset. */
describe('Log retention', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let f: LogFixture;
  beforeEach(() => {
    f = logFixture();
  });
  afterEach(async () => {
    await f.cleanup();
  });

  const segmentBaseOffsets = (log: { logSegments(): readonly { baseOffset: number }[] }): number[] => log.logSegments().map((s) => s.baseOffset);

  it('deletes segments whose largest timestamp is older than retention.ms, never the active one', async () => {
    const log = f.open({ 'segment.bytes': '600', 'retention.ms': '10000', 'file.delete.delay.ms': '60000' });
    const now = f.clock.nowMs();
    // 12 batches, timestamps one second apart, from 20 s ago
    for (let i = 0; i < 12; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100, timestamp: now - 20_000 + i * 1000 }));
    log.updateHighWatermark(log.logEndOffset);
    const before = log.logSegments().map((s) => [s.baseOffset, s.largestTimestamp()] as const);
    expect(before.length).toBeGreaterThan(3);
    const deleted = await log.deleteOldSegments();
    const expectedGone = before.filter(([, ts], i) => i < before.length - 1 && now - ts > 10000).length;
    expect(deleted).toBe(expectedGone);
    expect(deleted).toBeGreaterThan(0);
    expect(log.logStartOffset).toBe(log.logSegments()[0]?.baseOffset);
    // files are renamed .deleted and go after file.delete.delay.ms
    expect(fs.readdirSync(f.logDir).filter((n) => n.endsWith('.deleted')).length).toBe(deleted * 3);
    f.clock.advance(60000);
    await f.scheduler.idle();
    expect(fs.readdirSync(f.logDir).filter((n) => n.endsWith('.deleted')).length).toBe(0);

    // all data expires: the active segment is replaced by a new empty one first, so an active segment always exists
    f.clock.advance(1_000_000);
    const leo = log.logEndOffset;
    await log.deleteOldSegments();
    expect(log.numberOfSegments).toBe(1);
    expect(log.activeSegment().baseOffset).toBe(leo);
    expect(log.activeSegment().size).toBe(0);
    expect([log.logStartOffset, log.logEndOffset]).toEqual([leo, leo]);
    // an empty active segment is never deleted
    f.clock.advance(1_000_000);
    expect(await log.deleteOldSegments()).toBe(0);
    expect((await log.appendAsLeader(makeBatch())).firstOffset).toBe(leo);
  });

  it('never deletes data above the high watermark', async () => {
    const log = f.open({ 'segment.bytes': '600', 'retention.ms': '1' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100, timestamp: 1 }));
    log.updateHighWatermark(0);
    expect(await log.deleteOldSegments()).toBe(0);
    const second = log.logSegments()[1]!.baseOffset;
    log.updateHighWatermark(second);
    expect(await log.deleteOldSegments()).toBe(1);
    expect(log.logStartOffset).toBe(second);
  });

  it('deletes the oldest segments while the log exceeds retention.bytes', async () => {
    const log = f.open({ 'segment.bytes': '1000', 'retention.bytes': '2500', 'retention.ms': '-1' });
    for (let i = 0; i < 30; i++) await log.appendAsLeader(makeBatch({ count: 1, valueSize: 150 }));
    log.updateHighWatermark(log.logEndOffset);
    const sizes = log.logSegments().map((s) => s.size);
    const total = sizes.reduce((a, b) => a + b, 0);
    let diff = total - 2500;
    let expected = 0;
    for (const s of sizes.slice(0, -1)) {
      if (diff - s < 0) break;
      diff -= s;
      expected++;
    }
    expect(await log.deleteOldSegments()).toBe(expected);
    expect(log.size).toBeLessThanOrEqual(2500 + (sizes[0] ?? 0));
    expect(log.size).toBeGreaterThanOrEqual(2500 - (sizes[0] ?? 0));
  });

  it('applies only log-start-offset retention to compacted topics', async () => {
    const log = f.open({ 'segment.bytes': '600', 'retention.ms': '1', 'cleanup.policy': 'compact' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100, timestamp: 1 }));
    log.updateHighWatermark(log.logEndOffset);
    expect(await log.deleteOldSegments()).toBe(0);
    const third = log.logSegments()[2]!.baseOffset;
    await log.maybeIncrementLogStartOffset(third + 1);
    expect(await log.deleteOldSegments()).toBe(2);
    expect(log.logStartOffset).toBe(third + 1);
    expect(segmentBaseOffsets(log)[0]).toBe(third);
  });

  it('refuses keyless records on compacted topics', async () => {
    const log = f.open({ 'cleanup.policy': 'compact' });
    const keyless = new RecordBatchBuilder().append({ key: null, value: Buffer.from('v') }).build();
    await expect(log.appendAsLeader(keyless)).rejects.toMatchObject({ errorName: 'INVALID_RECORD' });
    expect((await log.appendAsLeader(makeBatch({ count: 2 }))).firstOffset).toBe(0);
  });

  it('picks up retention overrides changed at run time', async () => {
    const log = f.open({ 'segment.bytes': '600' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100, timestamp: f.clock.nowMs() }));
    log.updateHighWatermark(log.logEndOffset);
    f.clock.advance(1000);
    log.updateConfig(f.config({ 'segment.bytes': '600', 'retention.ms': '604800000' }));
    expect(await log.deleteOldSegments()).toBe(0);
    log.updateConfig(f.config({ 'segment.bytes': '600', 'retention.ms': '100' }));
    expect(await log.deleteOldSegments()).toBeGreaterThan(0);
  });
});
