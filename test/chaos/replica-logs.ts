import fs from 'node:fs';
import path from 'node:path';
import { batchesIn } from '../../src/records';
import type { LoggedRecord } from './history-checker';

export interface StoredBatch {
  lastOffset: number;
  bytes: Buffer;
}

/** Every batch a replica holds for a partition, read straight from its segment files, in offset order. */
export function replicaBatches(dataDir: string, topic: string, partition: number): StoredBatch[] {
  const dir = path.join(dataDir, `${topic}-${partition}`);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .flatMap((f) => batchesIn(fs.readFileSync(path.join(dir, f))).map((b) => ({ lastOffset: b.lastOffset, bytes: Buffer.from(b.bytes()) })));
}

/** The bytes of the batches wholly below `highWatermark`, concatenated: what every ISR replica must agree on. */
export function bytesBelow(batches: StoredBatch[], highWatermark: number): Buffer {
  return Buffer.concat(batches.filter((b) => b.lastOffset < highWatermark).map((b) => b.bytes));
}

/** The records below `highWatermark`, decoded (only the checker does this per-record work, after the run). */
export function recordsBelow(batches: StoredBatch[], partition: number, highWatermark: number): LoggedRecord[] {
  const out: LoggedRecord[] = [];
  for (const b of batchesIn(Buffer.concat(batches.map((x) => x.bytes)))) {
    if (b.isControlBatch) continue;
    for (const r of b.records()) if (r.offset < highWatermark) out.push({ partition, offset: r.offset, value: r.value?.toString('utf8') ?? '' });
  }
  return out;
}
