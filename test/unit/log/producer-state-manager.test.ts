import * as fs from 'node:fs';
import * as path from 'node:path';
import { KafkaError } from '../../../src/common/kafka-error';
import { Log } from '../../../src/log/log';
import { CorruptSnapshotError, decodeProducerSnapshot, encodeProducerSnapshot, readProducerSnapshot } from '../../../src/log/producer-snapshot-file';
import { BatchMetadata, decrementSequence, incrementSequence, ProducerStateEntry } from '../../../src/log/producer-state-entry';
import { ProducerStateManager } from '../../../src/log/producer-state-manager';
import { RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { formatProducerSnapshotEntry, readProducerSnapshot as dumpToolRead } from '../../../src/tools/dump-log-segments';
import { quietLogging } from '../../helpers/quiet-logging';
import { logFixture, LogFixture, makeTempDir, removeDir } from './log-test-utils';

let restoreLogging: () => void = () => undefined;
const silenceLogging = (): void => {
  restoreLogging = quietLogging();
};

const PID = 1000;

/** A batch of `count` records from producer PID at `epoch`, sequences from `seq`. */
function idempotentBatch(seq: number, count = 2, epoch = 0, producerId = PID, extra: { transactional?: boolean; timestamp?: number } = {}): Buffer {
  const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId, producerEpoch: epoch, baseSequence: seq, isTransactional: extra.transactional ?? false });
  for (let i = 0; i < count; i++) b.append({ timestamp: extra.timestamp ?? Date.now(), key: Buffer.from(`k${seq + i}`), value: Buffer.from(`v${seq + i}`) });
  return b.build();
}

/** A COMMIT (1) or ABORT (0) marker of producer PID. */
function marker(type: 0 | 1, epoch = 0, coordinatorEpoch = 3): Buffer {
  const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId: PID, producerEpoch: epoch, baseSequence: -1, isTransactional: true, isControlBatch: true });
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(type, 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  b.append({ timestamp: Date.now(), key, value });
  return b.build();
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    if (err instanceof KafkaError) return err.errorName;
    throw err;
  }
  return 'NONE';
}

describe('sequences wrap as Kafka’s', () => {
  it('increments and decrements across Integer.MAX_VALUE', () => {
    expect(incrementSequence(0x7fffffff, 1)).toBe(0);
    expect(incrementSequence(0x7ffffffe, 3)).toBe(1);
    expect(decrementSequence(1, 3)).toBe(0x7ffffffe);
    expect(new BatchMetadata(1, 100, 3, 0).firstSeq).toBe(0x7ffffffe);
  });
});

describe('ProducerStateManager at the leader (through Log.appendAsLeader)', () => {
  let fx: LogFixture;
  let log: Log;
  beforeAll(() => silenceLogging());
  afterAll(() => restoreLogging());
  beforeEach(() => {
    fx = logFixture();
    log = fx.open();
  });
  afterEach(() => fx.cleanup());

  it('answers a retry of each of the last five batches with its original offsets and writes nothing', async () => {
    const firsts: number[] = [];
    for (let i = 0; i < 6; i++) firsts.push((await log.appendAsLeader(idempotentBatch(i * 2))).firstOffset);
    const end = log.logEndOffset;
    expect(end).toBe(12);
    // Batches 1..5 are retained (the first fell out of the five).
    for (let i = 1; i < 6; i++) {
      const info = await log.appendAsLeader(idempotentBatch(i * 2));
      expect(info).toMatchObject({ firstOffset: firsts[i], lastOffset: (firsts[i] as number) + 1 });
      expect(log.logEndOffset).toBe(end);
    }
    // The sixth-newest is no longer known: it is out of order.
    expect(await errorOf(log.appendAsLeader(idempotentBatch(0)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(log.logEndOffset).toBe(end);
    // A batch with a known first sequence but another range is not a duplicate.
    expect(await errorOf(log.appendAsLeader(idempotentBatch(10, 1)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('refuses a gap (45), an old epoch (47), and a new epoch not starting at 0', async () => {
    await log.appendAsLeader(idempotentBatch(0, 2, 1));
    expect(await errorOf(log.appendAsLeader(idempotentBatch(3, 1, 1)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(await errorOf(log.appendAsLeader(idempotentBatch(2, 1, 0)))).toBe('INVALID_PRODUCER_EPOCH');
    expect(await errorOf(log.appendAsLeader(idempotentBatch(5, 1, 2)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(log.logEndOffset).toBe(2);
    // Epoch bump at sequence 0 (KIP-360): accepted, and the old epoch's batches are forgotten.
    expect((await log.appendAsLeader(idempotentBatch(0, 1, 2))).firstOffset).toBe(2);
    expect(await errorOf(log.appendAsLeader(idempotentBatch(1, 1, 2)))).toBe('NONE');
    expect(log.producerStateManager.lastEntry(PID)).toMatchObject({ producerEpoch: 2 });
    expect(log.producerStateManager.lastEntry(PID)?.batches.map((b) => [b.firstSeq, b.lastSeq])).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it('accepts an unknown producer at any sequence (Kafka 2.8, KIP-360), then checks it', async () => {
    expect((await log.appendAsLeader(idempotentBatch(42, 2))).firstOffset).toBe(0);
    expect(await errorOf(log.appendAsLeader(idempotentBatch(45, 1)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
    expect(await errorOf(log.appendAsLeader(idempotentBatch(44, 1)))).toBe('NONE');
  });

  it('keeps producers apart and lets followers write what their leader wrote, gaps included', async () => {
    await log.appendAsLeader(idempotentBatch(0, 1, 0, 7));
    await log.appendAsLeader(idempotentBatch(0, 1, 0, 8));
    const follower = idempotentBatch(5, 1, 0, 7);
    new RecordBatch(follower).baseOffset = 2;
    await log.appendAsFollower(follower);
    expect(log.producerStateManager.lastEntry(7)?.lastSeq).toBe(5);
    expect(log.producerStateManager.lastEntry(8)?.lastSeq).toBe(0);
  });

  it('tracks an open transaction and completes it on its marker', async () => {
    await log.appendAsLeader(idempotentBatch(0, 2, 0, PID, { transactional: true }));
    await log.appendAsLeader(idempotentBatch(2, 1, 0, PID, { transactional: true }));
    const psm = log.producerStateManager;
    expect(psm.firstUndecidedOffset()).toBe(0);
    expect(psm.firstUnstableOffset()).toBe(0);
    expect(await errorOf(log.appendAsLeader(idempotentBatch(3, 1)))).toBe('INVALID_TXN_STATE');
    await log.appendAsLeader(marker(1), 0, 'coordinator');
    expect(psm.firstUndecidedOffset()).toBeUndefined();
    expect(psm.firstUnstableOffset()).toBe(0);
    psm.onHighWatermarkUpdated(4);
    expect(psm.firstUnstableOffset()).toBeUndefined();
    expect(psm.lastEntry(PID)).toMatchObject({ coordinatorEpoch: 3, currentTxnFirstOffset: -1 });
    expect(await errorOf(log.appendAsLeader(marker(0, 0, 2), 0, 'coordinator'))).toBe('TRANSACTION_COORDINATOR_FENCED');
  });
});

describe('producer snapshots', () => {
  let fx: LogFixture;
  beforeAll(() => silenceLogging());
  afterAll(() => restoreLogging());
  beforeEach(() => {
    fx = logFixture();
  });
  afterEach(() => fx.cleanup());

  it('round-trips Kafka’s version-1 layout and refuses a bad CRC or version', () => {
    const entries = [new ProducerStateEntry(5, 2, [new BatchMetadata(9, 41, 3, 1234)], 7, 1234, 30), new ProducerStateEntry(6, 0, [], -1, 99, -1)];
    const buf = encodeProducerSnapshot(entries);
    expect(buf.length).toBe(2 + 4 + 4 + 2 * 46);
    expect(buf.readInt16BE(0)).toBe(1);
    const back = decodeProducerSnapshot(buf);
    expect(back[0]).toMatchObject({ producerId: 5, producerEpoch: 2, coordinatorEpoch: 7, lastTimestamp: 1234, currentTxnFirstOffset: 30 });
    expect(back[0]?.batches[0]).toMatchObject({ lastSeq: 9, lastOffset: 41, offsetDelta: 3, firstSeq: 6 });
    // No batch (last offset -1): no batch metadata, as Kafka's readSnapshot.
    expect(back[1]?.batches).toEqual([]);
    const corrupt = Buffer.from(buf);
    corrupt[20] = (corrupt[20] as number) ^ 0xff;
    expect(() => decodeProducerSnapshot(corrupt)).toThrow(CorruptSnapshotError);
    expect(() => decodeProducerSnapshot(corrupt)).toThrow(/Snapshot is corrupt \(CRC is no longer valid\)/);
    // kafka-dump-log reads the same bytes and prints Kafka's line.
    expect(formatProducerSnapshotEntry(dumpToolRead(buf)[0] as never)).toBe(
      'producerId: 5 producerEpoch: 2 coordinatorEpoch: 7 currentTxnFirstOffset: Some(30) firstSequence: 6 lastSequence: 9 lastOffset: 41 offsetDelta: 3 timestamp: 1234',
    );
    const v2 = Buffer.from(buf);
    v2.writeInt16BE(2, 0);
    expect(() => decodeProducerSnapshot(v2)).toThrow('Snapshot contained an unknown file version 2');
  });

  const snapshotsIn = (dir: string): string[] => fs.readdirSync(dir).filter((n) => n.endsWith('.snapshot')).sort();

  it('writes one at each roll and at a clean close; a restart detects duplicates from it', async () => {
    let log = fx.open({ 'segment.bytes': '300' });
    for (let i = 0; i < 8; i++) await log.appendAsLeader(idempotentBatch(i * 2));
    expect(log.numberOfSegments).toBeGreaterThan(2);
    const bases = log.logSegments().map((s) => s.baseOffset);
    // A snapshot at every rolled segment's base offset (the first segment's, 0, has no state to save).
    expect(snapshotsIn(fx.logDir)).toEqual(bases.slice(1).map((b) => `${String(b).padStart(20, '0')}.snapshot`));
    await log.close();
    expect(snapshotsIn(fx.logDir)).toContain('00000000000000000016.snapshot');
    expect(readProducerSnapshot(path.join(fx.logDir, '00000000000000000016.snapshot'))[0]).toMatchObject({ producerId: PID, lastSeq: 15 });
    log = fx.open({ 'segment.bytes': '300' }, { hadCleanShutdown: true });
    expect((await log.appendAsLeader(idempotentBatch(14))).firstOffset).toBe(14);
    expect(log.logEndOffset).toBe(16);
    expect(await errorOf(log.appendAsLeader(idempotentBatch(17)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('after a crash, rebuilds from the latest snapshot plus the log after it', async () => {
    const first = fx.open({ 'segment.bytes': '300' });
    for (let i = 0; i < 8; i++) await first.appendAsLeader(idempotentBatch(i * 2));
    await first.flush();
    // No close: no snapshot at the end. The tail after the last roll's snapshot is replayed.
    const log = fx.open({ 'segment.bytes': '300' }, { hadCleanShutdown: false, recoveryPoint: 0 });
    expect(log.logEndOffset).toBe(16);
    expect(log.producerStateManager.lastEntry(PID)?.lastSeq).toBe(15);
    // The snapshot holds each producer's last batch; the batches after it come back from the log.
    const snapshot = Math.max(...first.logSegments().map((s) => s.baseOffset));
    expect(snapshot).toBeGreaterThan(2);
    for (let seq = snapshot - 2; seq < 16; seq += 2) expect((await log.appendAsLeader(idempotentBatch(seq))).firstOffset).toBe(seq);
    expect(log.logEndOffset).toBe(16);
  });

  it('skips a corrupt snapshot for the one before it', async () => {
    const first = fx.open({ 'segment.bytes': '300' });
    for (let i = 0; i < 8; i++) await first.appendAsLeader(idempotentBatch(i * 2));
    await first.flush();
    const latest = snapshotsIn(fx.logDir).pop() as string;
    const file = path.join(fx.logDir, latest);
    const bytes = fs.readFileSync(file);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] as number) ^ 1;
    fs.writeFileSync(file, bytes);
    const log = fx.open({ 'segment.bytes': '300' }, { hadCleanShutdown: false });
    expect(log.producerStateManager.lastEntry(PID)?.lastSeq).toBe(15);
    // Deleted, then written again from the older snapshot and the log replayed after it.
    expect(() => readProducerSnapshot(file)).not.toThrow();
  });

  it('truncation removes newer snapshots and rewinds the state; retention deletes snapshots with their segments', async () => {
    const log = fx.open({ 'segment.bytes': '300', 'retention.bytes': '1' });
    for (let i = 0; i < 8; i++) await log.appendAsLeader(idempotentBatch(i * 2));
    await log.truncateTo(6);
    expect(log.logEndOffset).toBe(6);
    expect(snapshotsIn(fx.logDir).every((n) => Number(n.slice(0, 20)) <= 6)).toBe(true);
    expect(log.producerStateManager.lastEntry(PID)?.lastSeq).toBe(5);
    expect((await log.appendAsLeader(idempotentBatch(6))).firstOffset).toBe(6);
    for (let i = 4; i < 8; i++) await log.appendAsLeader(idempotentBatch(i * 2));
    log.updateHighWatermark(log.logEndOffset);
    const before = log.logSegments().map((s) => s.baseOffset);
    expect(await log.deleteOldSegments()).toBeGreaterThan(0);
    const after = new Set(log.logSegments().map((s) => s.baseOffset));
    for (const b of before) if (!after.has(b)) expect(fs.existsSync(path.join(fx.logDir, `${String(b).padStart(20, '0')}.snapshot`))).toBe(false);
    // Kafka 2.8 keeps the producer's state when its data is deleted: its next batch is still checked.
    expect(await errorOf(log.appendAsLeader(idempotentBatch(18)))).toBe('OUT_OF_ORDER_SEQUENCE_NUMBER');
  });

  it('expires producers idle for the expiration time without an open transaction', () => {
    const dir = makeTempDir();
    try {
      const psm = new ProducerStateManager({ topic: 't', partition: 0 }, dir, 1000, true);
      const b = new RecordBatch(idempotentBatch(0, 1, 0, PID, { timestamp: 5000 }));
      psm.append(b, 'client');
      psm.removeExpiredProducers(5999);
      expect(psm.lastEntry(PID)).toBeDefined();
      psm.removeExpiredProducers(6000);
      expect(psm.lastEntry(PID)).toBeUndefined();
    } finally {
      removeDir(dir);
    }
  });
});
