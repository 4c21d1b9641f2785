import * as fs from 'node:fs';
import * as path from 'node:path';
import { Log } from '../../../src/log/log';
import { ABORTED_TXN_SIZE, TransactionIndex } from '../../../src/log/transaction-index';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { formatTxnIndex } from '../../../src/tools/dump-log-segments';
import { quietLogging } from '../../helpers/quiet-logging';
import { logFixture, LogFixture, makeTempDir, removeDir } from './log-test-utils';

/** A transactional batch of `count` records from `producerId`, sequences from `seq`. */
function txnBatch(producerId: number, seq: number, count = 2): Buffer {
  const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId, producerEpoch: 0, baseSequence: seq, isTransactional: true });
  for (let i = 0; i < count; i++) b.append({ timestamp: Date.now(), key: Buffer.from(`k${seq + i}`), value: Buffer.from(`v${seq + i}`) });
  return b.build();
}

/** A COMMIT (1) or ABORT (0) marker of `producerId`. */
function marker(producerId: number, type: 0 | 1): Buffer {
  const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId, producerEpoch: 0, baseSequence: -1, isTransactional: true, isControlBatch: true });
  const key = Buffer.alloc(4);
  key.writeInt16BE(type, 2);
  const value = Buffer.alloc(6);
  value.writeInt32BE(1, 2);
  b.append({ timestamp: Date.now(), key, value });
  return b.build();
}

describe('TransactionIndex (.txnindex)', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(() => removeDir(dir));

  it('writes Kafka’s version 0, 34-byte entries, created only with the first abort', () => {
    const file = path.join(dir, '00000000000000000000.txnindex');
    const index = new TransactionIndex(file);
    expect(fs.existsSync(file)).toBe(false);
    index.append({ producerId: 7, firstOffset: 2, lastOffset: 5, lastStableOffset: 6 });
    index.append({ producerId: 8, firstOffset: 3, lastOffset: 9, lastStableOffset: 10 });
    const bytes = fs.readFileSync(file);
    expect(bytes.length).toBe(2 * ABORTED_TXN_SIZE);
    expect(bytes.readInt16BE(0)).toBe(0);
    expect(bytes.readBigInt64BE(2)).toBe(7n);
    expect(bytes.readBigInt64BE(26)).toBe(6n);
    // kafka-dump-log reads it back as Kafka prints it.
    expect(formatTxnIndex(bytes, file)).toEqual([
      'version: 0 producerId: 7 firstOffset: 2 lastOffset: 5 lastStableOffset: 6',
      'version: 0 producerId: 8 firstOffset: 3 lastOffset: 9 lastStableOffset: 10',
    ]);
    expect(new TransactionIndex(file).allAbortedTxns).toEqual(index.allAbortedTxns);
    expect(() => index.append({ producerId: 9, firstOffset: 1, lastOffset: 9, lastStableOffset: 10 })).toThrow(/must increase sequentially/);
  });

  it('collects what overlaps a fetch range and says when later segments cannot add anything', () => {
    const index = new TransactionIndex(path.join(dir, 'x.txnindex'));
    index.append({ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 5 });
    index.append({ producerId: 2, firstOffset: 6, lastOffset: 10, lastStableOffset: 11 });
    index.append({ producerId: 3, firstOffset: 12, lastOffset: 20, lastStableOffset: 30 });
    expect(index.collectAbortedTxns(5, 8).abortedTransactions.map((t) => t.producerId)).toEqual([2]);
    expect(index.collectAbortedTxns(5, 8).isComplete).toBe(true);
    expect(index.collectAbortedTxns(0, 40).abortedTransactions.map((t) => t.producerId)).toEqual([1, 2, 3]);
    expect(index.collectAbortedTxns(0, 40).isComplete).toBe(false);
    expect(index.collectAbortedTxns(21, 40).abortedTransactions).toEqual([]);
  });

  it('truncates entries whose marker is at or above the offset, in memory and on disk', () => {
    const file = path.join(dir, 'y.txnindex');
    const index = new TransactionIndex(file);
    index.append({ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 5 });
    index.append({ producerId: 2, firstOffset: 6, lastOffset: 10, lastStableOffset: 11 });
    index.truncateTo(10);
    expect(index.allAbortedTxns.map((t) => t.producerId)).toEqual([1]);
    expect(fs.statSync(file).size).toBe(ABORTED_TXN_SIZE);
  });

  it('cuts a torn last entry when loaded', () => {
    const restore = quietLogging();
    try {
      const file = path.join(dir, 'z.txnindex');
      new TransactionIndex(file).append({ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 5 });
      fs.appendFileSync(file, Buffer.alloc(10));
      expect(new TransactionIndex(file).allAbortedTxns.length).toBe(1);
      expect(fs.statSync(file).size).toBe(ABORTED_TXN_SIZE);
    } finally {
      restore();
    }
  });
});

describe('last stable offset and aborted transactions of a Log', () => {
  let fx: LogFixture;
  let restore: () => void;
  beforeEach(() => {
    fx = logFixture();
    restore = quietLogging();
  });
  afterEach(async () => {
    await fx.cleanup();
    restore();
  });

  const hwAtEnd = (log: Log): void => {
    log.updateHighWatermark(log.logEndOffset);
  };

  it('holds the LSO at the first open transaction, bounded by the high watermark', async () => {
    const log = fx.open();
    await log.appendAsLeader(txnBatch(1, 0)); // 0-1, open
    expect(log.lastStableOffset).toBe(0);
    await log.appendAsLeader(txnBatch(2, 0)); // 2-3, open
    hwAtEnd(log);
    expect(log.lastStableOffset).toBe(0);
    await log.appendAsLeader(marker(1, 1), 0, 'coordinator'); // 4: commit of 1
    // Decided, but the marker is not below the HW yet: still unstable.
    expect(log.lastStableOffset).toBe(0);
    hwAtEnd(log);
    expect(log.lastStableOffset).toBe(2);
    await log.appendAsLeader(marker(2, 0), 0, 'coordinator'); // 5: abort of 2
    expect(log.lastStableOffset).toBe(2);
    hwAtEnd(log);
    expect(log.lastStableOffset).toBe(6);
    expect(log.lastStableOffset).toBe(log.highWatermark);
  });

  it('indexes an abort with the LSO it leaves, and collects it for a read_committed fetch', async () => {
    const log = fx.open();
    await log.appendAsLeader(txnBatch(1, 0)); // 0-1
    await log.appendAsLeader(txnBatch(2, 0)); // 2-3
    await log.appendAsLeader(marker(1, 0), 0, 'coordinator'); // 4: abort of 1, 2 still open
    await log.appendAsLeader(marker(2, 1), 0, 'coordinator'); // 5: commit of 2
    hwAtEnd(log);
    expect(log.activeSegment().txnIndex.allAbortedTxns).toEqual([{ producerId: 1, firstOffset: 0, lastOffset: 4, lastStableOffset: 2 }]);
    const read = log.read(0, 1 << 20, log.lastStableOffset);
    expect(log.abortedTransactionsInRead(read, log.lastStableOffset).map((t) => [t.producerId, t.firstOffset])).toEqual([[1, 0]]);
    // A fetch from after the abort's marker finds nothing.
    expect(log.collectAbortedTransactions(5, 6)).toEqual([]);
  });

  it('keeps the index across segments, truncation and a restart, and deletes it with its segment', async () => {
    const log = fx.open({ 'file.delete.delay.ms': '0' });
    await log.appendAsLeader(txnBatch(1, 0)); // 0-1
    await log.appendAsLeader(marker(1, 0), 0, 'coordinator'); // 2: abort
    await log.roll();
    await log.appendAsLeader(txnBatch(2, 0)); // 3-4
    await log.appendAsLeader(marker(2, 0), 0, 'coordinator'); // 5: abort
    hwAtEnd(log);
    const firstIndex = path.join(fx.logDir, '00000000000000000000.txnindex');
    const secondIndex = path.join(fx.logDir, '00000000000000000003.txnindex');
    expect(fs.existsSync(firstIndex) && fs.existsSync(secondIndex)).toBe(true);
    expect(log.collectAbortedTransactions(0, 6).map((t) => t.producerId)).toEqual([1, 2]);
    expect(log.collectAbortedTransactions(3, 6).map((t) => t.producerId)).toEqual([2]);

    await log.truncateTo(5);
    expect(log.collectAbortedTransactions(0, 6).map((t) => t.producerId)).toEqual([1]);
    expect(fs.statSync(secondIndex).size).toBe(0);
    // The open transaction of producer 2 is back: the LSO waits at its first offset.
    expect(log.lastStableOffset).toBe(3);
    await log.appendAsLeader(marker(2, 0), 0, 'coordinator'); // 5 again
    await log.close();

    const reopened = fx.open({ 'file.delete.delay.ms': '0' }, { highWatermark: 6 });
    expect(reopened.collectAbortedTransactions(0, 6).map((t) => t.producerId)).toEqual([1, 2]);
    expect(reopened.lastStableOffset).toBe(6);
    await reopened.maybeIncrementLogStartOffset(3);
    await reopened.deleteOldSegments();
    expect(fs.existsSync(firstIndex)).toBe(false);
    expect(reopened.collectAbortedTransactions(3, 6).map((t) => t.producerId)).toEqual([2]);
  });

  it('rebuilds an index lost in a crash from the replayed markers', async () => {
    const log = fx.open();
    await log.appendAsLeader(txnBatch(1, 0));
    await log.appendAsLeader(marker(1, 0), 0, 'coordinator');
    await log.flush();
    // No clean close: the snapshot at the end is never written, and the index goes missing.
    fs.rmSync(path.join(fx.logDir, '00000000000000000000.txnindex'));
    const reopened = fx.open({}, { recoveryPoint: 0, hadCleanShutdown: false, highWatermark: 3 });
    expect(reopened.collectAbortedTransactions(0, 3)).toEqual([{ producerId: 1, firstOffset: 0, lastOffset: 2, lastStableOffset: 3 }]);
  });
});
