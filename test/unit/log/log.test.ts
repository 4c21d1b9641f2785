import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaError } from '../../../src/common/kafka-error';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { legacyEntrySize, readLegacyMessages, writeLegacyEntry } from '../../../src/records/legacy-message-set';
import { downConvert } from '../../../src/records/record-conversion';
import { TimestampType } from '../../../src/records/timestamp-type';
import { LogFixture, logFixture, makeBatch } from './log-test-utils';
import { quietLogging } from '../../helpers/quiet-logging';

const fixture = (name: string): Buffer =>
  Buffer.from(fs.readFileSync(path.join(__dirname, '../../fixtures/records', name), 'utf8').trim(), 'hex');

async function expectKafkaError(p: Promise<unknown> | (() => unknown), name: string): Promise<void> {
  let caught: unknown;
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(KafkaError);
  expect((caught as KafkaError).errorName).toBe(name);
}

/** Lets I/O callbacks run until `done` holds (at most 2 s). */
async function waitFor(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 2000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 2 s');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('Log', () => {
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

  it('creates the partition directory with Kafka-named segment files', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 3 }));
    await log.leaderEpochCache.flushed(); // the checkpoint is written behind (LeaderEpochFileCache)
    const files = fs.readdirSync(f.logDir).sort();
    expect(files).toEqual(['00000000000000000000.index', '00000000000000000000.log', '00000000000000000000.timeindex', 'leader-epoch-checkpoint']);
    expect(fs.readFileSync(path.join(f.logDir, 'leader-epoch-checkpoint'), 'utf8')).toBe('0\n1\n0 0\n');
  });

  it('times each segment flush through onSegmentFlush (LogFlushStats), and only flushes that happen', async () => {
    const flushes: number[] = [];
    const log = f.open({}, { onSegmentFlush: (ms) => flushes.push(ms) });
    await log.appendAsLeader(makeBatch({ count: 3 }));
    await log.flush();
    expect(flushes).toHaveLength(1);
    expect(flushes[0]).toBeGreaterThanOrEqual(0);
    // Nothing above the recovery point: no segment is flushed, nothing is timed.
    await log.flush();
    expect(flushes).toHaveLength(1);
  });

  it('assigns consecutive offsets from the log end offset and reads batches back', async () => {
    const log = f.open();
    const a = await log.appendAsLeader(makeBatch({ count: 3 }));
    const b = await log.appendAsLeader(makeBatch({ count: 2 }));
    expect([a.firstOffset, a.lastOffset, b.firstOffset, b.lastOffset]).toEqual([0, 2, 3, 4]);
    expect(a.logAppendTime).toBe(-1);
    expect(log.logEndOffset).toBe(5);
    const read = log.read(3, 1 << 20);
    const batches = batchesIn(read.records);
    expect(batches.map((x) => [x.baseOffset, x.lastOffset])).toEqual([[3, 4]]);
    // fetching from the middle of a batch returns the whole batch
    expect(batchesIn(log.read(1, 1 << 20).records).map((x) => x.baseOffset)).toEqual([0, 3]);
    expect(log.read(5, 100).records.length).toBe(0);
  });

  it('stores a kafkajs batch and serves it back byte-identical except baseOffset and leader epoch', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 5 }));
    const golden = fixture('kafkajs-2.2.4-batch.hex');
    const input = Buffer.from(golden);
    await log.appendAsLeader(input, 0);
    const out = log.read(5, 1 << 20).records;
    expect(out.length).toBe(golden.length);
    expect(new RecordBatch(out).baseOffset).toBe(5);
    expect(out.subarray(8).equals(golden.subarray(8))).toBe(true);
    expect(new RecordBatch(out).isValid()).toBe(true);
  });

  it('stores compressed batches as received', async () => {
    const log = f.open();
    const golden = fixture('kafkajs-2.2.4-batch-gzip.hex');
    await log.appendAsLeader(Buffer.from(golden), 0);
    const out = log.read(0, 1 << 20).records;
    expect(out.subarray(8).equals(golden.subarray(8))).toBe(true);
    expect(new RecordBatch(out).records().map((r) => r.offset)).toEqual([0, 1, 2]);
  });

  it('honours maxBytes with whole batches, and returns one oversized first batch whole', async () => {
    const log = f.open();
    for (let i = 0; i < 5; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 }));
    const one = batchesIn(log.read(0, 1).records);
    expect(one.length).toBe(1);
    const size = one[0]!.sizeInBytes;
    expect(batchesIn(log.read(0, size * 2 + 10).records).length).toBe(2);
    expect(log.read(0, size * 2 + 10).records.length).toBe(size * 2);
    expect(log.read(0, 1, undefined, false).records.length).toBe(0);
  });

  it('does not read at or beyond the upper bound (high watermark)', async () => {
    const log = f.open();
    for (let i = 0; i < 4; i++) await log.appendAsLeader(makeBatch({ count: 2 }));
    expect(batchesIn(log.read(0, 1 << 20, 4).records).map((b) => b.baseOffset)).toEqual([0, 2]);
    expect(log.read(4, 1 << 20, 4).records.length).toBe(0);
  });

  it('refuses reads outside [logStartOffset, LEO] with OFFSET_OUT_OF_RANGE', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 2 }));
    await expectKafkaError(() => log.read(3, 100), 'OFFSET_OUT_OF_RANGE');
    log.updateHighWatermark(2);
    await log.maybeIncrementLogStartOffset(1);
    await expectKafkaError(() => log.read(0, 100), 'OFFSET_OUT_OF_RANGE');
    expect(log.read(1, 100).records.length).toBeGreaterThan(0);
  });

  it('refuses bad batches with Kafka errors and writes nothing', async () => {
    const log = f.open({ 'max.message.bytes': '2000', 'segment.bytes': '5000' });
    await log.appendAsLeader(makeBatch({ count: 1 }));
    const before = fs.statSync(path.join(f.logDir, '00000000000000000000.log')).size;

    const badCrc = makeBatch({ count: 2 });
    badCrc.writeUInt8(badCrc.readUInt8(badCrc.length - 1) ^ 0xff, badCrc.length - 1);
    await expectKafkaError(log.appendAsLeader(badCrc), 'CORRUPT_MESSAGE');

    const badMagic = makeBatch();
    badMagic[16] = 3;
    await expectKafkaError(log.appendAsLeader(badMagic), 'CORRUPT_MESSAGE');

    const badLength = makeBatch();
    badLength.writeInt32BE(badLength.readInt32BE(8) + 5, 8);
    await expectKafkaError(log.appendAsLeader(badLength), 'CORRUPT_MESSAGE');
    await expectKafkaError(log.appendAsLeader(makeBatch().subarray(0, 40)), 'CORRUPT_MESSAGE');

    const badCount = makeBatch({ count: 3 });
    badCount.writeInt32BE(5, 57);
    new RecordBatch(badCount).setLogAppendTime(1); // recompute the CRC so only the count is wrong
    await expectKafkaError(log.appendAsLeader(badCount), 'INVALID_RECORD');

    const control = new RecordBatchBuilder({ isControlBatch: true }).append({ value: Buffer.from('x') }).build();
    await expectKafkaError(log.appendAsLeader(control), 'INVALID_RECORD');

    await expectKafkaError(log.appendAsLeader(makeBatch({ valueSize: 3000 })), 'MESSAGE_TOO_LARGE');
    // Kafka's LogValidator takes one v2 batch per partition ("Compressed outer record has more than one batch")
    const many = Buffer.concat([makeBatch({ valueSize: 1500 }), makeBatch({ valueSize: 1500 }), makeBatch({ valueSize: 1500 }), makeBatch({ valueSize: 1500 })]);
    await expectKafkaError(log.appendAsLeader(many), 'INVALID_RECORD');

    // one bad batch after a good one: nothing is written, not even the good one
    const mixed = Buffer.concat([makeBatch(), badCrc]);
    await expectKafkaError(log.appendAsLeader(mixed), 'CORRUPT_MESSAGE');

    expect(fs.statSync(path.join(f.logDir, '00000000000000000000.log')).size).toBe(before);
    expect(log.logEndOffset).toBe(1);
  });

  it('refuses a batch larger than segment.bytes with RECORD_LIST_TOO_LARGE', async () => {
    const log = f.open({ 'max.message.bytes': '20000', 'segment.bytes': '5000' });
    await expectKafkaError(log.appendAsLeader(makeBatch({ count: 4, valueSize: 1500 })), 'RECORD_LIST_TOO_LARGE');
    expect(log.logEndOffset).toBe(0);
  });

  it('stamps LogAppendTime and the leader epoch', async () => {
    const log = f.open({ 'message.timestamp.type': 'LogAppendTime' });
    const info = await log.appendAsLeader(makeBatch({ count: 2, timestamp: 5 }), 3);
    expect(info.logAppendTime).toBe(f.clock.nowMs());
    const batch = new RecordBatch(log.read(0, 1000).records);
    expect(batch.timestampType).toBe(TimestampType.LOG_APPEND_TIME);
    expect(batch.maxTimestamp).toBe(f.clock.nowMs());
    expect(batch.partitionLeaderEpoch).toBe(3);
    expect(batch.isValid()).toBe(true);
    expect(log.leaderEpochCache.entries()).toEqual([{ epoch: 3, startOffset: 0 }]);
  });

  it('converts legacy magic 0/1 input to v2 and serves it down-converted to old fetchers', async () => {
    const log = f.open();
    const msgs = [
      [null, 'a'],
      ['k', 'b'],
    ] as const;
    const parts = msgs.map(([k, v]) => {
      const key = k === null ? null : Buffer.from(k);
      const buf = Buffer.alloc(legacyEntrySize(1, key, Buffer.from(v)));
      writeLegacyEntry(buf, 0, 0, 1, 0, 1234, key, Buffer.from(v));
      return buf;
    });
    const info = await log.appendAsLeader(Buffer.concat(parts));
    expect([info.firstOffset, info.lastOffset]).toEqual([0, 1]);
    const stored = log.read(0, 1000).records;
    expect(stored.readInt8(16)).toBe(2);
    const old = readLegacyMessages(downConvert(stored, 0, 1));
    expect(old.map((m) => [m.offset, m.magic, m.key?.toString(), m.value?.toString()])).toEqual([[1, 0, 'k', 'b']]);
  });

  it('recompresses when the topic sets compression.type', async () => {
    const log = f.open({ 'compression.type': 'lz4' });
    await log.appendAsLeader(makeBatch({ count: 4, compression: CompressionType.GZIP }));
    const batch = new RecordBatch(log.read(0, 1 << 20).records);
    expect(batch.compressionType).toBe(CompressionType.LZ4);
    expect(batch.records().map((r) => r.offset)).toEqual([0, 1, 2, 3]);
  });

  it('rolls at segment.bytes, and reads across segments', async () => {
    const log = f.open({ 'segment.bytes': '1000' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 100 }));
    expect(log.numberOfSegments).toBeGreaterThan(2);
    for (const s of log.logSegments()) expect(s.size).toBeLessThanOrEqual(1000);
    for (let o = 0; o < 20; o++) {
      const b = batchesIn(log.read(o, 10).records)[0]!;
      expect(b.baseOffset).toBeLessThanOrEqual(o);
      expect(b.lastOffset).toBeGreaterThanOrEqual(o);
    }
  });

  it('rolls on segment.ms by record timestamps', async () => {
    const log = f.open({ 'segment.ms': '1000' });
    await log.appendAsLeader(makeBatch({ timestamp: 10_000 }));
    await log.appendAsLeader(makeBatch({ timestamp: 10_500 }));
    expect(log.numberOfSegments).toBe(1);
    await log.appendAsLeader(makeBatch({ timestamp: 11_001 }));
    expect(log.numberOfSegments).toBe(2);
    expect(log.activeSegment().baseOffset).toBe(2);
  });

  it('rolls when the offset index is full', async () => {
    const log = f.open({ 'segment.index.bytes': '24', 'index.interval.bytes': '1' });
    for (let i = 0; i < 12; i++) await log.appendAsLeader(makeBatch());
    expect(log.numberOfSegments).toBeGreaterThan(2);
    for (const s of log.logSegments()) expect(s.offsetIndex.entries).toBeLessThanOrEqual(3);
  });

  it('looks offsets up by timestamp', async () => {
    const log = f.open({ 'segment.bytes': '600', 'index.interval.bytes': '100' });
    for (let i = 0; i < 20; i++) await log.appendAsLeader(makeBatch({ count: 2, timestamp: 1000 + i * 10, valueSize: 50 }));
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ timestamp: -1, offset: 0, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(-1)).toEqual({ timestamp: -1, offset: 40, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(0)).toEqual({ timestamp: 1000, offset: 0, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(1001)).toEqual({ timestamp: 1001, offset: 1, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(1055)).toEqual({ timestamp: 1060, offset: 12, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(1191)).toEqual({ timestamp: 1191, offset: 39, leaderEpoch: 0 });
    expect(log.fetchOffsetByTimestamp(5000)).toBeUndefined();
  });

  it('gives the leader epoch of the offset found (ListOffsets v4+): earliest and latest from the epoch cache, a timestamp from its batch', async () => {
    const log = f.open({ 'segment.bytes': '600', 'index.interval.bytes': '100' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, timestamp: 1000 + i * 10, valueSize: 50 }), i < 5 ? 2 : 5);
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ timestamp: -1, offset: 0, leaderEpoch: 2 });
    expect(log.fetchOffsetByTimestamp(-1)).toEqual({ timestamp: -1, offset: 20, leaderEpoch: 5 });
    expect(log.fetchOffsetByTimestamp(1012)).toEqual({ timestamp: 1020, offset: 4, leaderEpoch: 2 });
    expect(log.fetchOffsetByTimestamp(1062)).toEqual({ timestamp: 1070, offset: 14, leaderEpoch: 5 });
  });

  it('has no leader epoch for the earliest offset when the first cached epoch starts after the log start', () => {
    const log = f.open({});
    log.maybeAssignEpochStartOffset(3, 10);
    expect(log.fetchOffsetByTimestamp(-2)).toEqual({ timestamp: -1, offset: 0, leaderEpoch: -1 });
  });

  it('truncates to an offset (follower) and continues from there', async () => {
    const log = f.open({ 'segment.bytes': '500' });
    for (let i = 0; i < 10; i++) await log.appendAsLeader(makeBatch({ count: 2, valueSize: 50 }), i < 5 ? 0 : 1);
    log.updateHighWatermark(20);
    expect(await log.truncateTo(7)).toBe(true);
    // 7 is inside the batch [6, 7]: that batch goes too
    expect(log.logEndOffset).toBe(6);
    expect(log.highWatermark).toBe(6);
    expect(log.leaderEpochCache.entries()).toEqual([{ epoch: 0, startOffset: 0 }]);
    const info = await log.appendAsLeader(makeBatch({ count: 1 }), 2);
    expect(info.firstOffset).toBe(6);
    expect(batchesIn(log.read(0, 1 << 20).records).length).toBeGreaterThan(0);
    expect(await log.truncateTo(100)).toBe(false);
  });

  it('truncates fully and restarts at a new offset', async () => {
    const log = f.open();
    for (let i = 0; i < 3; i++) await log.appendAsLeader(makeBatch({ count: 2 }));
    await log.truncateFullyAndStartAt(50);
    expect([log.logStartOffset, log.logEndOffset, log.numberOfSegments]).toEqual([50, 50, 1]);
    expect(log.activeSegment().baseOffset).toBe(50);
    expect((await log.appendAsLeader(makeBatch())).firstOffset).toBe(50);
  });

  it('appends as follower keeping offsets and epochs, refusing offsets below the LEO', async () => {
    const log = f.open();
    const b = makeBatch({ count: 3 });
    const view = new RecordBatch(b);
    view.baseOffset = 0;
    view.partitionLeaderEpoch = 4;
    await log.appendAsFollower(b);
    expect(log.logEndOffset).toBe(3);
    expect(log.leaderEpochCache.latestEpoch()).toBe(4);
    await expectKafkaError(log.appendAsFollower(Buffer.from(b)), 'OFFSET_OUT_OF_RANGE');
    // a fetch response cut in the middle of its last batch: the whole batches are appended, the tail dropped
    const next = makeBatch({ count: 2 });
    new RecordBatch(next).baseOffset = 3;
    const after = makeBatch({ count: 2 });
    new RecordBatch(after).baseOffset = 5;
    const info = await log.appendAsFollower(Buffer.concat([next, after.subarray(0, 30)]));
    expect([info.firstOffset, info.lastOffset, log.logEndOffset]).toEqual([3, 4, 5]);
  });

  it('applies topic config changes at run time', async () => {
    const log = f.open();
    for (let i = 0; i < 3; i++) await log.appendAsLeader(makeBatch({ valueSize: 200 }));
    expect(log.numberOfSegments).toBe(1);
    log.updateConfig(f.config({ 'segment.bytes': '300' }));
    for (let i = 0; i < 3; i++) await log.appendAsLeader(makeBatch({ valueSize: 200 }));
    expect(log.numberOfSegments).toBe(4);
  });

  it('flushes per flush.messages and advances the recovery point', async () => {
    const log = f.open({ 'flush.messages': '3' });
    await log.appendAsLeader(makeBatch({ count: 2 }));
    expect(log.recoveryPoint).toBe(0);
    await log.appendAsLeader(makeBatch({ count: 2 }));
    expect(log.recoveryPoint).toBe(4);
  });

  it('group commit: with flush.messages=1, appends made while an fsync runs share the next one, and each is durable when acknowledged', async () => {
    const log = f.open({ 'flush.messages': '1' });
    const segment = log.activeSegment();
    const flush = jest.spyOn(segment, 'flush');
    // Checked as each append resolves: by then its offset is below the recovery point (fsynced).
    const notDurable: number[] = [];
    const appends = Array.from({ length: 20 }, () =>
      log.appendAsLeader(makeBatch({ count: 1 })).then((info) => {
        if (log.recoveryPoint <= info.lastOffset) notDurable.push(info.lastOffset);
      }),
    );
    await Promise.all(appends);
    expect(notDurable).toEqual([]);
    expect(log.recoveryPoint).toBe(20);
    // One fsync per append would be 20; those asked for during a running one are served by a single next one.
    expect(flush.mock.calls.length).toBeLessThan(20);
    expect(flush.mock.calls.length).toBeGreaterThanOrEqual(1);
  });

  it('flush syncs the active segment without its indexes (recovery rebuilds them), and a rolled segment with them', async () => {
    const log = f.open({ 'flush.messages': '1', 'index.interval.bytes': '1' });
    const first = log.activeSegment();
    const flush = jest.spyOn(first, 'flush');
    const indexes = jest.spyOn(first, 'flushIndexes');
    for (let i = 0; i < 3; i++) await log.appendAsLeader(makeBatch({ count: 1 }));
    expect(flush.mock.calls.length).toBeGreaterThan(0);
    for (const call of flush.mock.calls) expect(call).toEqual([false]);
    expect(indexes).not.toHaveBeenCalled();
    await log.roll();
    // Kafka's background flush of the finished segment: scheduled at once, run by the scheduler's clock.
    f.clock.advance(0);
    await waitFor(() => indexes.mock.calls.length > 0);
    expect(log.recoveryPoint).toBe(3);
  });

  it('exposes appended bytes to readers only once they are written', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 2 }));
    const pending = log.appendAsLeader(makeBatch({ count: 3 }));
    const truncation = log.truncateTo(1); // queued behind the append; waits for its write
    // let the append's queue task run (microtasks) but not its write (completes in a later I/O phase)
    for (let i = 0; i < 20 && log.activeSegment().size === log.activeSegment().readableSize; i++) await Promise.resolve();
    expect(log.activeSegment().size).toBeGreaterThan(log.activeSegment().readableSize);
    expect(log.logEndOffset).toBe(2);
    expect(batchesIn(log.read(0, 1 << 20).records).length).toBe(1);
    expect((await pending).lastOffset).toBe(4);
    await truncation;
    expect(log.logEndOffset).toBe(0);
  });

  it('serialises concurrent appends', async () => {
    const log = f.open();
    const infos = await Promise.all(Array.from({ length: 50 }, () => log.appendAsLeader(makeBatch({ count: 2 }))));
    expect(infos.map((i) => i.firstOffset)).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    expect(log.logEndOffset).toBe(100);
  });

  it('keeps offsets and bytes in order with several large writes in flight, and refuses a corrupt batch among them', async () => {
    const log = f.open({ 'max.message.bytes': String(1 << 20) });
    // Batches above the pipeline's synchronous-write size (256 KiB), so that they go to the pool.
    const batches = Array.from({ length: 24 }, (_, i) => makeBatch({ count: 2, valueSize: 140_000, seed: i }));
    const corrupt = makeBatch({ count: 2, valueSize: 140_000, seed: 99 });
    corrupt.writeUInt8(corrupt.readUInt8(corrupt.length - 1) ^ 0xff, corrupt.length - 1);
    // Count the writevs running at once (through the module object, which the src's fs namespace reads through).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const realFs = require('node:fs') as { writev: typeof fs.writev };
    const realWritev = realFs.writev;
    let running = 0;
    let maxRunning = 0;
    realFs.writev = ((fd: number, buffers: NodeJS.ArrayBufferView[], position: number | null, cb: (err: NodeJS.ErrnoException | null, written: number, buffers: NodeJS.ArrayBufferView[]) => void) => {
      maxRunning = Math.max(maxRunning, ++running);
      realWritev(fd, buffers, position, (err, written, bufs) => {
        running--;
        cb(err, written, bufs);
      });
    }) as unknown as typeof fs.writev;
    let infos;
    try {
      const appends = batches.map((b) => log.appendAsLeader(b));
      const refused = log.appendAsLeader(corrupt);
      const more = batches.slice(0, 4).map((b) => log.appendAsLeader(Buffer.from(b)));
      await expectKafkaError(refused, 'CORRUPT_MESSAGE');
      infos = await Promise.all([...appends, ...more]);
    } finally {
      realFs.writev = realWritev;
    }
    expect(maxRunning).toBe(2);
    expect(infos.map((i) => i.firstOffset)).toEqual(Array.from({ length: 28 }, (_, i) => i * 2));
    expect(log.logEndOffset).toBe(56);
    const expectedBytes = [...batches, ...batches.slice(0, 4)].reduce((n, b) => n + b.length, 0);
    expect(log.activeSegment().readableSize).toBe(expectedBytes);
    expect(fs.statSync(path.join(f.logDir, '00000000000000000000.log')).size).toBe(expectedBytes);
    let offset = 0;
    for (let i = 0; i < 28; i++) {
      const batch = new RecordBatch(log.read(offset, 1).records);
      expect(batch.baseOffset).toBe(offset);
      expect(batch.isValid()).toBe(true);
      expect([...batch.records()][0]?.value?.equals(Buffer.alloc(140_000, (i % 24) % 251))).toBe(true);
      offset += 2;
    }
  });
});

describe('Log (more)', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  let f: LogFixture;
  beforeEach(() => {
    f = logFixture('events-2');
  });
  afterEach(async () => {
    await f.cleanup();
  });

  it('tracks leader epochs for OffsetsForLeaderEpoch', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 3 }), 0);
    log.maybeAssignEpochStartOffset(2);
    await log.appendAsLeader(makeBatch({ count: 2 }), 2);
    expect(log.endOffsetForEpoch(0)).toEqual({ leaderEpoch: 0, endOffset: 3 });
    expect(log.endOffsetForEpoch(1)).toEqual({ leaderEpoch: 0, endOffset: 3 });
    expect(log.endOffsetForEpoch(2)).toEqual({ leaderEpoch: 2, endOffset: 5 });
    expect(log.endOffsetForEpoch(7)).toEqual({ leaderEpoch: -1, endOffset: -1 });
    expect(new RecordBatch(log.read(3, 1000).records).partitionLeaderEpoch).toBe(2);
  });

  it('refuses DeleteRecords beyond the high watermark', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 4 }));
    log.updateHighWatermark(2);
    await expectKafkaError(log.maybeIncrementLogStartOffset(3), 'OFFSET_OUT_OF_RANGE');
    expect(await log.maybeIncrementLogStartOffset(2)).toBe(true);
    expect(log.logStartOffset).toBe(2);
  });

  it('stores gzip legacy sets from kafka-node as one v2 batch with the producer codec', async () => {
    const log = f.open();
    const zlib = await import('node:zlib');
    const inner = Buffer.concat(
      ['x', 'y', 'z'].map((v) => {
        const buf = Buffer.alloc(legacyEntrySize(0, null, Buffer.from(v)));
        writeLegacyEntry(buf, 0, 0, 0, 0, -1, null, Buffer.from(v));
        return buf;
      }),
    );
    const gz = zlib.gzipSync(inner);
    const wrapper = Buffer.alloc(legacyEntrySize(1, null, gz));
    writeLegacyEntry(wrapper, 0, 0, 1, CompressionType.GZIP, 1000, null, gz);
    const info = await log.appendAsLeader(wrapper);
    expect([info.firstOffset, info.lastOffset]).toEqual([0, 2]);
    const batch = new RecordBatch(log.read(0, 1 << 20).records);
    expect(batch.compressionType).toBe(CompressionType.GZIP);
    expect(batch.records().map((r) => r.value?.toString())).toEqual(['x', 'y', 'z']);
  });

  it('marks the log offline on a read I/O error', async () => {
    const log = f.open();
    await log.appendAsLeader(makeBatch({ count: 2 }));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const realFs = require('node:fs') as { readSync: typeof fs.readSync };
    const real = realFs.readSync;
    realFs.readSync = (() => {
      throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', errno: -5, syscall: 'read' });
    }) as unknown as typeof fs.readSync;
    try {
      await expectKafkaError(() => log.read(0, 100), 'KAFKA_STORAGE_ERROR');
    } finally {
      realFs.readSync = real;
    }
    expect(log.isOffline).toBe(true);
    await expectKafkaError(log.appendAsLeader(makeBatch()), 'KAFKA_STORAGE_ERROR');
  });

  it('rolls with the first offset of a follower batch that skips offsets', async () => {
    const log = f.open({ 'segment.bytes': '300' });
    const a = makeBatch({ count: 2, valueSize: 60 });
    await log.appendAsFollower(a);
    const b = makeBatch({ count: 2, valueSize: 60 });
    new RecordBatch(b).baseOffset = 10; // compacted upstream: offsets 2..9 are gone
    await log.appendAsFollower(b);
    expect(log.logEndOffset).toBe(12);
    expect(log.logSegments().map((s) => s.baseOffset)).toEqual([0, 10]);
    expect(batchesIn(log.read(5, 1000).records)[0]?.baseOffset).toBe(10);
  });
});
