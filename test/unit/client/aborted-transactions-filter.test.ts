import { AbortedTransactionsFilter } from '../../../src/client/aborted-transactions-filter';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';

function batch(producerId: number, baseOffset: number, opts: { transactional?: boolean; marker?: 0 | 1 } = {}): RecordBatch {
  const control = opts.marker !== undefined;
  const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId, producerEpoch: 0, baseSequence: control ? -1 : 0, isTransactional: opts.transactional ?? control, isControlBatch: control, baseOffset });
  if (control) {
    const key = Buffer.alloc(4);
    key.writeInt16BE(opts.marker as number, 2);
    b.append({ timestamp: 1, key, value: Buffer.alloc(6) });
  } else b.append({ timestamp: 1, key: null, value: Buffer.from('v') });
  return [...batchesIn(b.build())][0] as RecordBatch;
}

describe('AbortedTransactionsFilter (read_committed, as Kafka’s Fetcher)', () => {
  it('skips an aborted producer’s transactional batches up to its ABORT marker, and every control batch', () => {
    const filter = new AbortedTransactionsFilter([{ producerId: 7, firstOffset: 1 }]);
    const seen = [
      batch(5, 0, { transactional: true }), // committed later: kept
      batch(7, 1, { transactional: true }), // aborted
      batch(9, 2), // non-transactional: kept
      batch(7, 3, { marker: 0 }), // its ABORT marker
      batch(5, 4, { marker: 1 }), // a COMMIT marker
      batch(7, 5, { transactional: true }), // a later transaction of 7, not listed: kept
    ].map((b) => filter.accepts(b));
    expect(seen).toEqual([true, false, true, false, false, true]);
  });

  it('keeps everything but control batches without aborted transactions', () => {
    const filter = new AbortedTransactionsFilter(null);
    expect([batch(7, 0, { transactional: true }), batch(7, 1, { marker: 1 })].map((b) => filter.accepts(b))).toEqual([true, false]);
  });
});
