/**
 * Cost of validating records on append (a script, not a test): `node --import tsx bench/validation-bench.ts`.
 *
 * For each case — batches as producers send them — it times, in one process and interleaved rounds:
 *   before   the validation the log did until the record walk existed: batch header checks, CRC-32C and the
 *            in-place offset assignment, no per-record work (a faithful copy of that code path, below);
 *   after    validateAndAssignOffsets as it is now: the same plus the walk over every record (in place when
 *            uncompressed, over the inflated copy when compressed);
 *   walk     walkBatchRecords alone;
 *   append   Log.appendAsLeader with 8 appends in flight (validation + index + writes to the page cache), the
 *            whole path the validation is part of.
 * The best of several rounds (each the best of many short windows) counts. Prints one line per case:
 *   bench:validation case=<c> batch_bytes=<n> records=<n> before_us=<n> after_us=<n> walk_us=<n> append_us=<n>
 *     walk_share_of_append=<ratio> after_vs_before=<ratio> added_share_of_append=<(after - before) / append>
 * Cases: 16 KiB batches of 100-byte and 10-byte records, a 1 MiB batch, and 16 KiB batches with each codec
 * (record values of random lower-case letters, which compress about as real text does).
 * Environment: BENCH_LOG_DIR (default os.tmpdir()), BENCH_ROUNDS (default 5).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Scheduler } from '../src/common/scheduler';
import { SystemClock } from '../src/common/time';
import { createLogConfig, LogConfig } from '../src/common/config/log-config';
import { KafkaError } from '../src/common/kafka-error';
import { Log } from '../src/log/log';
import { validateAndAssignOffsets } from '../src/log/log-validator';
import { CompressionType } from '../src/records/compression-type';
import { LOG_OVERHEAD, MAGIC_OFFSET, RECORD_BATCH_OVERHEAD, RecordBatch } from '../src/records/record-batch';
import { RecordBatchBuilder } from '../src/records/record-batch-builder';
import { CHECK_OFFSET_DELTAS, walkBatchRecords } from '../src/records/record-batch-validator';

const MiB = 1 << 20;
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const clock = new SystemClock();
const scheduler = new Scheduler(clock);
const root = fs.mkdtempSync(path.join(process.env['BENCH_LOG_DIR'] ?? os.tmpdir(), 'kafka-ts-validation-bench-'));
const config = createLogConfig({}, { 'max.message.bytes': String(2 * MiB) });

/** Record values with some entropy (lower-case text), so that compressed cases compress like real payloads. */
function value(size: number, seed: number): Buffer {
  const b = Buffer.allocUnsafe(size);
  let s = seed;
  for (let i = 0; i < size; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    b[i] = 97 + (s % 26);
  }
  return b;
}

function buildBatch(targetBytes: number, recordBytes: number, compression: CompressionType): Buffer {
  const builder = new RecordBatchBuilder({ compression, initialCapacity: targetBytes });
  const now = Date.now();
  let i = 0;
  // the uncompressed size is the target: a producer's batch.size counts (estimated) bytes before compression
  while (builder.estimatedSizeInBytes() + recordBytes + 10 <= targetBytes) builder.append({ timestamp: now + (i % 7), key: null, value: value(recordBytes, i++) });
  return builder.build();
}

/**
 * The append validation before the record walk (header checks, CRC, offsets assigned in place), kept here only
 * as the benchmark's baseline.
 */
function validateBefore(input: Buffer, nextOffset: number, cfg: LogConfig): number {
  let pos = 0;
  const batches: RecordBatch[] = [];
  while (pos < input.length) {
    if (pos + LOG_OVERHEAD > input.length) throw new KafkaError('CORRUPT_MESSAGE', 'truncated');
    const size = LOG_OVERHEAD + input.readInt32BE(pos + 8);
    if (size < RECORD_BATCH_OVERHEAD || pos + size > input.length) throw new KafkaError('CORRUPT_MESSAGE', 'bad size');
    if (input.readInt8(pos + MAGIC_OFFSET) !== 2) throw new KafkaError('CORRUPT_MESSAGE', 'bad magic');
    batches.push(new RecordBatch(input, pos));
    pos += size;
  }
  for (const b of batches) {
    if (b.sizeInBytes > cfg.maxMessageBytes) throw new KafkaError('MESSAGE_TOO_LARGE');
    b.ensureValid();
    void b.compressionType;
    const count = b.recordsCount;
    if (count <= 0 || b.lastOffsetDelta + 1 !== count) throw new KafkaError('INVALID_RECORD');
    if (b.isControlBatch) throw new KafkaError('INVALID_RECORD');
    if (b.producerId >= 0 && b.baseSequence < 0) throw new KafkaError('INVALID_RECORD');
  }
  let next = nextOffset;
  for (const b of batches) {
    b.baseOffset = next;
    b.partitionLeaderEpoch = 0;
    next += b.lastOffsetDelta + 1;
  }
  return next;
}

function nowNs(): bigint {
  return process.hrtime.bigint();
}

/**
 * µs per call of `fn` over `pool`: the best of many short windows, which shrugs off windows where other
 * processes of a shared host took the CPU.
 */
function timePerBatch(pool: Buffer[], fn: (b: Buffer, i: number) => void, windows = 40, windowMs = 10): number {
  let best = Infinity;
  let n = 0;
  for (let w = 0; w < windows; w++) {
    const start = nowNs();
    let calls = 0;
    while (Number(nowNs() - start) < windowMs * 1e6) {
      for (let i = 0; i < 20; i++, n++, calls++) fn(pool[n % pool.length] as Buffer, n);
    }
    best = Math.min(best, Number(nowNs() - start) / calls / 1000);
  }
  return best;
}

async function timeAppend(name: string, batch: Buffer, n: number): Promise<number> {
  const log = Log.open({ dir: path.join(root, `${name}-0`), config, clock, scheduler });
  const pool = Array.from({ length: 16 }, () => Buffer.from(batch));
  const inFlight = new Set<Promise<unknown>>();
  const start = nowNs();
  for (let i = 0; i < n; i++) {
    if (inFlight.size >= 8) await Promise.race(inFlight);
    const b = pool[i % pool.length] as Buffer;
    b.fill(0, 0, 8); // the log rewrote baseOffset in place the last time; a client's is 0
    const p: Promise<unknown> = log.appendAsLeader(b).then(() => inFlight.delete(p));
    inFlight.add(p);
  }
  await Promise.all(inFlight);
  const us = Number(nowNs() - start) / n / 1000;
  await log.delete();
  return us;
}

async function benchCase(label: string, batchBytes: number, recordBytes: number, compression: CompressionType): Promise<void> {
  const batch = buildBatch(batchBytes, recordBytes, compression);
  const records = new RecordBatch(batch).recordsCount;
  const pool = Array.from({ length: 16 }, () => Buffer.from(batch));
  const params = { nextOffset: 0, config, now: Date.now(), leaderEpoch: 0, origin: 'client' as const };
  let before = Infinity;
  let after = Infinity;
  let walk = Infinity;
  let append = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    before = Math.min(before, timePerBatch(pool, (b) => validateBefore(b, 0, config)));
    after = Math.min(
      after,
      timePerBatch(pool, (b) => {
        b.fill(0, 0, 8); // a client's baseOffset is 0; the previous round rewrote it
        validateAndAssignOffsets(b, params);
      }),
    );
    walk = Math.min(walk, timePerBatch(pool, (b) => walkBatchRecords(new RecordBatch(b), CHECK_OFFSET_DELTAS, 128 * MiB)));
    append = Math.min(append, await timeAppend(`${label}-${r}`, batch, Math.max(200, Math.ceil((64 * MiB) / batch.length))));
  }
  console.log(
    `bench:validation case=${label} batch_bytes=${batch.length} records=${records} before_us=${before.toFixed(2)} after_us=${after.toFixed(2)} ` +
      `walk_us=${walk.toFixed(2)} append_us=${append.toFixed(2)} walk_share_of_append=${(walk / append).toFixed(3)} ` +
      `after_vs_before=${(after / before).toFixed(3)} added_share_of_append=${((after - before) / append).toFixed(3)}`,
  );
}

async function main(): Promise<void> {
  try {
    await benchCase('16KiB-100B', 16 * 1024, 100, CompressionType.NONE);
    await benchCase('16KiB-10B', 16 * 1024, 10, CompressionType.NONE);
    await benchCase('1MiB-100B', MiB, 100, CompressionType.NONE);
    await benchCase('16KiB-100B-lz4', 16 * 1024, 100, CompressionType.LZ4);
    await benchCase('16KiB-100B-snappy', 16 * 1024, 100, CompressionType.SNAPPY);
    await benchCase('16KiB-100B-zstd', 16 * 1024, 100, CompressionType.ZSTD);
    await benchCase('16KiB-100B-gzip', 16 * 1024, 100, CompressionType.GZIP);
  } finally {
    await scheduler.shutdown();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

void main();
