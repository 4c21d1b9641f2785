import fc from 'fast-check';
import { CompressionType } from '../../../src/records/compression-type';
import { RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { recordPayloadSizes } from '../../../src/records/record-payload-sizes';

const recordArb = fc.record({
  key: fc.option(fc.uint8Array({ maxLength: 300 }), { nil: null }),
  value: fc.option(fc.uint8Array({ maxLength: 3000 }), { nil: null }),
  headers: fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }) }), { maxLength: 3 }),
  gap: fc.integer({ min: 1, max: 3 }),
});

describe('recordPayloadSizes', () => {
  it('agrees with decoding every record, for any records, codec, gaps and start offset', () => {
    fc.assert(
      fc.property(
        fc.array(recordArb, { minLength: 1, maxLength: 40 }),
        fc.constantFrom(CompressionType.NONE, CompressionType.GZIP, CompressionType.LZ4),
        fc.nat({ max: 200 }),
        (inputs, compression, from) => {
          const builder = new RecordBatchBuilder({ baseOffset: 100, compression });
          let offset = 100;
          for (const r of inputs) {
            builder.append({
              offset,
              key: r.key === null ? null : Buffer.from(r.key),
              value: r.value === null ? null : Buffer.from(r.value),
              headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
            });
            offset += r.gap;
          }
          const batch = new RecordBatch(builder.build());
          const fromOffset = 100 + from;
          const kept = batch.records().filter((r) => r.offset >= fromOffset);
          expect(recordPayloadSizes(batch, fromOffset)).toEqual({
            count: kept.length,
            bytes: kept.reduce((n, r) => n + (r.key?.length ?? 0) + (r.value?.length ?? 0), 0),
          });
        },
      ),
      { seed: 20261129, numRuns: 200 },
    );
  });

  it('rejects a record whose length runs past the batch', () => {
    const builder = new RecordBatchBuilder({});
    builder.append({ value: Buffer.from('hello') });
    const bytes = builder.build();
    bytes[61] = 0x7e; // record length varint: 63, far past the end
    expect(() => recordPayloadSizes(new RecordBatch(bytes), 0)).toThrow(/Invalid record length/);
  });
});
