import * as fs from 'node:fs';
import { LogCleaner } from '../../../src/log/log-cleaner';
import { Log } from '../../../src/log/log';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { quietLogging } from '../../helpers/quiet-logging';
import { LogFixture, logFixture } from './log-test-utils';

const COMPACT = { 'cleanup.policy': 'compact', 'delete.retention.ms': '1000' };
const TS = 1_600_000_000_000; // the fixture's MockClock start: no record is younger than min.compaction.lag.ms

/** A batch of keyed records; transactional (or just idempotent) when a producer id is given. */
function batch(entries: Array<[string, string | null]>, producer?: { id: number; seq: number; txn?: boolean }, compression = CompressionType.NONE): Buffer {
  const b = new RecordBatchBuilder({
    compression,
    producerId: producer?.id ?? -1,
    producerEpoch: producer === undefined ? -1 : 0,
    baseSequence: producer?.seq ?? -1,
    isTransactional: producer?.txn ?? producer !== undefined,
  });
  for (const [k, v] of entries) b.append({ timestamp: TS, key: Buffer.from(k), value: v === null ? null : Buffer.from(v) });
  return b.build();
}

/** A COMMIT (1) or ABORT (0) marker of `producerId`, as the coordinator writes it. */
function marker(producerId: number, type: 0 | 1): Buffer {
  const b = new RecordBatchBuilder({ producerId, producerEpoch: 0, baseSequence: -1, isTransactional: true, isControlBatch: true });
  const key = Buffer.alloc(4);
  key.writeInt16BE(type, 2);
  const value = Buffer.alloc(6);
  value.writeInt32BE(0, 2);
  b.append({ timestamp: TS, key, value });
  return b.build();
}

function allBatches(log: Log): RecordBatch[] {
  const out: RecordBatch[] = [];
  let o = log.logStartOffset;
  while (o < log.logEndOffset) {
    const found = batchesIn(log.read(o, 1 << 20).records);
    if (found.length === 0) break;
    for (const b of found) out.push(new RecordBatch(Buffer.from(b.bytes())));
    o = found[found.length - 1]!.nextOffset;
  }
  return out;
}

/** What a read_uncommitted consumer gets: every data record. */
function uncommitted(log: Log): Array<[number, string, string | null]> {
  const out: Array<[number, string, string | null]> = [];
  for (const b of allBatches(log)) if (!b.isControlBatch) for (const r of b.records()) out.push([r.offset, r.key?.toString() ?? '', r.value?.toString() ?? null]);
  return out;
}

/** What a read_committed consumer gets (Kafka's Fetcher over the log's aborted transactions): no aborted data. */
function committed(log: Log): Array<[number, string, string | null]> {
  const pending = [...log.collectAbortedTransactions(log.logStartOffset, log.logEndOffset)].sort((a, b) => a.firstOffset - b.firstOffset);
  const aborting = new Set<number>();
  const out: Array<[number, string, string | null]> = [];
  for (const b of allBatches(log)) {
    while (pending.length > 0 && pending[0]!.firstOffset <= b.lastOffset) aborting.add(pending.shift()!.producerId);
    if (b.isControlBatch) {
      const key = b.records()[0]?.key;
      if (key !== undefined && key !== null && key.readInt16BE(2) === 0) aborting.delete(b.producerId);
      continue;
    }
    if (b.isTransactional && aborting.has(b.producerId)) continue;
    for (const r of b.records()) out.push([r.offset, r.key?.toString() ?? '', r.value?.toString() ?? null]);
  }
  return out;
}

function markerOffsets(log: Log): number[] {
  return allBatches(log).filter((b) => b.isControlBatch && b.recordsCount > 0).map((b) => b.baseOffset);
}

/** Sets the modification time of every segment below `offset`, as if written `ageMs` before now. */
function age(log: Log, belowOffset: number, ageMs: number): void {
  const t = (Date.now() - ageMs) / 1000;
  for (const s of log.logSegments()) if (s.baseOffset < belowOffset) fs.utimesSync(s.file, t, t);
}

describe('LogCleaner and transactions', () => {
  let f: LogFixture;
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  beforeEach(() => {
    f = logFixture('compacted-txn-0');
  });
  afterEach(async () => {
    await f.cleanup();
  });

  /** One batch per segment, so the round's transaction metadata has to span segments. */
  async function appendEach(log: Log, batches: Array<[Buffer, 'client' | 'coordinator']>): Promise<void> {
    for (const [bytes, origin] of batches) {
      await log.appendAsLeader(bytes, 0, origin);
      await log.roll();
    }
  }

  it('removes aborted data, keeps committed data, and keeps markers until the delete horizon has passed', async () => {
    const log = f.open(COMPACT);
    await appendEach(log, [
      [batch([['k5', 'old']]), 'client'], // 0
      [batch([['k1', 'a1']], { id: 1, seq: 0 }), 'client'], // 1: P1's first transaction
      [marker(1, 1), 'coordinator'], // 2: COMMIT
      [batch([['k5', 'x'], ['k3', 'x']], { id: 2, seq: 0 }), 'client'], // 3-4: P2's transaction
      [marker(2, 0), 'coordinator'], // 5: ABORT
      [batch([['k2', 'b']]), 'client'], // 6
      [batch([['k1', 'c']], { id: 1, seq: 1 }), 'client'], // 7: P1's second transaction
      [marker(1, 1), 'coordinator'], // 8: COMMIT
      [batch([['k4', 'd']], { id: 2, seq: 2 }), 'client'], // 9
      [marker(2, 1), 'coordinator'], // 10: COMMIT
    ]);
    await log.appendAsLeader(batch([['z', 'active']]));
    log.updateHighWatermark(log.logEndOffset);
    expect(log.lastStableOffset).toBe(12);
    const committedBefore = committed(log);
    const cleaner = new LogCleaner(f.clock);

    await cleaner.clean(log);
    // The aborted write of k5 neither survives nor hides the value it would have replaced.
    expect(uncommitted(log)).toEqual([
      [0, 'k5', 'old'],
      [6, 'k2', 'b'],
      [7, 'k1', 'c'],
      [9, 'k4', 'd'],
      [11, 'z', 'active'],
    ]);
    expect(committed(log)).toEqual(committedBefore.filter(([o]) => o !== 1));
    // This round met data of each of them: all markers stay, the abort's entry moved into the cleaned index.
    expect(markerOffsets(log)).toEqual([2, 5, 8, 10]);
    expect(log.collectAbortedTransactions(0, log.logEndOffset)).toEqual([{ producerId: 2, firstOffset: 3, lastOffset: 5, lastStableOffset: 6 }]);
    expect(log.firstDirtyOffset).toBe(11);

    // Within delete.retention.ms of the newest cleaned segment: the markers stay although no data refers to them.
    await cleaner.clean(log);
    expect(markerOffsets(log)).toEqual([2, 5, 8, 10]);

    // Once their segments are older than the horizon the markers without data go; P1's second COMMIT still has data.
    age(log, 7, 10_000);
    await cleaner.clean(log);
    expect(markerOffsets(log)).toEqual([8, 10]);
    expect(log.collectAbortedTransactions(0, log.logEndOffset)).toEqual([]);
    expect(uncommitted(log).map(([o]) => o)).toEqual([0, 6, 7, 9, 11]);
    for (const b of allBatches(log)) expect(b.isValid()).toBe(true);

    // A reopened log reads the same, and rebuilds the same producer state from what the cleaner left.
    const before = allBatches(log).map((b) => b.bytes().toString('hex'));
    const p1 = log.producerStateManager.lastEntry(1)!;
    await log.close();
    for (const n of fs.readdirSync(f.logDir)) if (n.endsWith('.snapshot')) fs.rmSync(`${f.logDir}/${n}`);
    const again = f.open(COMPACT);
    expect(allBatches(again).map((b) => b.bytes().toString('hex'))).toEqual(before);
    expect(again.producerStateManager.lastEntry(1)?.lastSeq).toBe(p1.lastSeq);
    expect(again.producerStateManager.lastEntry(2)?.lastSeq).toBe(2);
  });

  it('keeps each producer’s last batch, emptied of its records, so its sequence and epoch survive', async () => {
    const log = f.open(COMPACT);
    await appendEach(log, [
      [batch([['k', 'idempotent']], { id: 7, seq: 0, txn: false }, CompressionType.GZIP), 'client'], // 0: P7's last batch
      [batch([['a', 'x'], ['b', 'x']], { id: 8, seq: 0 }), 'client'], // 1-2: P8's only transaction
      [marker(8, 0), 'coordinator'], // 3: ABORT
      [batch([['k', 'newer']]), 'client'], // 4
    ]);
    await log.appendAsLeader(batch([['z', 'active']]));
    log.updateHighWatermark(log.logEndOffset);
    await new LogCleaner(f.clock).clean(log);

    expect(uncommitted(log)).toEqual([
      [4, 'k', 'newer'],
      [5, 'z', 'active'],
    ]);
    const kept = allBatches(log).filter((b) => b.producerId >= 0 && !b.isControlBatch);
    expect(kept.map((b) => [b.producerId, b.baseOffset, b.lastOffset, b.baseSequence, b.recordsCount, b.compressionType, b.isTransactional])).toEqual([
      [7, 0, 0, 0, 0, CompressionType.NONE, false],
      [8, 1, 2, 0, 0, CompressionType.NONE, true],
    ]);
    for (const b of kept) expect(b.isValid()).toBe(true);
    // The aborted batch is still met by every round, so its ABORT marker and index entry stay with it, past the
    // delete horizon too: without the marker the rebuilt state would hold P8's transaction open for good.
    age(log, 4, 10_000);
    await new LogCleaner(f.clock).clean(log);
    expect(markerOffsets(log)).toEqual([3]);
    expect(log.collectAbortedTransactions(0, log.logEndOffset).map((t) => t.producerId)).toEqual([8]);

    // Rebuilt from the log alone, the producers are where they were: a retry of P7's batch is still a duplicate.
    await log.close();
    for (const n of fs.readdirSync(f.logDir)) if (n.endsWith('.snapshot')) fs.rmSync(`${f.logDir}/${n}`);
    const again = f.open(COMPACT);
    expect(again.producerStateManager.lastEntry(7)?.lastSeq).toBe(0);
    expect(again.producerStateManager.lastEntry(8)?.lastSeq).toBe(1);
    expect(again.producerStateManager.firstUndecidedOffset()).toBeUndefined();
    const retry = await again.appendAsLeader(batch([['k', 'idempotent']], { id: 7, seq: 0, txn: false }));
    expect(retry.firstOffset).toBe(0);
    expect(again.logEndOffset).toBe(6);
  });

  it('never touches what lies at or above the last stable offset', async () => {
    const log = f.open(COMPACT);
    await appendEach(log, [
      [batch([['k', 'v0']]), 'client'], // 0
      [batch([['k', 'open']], { id: 3, seq: 0 }), 'client'], // 1: P3's transaction, still open
      [batch([['k', 'v2']]), 'client'], // 2
      [batch([['k', 'v3']]), 'client'], // 3
    ]);
    await log.appendAsLeader(batch([['z', 'active']]));
    log.updateHighWatermark(log.logEndOffset);
    expect(log.lastStableOffset).toBe(1);
    expect(log.cleanableSegments().map((s) => s.baseOffset)).toEqual([0]);
    const cleaner = new LogCleaner(f.clock);
    await cleaner.clean(log);
    expect(uncommitted(log).map(([o, , v]) => [o, v])).toEqual([
      [0, 'v0'],
      [1, 'open'],
      [2, 'v2'],
      [3, 'v3'],
      [4, 'active'],
    ]);

    // Decided (and replicated), the transaction no longer holds the cleaner back.
    await log.appendAsLeader(marker(3, 1), 0, 'coordinator'); // 5
    await log.roll();
    await log.appendAsLeader(batch([['z', 'active2']]));
    expect(log.cleanableSegments().map((s) => s.baseOffset)).toEqual([0]);
    log.updateHighWatermark(log.logEndOffset);
    await cleaner.clean(log);
    expect(uncommitted(log).map(([o]) => o)).toEqual([3, 4, 6]);
    expect(allBatches(log).find((b) => b.baseOffset === 1)?.recordsCount).toBe(0);
  });
});

describe('LogCleaner and transactions against a model', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());

  it('keeps what read_committed readers see, removes aborted data, keeps each producer’s last batch', async () => {
    const fc = (await import('fast-check')).default;
    type Op = { kind: 'plain'; key: number; value: number | null } | { kind: 'txn'; producer: number; keys: number[] } | { kind: 'end'; producer: number; commit: boolean } | { kind: 'roll' };
    const op: import('fast-check').Arbitrary<Op> = fc.oneof(
      fc.record({ kind: fc.constant('plain' as const), key: fc.integer({ min: 0, max: 4 }), value: fc.option(fc.integer({ min: 0, max: 99 }), { nil: null, freq: 4 }) }),
      fc.record({ kind: fc.constant('txn' as const), producer: fc.integer({ min: 1, max: 3 }), keys: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 3 }) }),
      fc.record({ kind: fc.constant('end' as const), producer: fc.integer({ min: 1, max: 3 }), commit: fc.boolean() }),
      fc.constant({ kind: 'roll' as const }),
    );
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 3 }), async (ops, rounds) => {
        const f = logFixture(`txnmodel${run++}-0`);
        try {
          const log = f.open(COMPACT);
          const seq = new Map<number, number>();
          const open = new Set<number>();
          const end = async (producer: number, commit: boolean): Promise<void> => {
            await log.appendAsLeader(marker(producer, commit ? 1 : 0), 0, 'coordinator');
            open.delete(producer);
          };
          for (const o of ops) {
            if (o.kind === 'plain') await log.appendAsLeader(batch([[`k${o.key}`, o.value === null ? null : `v${o.value}`]]));
            else if (o.kind === 'txn') {
              const s = seq.get(o.producer) ?? 0;
              await log.appendAsLeader(batch(o.keys.map((k) => [`k${k}`, `p${o.producer}s${s}`]), { id: o.producer, seq: s }));
              seq.set(o.producer, s + o.keys.length);
              open.add(o.producer);
            } else if (o.kind === 'end') {
              if (open.has(o.producer)) await end(o.producer, o.commit);
            } else if (log.activeSegment().size > 0) await log.roll();
          }
          for (const p of [...open]) await end(p, p % 2 === 0);
          await log.roll();
          log.updateHighWatermark(log.logEndOffset);
          const latest = (rows: Array<[number, string, string | null]>): Map<string, string | null> => new Map(rows.map(([, k, v]) => [k, v]));
          const committedBefore = committed(log);
          const uncommittedOffsets = new Set(committedBefore.map(([o]) => o));
          const lastBatches = [...log.producerStateManager.activeProducers].map(([id, e]) => [id, e.lastDataOffset] as const);
          const cleaner = new LogCleaner(f.clock);
          for (let i = 0; i < rounds; i++) {
            // Later rounds: everything but the newest cleaned segment is past the delete horizon.
            const newestCleaned = log.logSegments().filter((s) => s.baseOffset < log.firstDirtyOffset).pop();
            if (newestCleaned !== undefined) age(log, newestCleaned.baseOffset, 10_000);
            await cleaner.clean(log);
          }
          // read_committed: the same latest value of every key, each surviving record as it was
          const after = committed(log);
          expect(latest(after)).toEqual(latest(committedBefore));
          const byOffset = new Map(committedBefore.map((r) => [r[0], r]));
          for (const r of after) expect(byOffset.get(r[0])).toEqual(r);
          // read_uncommitted: nothing of an aborted transaction is left
          for (const [o] of uncommitted(log)) expect(uncommittedOffsets.has(o)).toBe(true);
          // producer state: each producer's last data batch is still there
          const batches = allBatches(log);
          for (const [id, lastOffset] of lastBatches) if (lastOffset >= 0) expect(batches.some((b) => b.producerId === id && b.lastOffset === lastOffset)).toBe(true);
          for (const b of batches) expect(b.isValid()).toBe(true);
        } finally {
          await f.cleanup();
        }
      }),
      { seed: 1616, numRuns: 40 },
    );
  });
});
