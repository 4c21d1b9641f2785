import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { CompressionType } from '../../../src/records/compression-type';
import { batchesIn, RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { TimestampType } from '../../../src/records/timestamp-type';
import { KafkaError } from '../../../src/common/kafka-error';
import { kafkajsBatch } from './kafkajs-batch';

const fixture = (name: string): Buffer =>
  Buffer.from(fs.readFileSync(path.join(__dirname, '../../fixtures/records', name), 'utf8').trim(), 'hex');

describe('RecordBatch', () => {
  it('reads the librdkafka batch captured in the protocol reference', () => {
    const hex =
      '0000000000000000' + '00000049' + '00000000' + '02' + '66ea1e67' + '0000' + '00000002' + '000001a227e8fd4b' + '000001a227e8fd4b' +
      'ffffffffffffffff' + 'ffff' + 'ffffffff' + '00000003' + '0e00000001026100' + '0e00000201026200' + '0e00000401026300';
    const batch = new RecordBatch(Buffer.from(hex, 'hex'));
    expect(batch.sizeInBytes).toBe(85);
    expect(batch.isValid()).toBe(true);
    expect(batch.recordsCount).toBe(3);
    expect(batch.lastOffset).toBe(2);
    expect(batch.producerId).toBe(-1);
    expect(batch.records().map((r) => [r.offset, r.key, r.value?.toString()])).toEqual([
      [0, null, 'a'],
      [1, null, 'b'],
      [2, null, 'c'],
    ]);
  });

  it('decodes kafkajs golden batches (plain and gzip)', () => {
    for (const name of ['kafkajs-2.2.4-batch.hex', 'kafkajs-2.2.4-batch-gzip.hex']) {
      const batch = new RecordBatch(fixture(name));
      batch.ensureValid();
      const records = batch.records();
      expect(records.map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString() ?? null])).toEqual([
        [0, 1700000000000, 'k', 'v'],
        [1, 1700000000005, null, 'second value'],
        [2, 1700000000003, 'tomb', null],
      ]);
      expect(records[1]?.headers.map((h) => [h.key, h.value?.toString()])).toEqual([
        ['h1', 'x'],
        ['trace', 'abc'],
      ]);
    }
  });

  it('builds byte-identical batches to kafkajs for the same input', async () => {
    const msgs = [
      { key: 'a', value: 'one', timestamp: 1700000000000 },
      { key: null, value: 'two', timestamp: 1700000000009, headers: { h: 'v' } },
    ];
    const theirs = await kafkajsBatch(msgs);
    const ours = new RecordBatchBuilder({ partitionLeaderEpoch: 0, producerEpoch: 0, baseSequence: 0 })
      .append({ key: Buffer.from('a'), value: Buffer.from('one'), timestamp: 1700000000000 })
      .append({ key: null, value: Buffer.from('two'), timestamp: 1700000000009, headers: [{ key: 'h', value: Buffer.from('v') }] })
      .build();
    expect(ours.toString('hex')).toBe(theirs.toString('hex'));
  });

  it('round-trips random records through every codec', () => {
    const recordArb = fc.record({
      key: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }),
      value: fc.option(fc.uint8Array({ maxLength: 200 }), { nil: null }),
      dt: fc.integer({ min: 0, max: 100000 }),
      headers: fc.array(fc.record({ key: fc.string({ maxLength: 5 }), value: fc.option(fc.uint8Array({ maxLength: 5 }), { nil: null }) }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 30 }), fc.constantFrom(0, 1, 2, 3, 4), (recs, codec) => {
        const builder = new RecordBatchBuilder({ compression: codec as CompressionType, baseOffset: 100 });
        for (const r of recs) {
          builder.append({
            timestamp: 1_000_000 + r.dt,
            key: r.key === null ? null : Buffer.from(r.key),
            value: r.value === null ? null : Buffer.from(r.value),
            headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
          });
        }
        const batch = new RecordBatch(builder.build());
        batch.ensureValid();
        expect(batch.compressionType).toBe(codec);
        expect(batch.maxTimestamp).toBe(Math.max(...recs.map((r) => 1_000_000 + r.dt)));
        const decoded = batch.records();
        expect(decoded.length).toBe(recs.length);
        decoded.forEach((d, i) => {
          const r = recs[i]!;
          expect(d.offset).toBe(100 + i);
          expect(d.timestamp).toBe(1_000_000 + r.dt);
          expect(d.key === null ? null : [...d.key]).toEqual(r.key === null ? null : [...r.key]);
          expect(d.value === null ? null : [...d.value]).toEqual(r.value === null ? null : [...r.value]);
          expect(d.headers.map((h) => h.key)).toEqual(r.headers.map((h) => h.key));
        });
      }),
      { seed: 1234, numRuns: 60 },
    );
  });

  it('rewrites baseOffset and epoch without touching the CRC, and recomputes it for LogAppendTime', () => {
    const buf = new RecordBatchBuilder().append({ value: Buffer.from('x'), timestamp: 5 }).build();
    const batch = new RecordBatch(buf);
    const crc = batch.checksum;
    batch.baseOffset = 123456789012;
    batch.partitionLeaderEpoch = 7;
    expect(batch.baseOffset).toBe(123456789012);
    expect(batch.checksum).toBe(crc);
    expect(batch.isValid()).toBe(true);
    batch.setLogAppendTime(999);
    expect(batch.timestampType).toBe(TimestampType.LOG_APPEND_TIME);
    expect(batch.maxTimestamp).toBe(999);
    expect(batch.isValid()).toBe(true);
    expect(batch.records()[0]?.timestamp).toBe(999);
  });

  it('detects a flipped bit with CORRUPT_MESSAGE', () => {
    const buf = new RecordBatchBuilder().append({ value: Buffer.from('hello') }).build();
    buf.writeUInt8(buf.readUInt8(buf.length - 2) ^ 0x10, buf.length - 2);
    const batch = new RecordBatch(buf);
    expect(batch.isValid()).toBe(false);
    expect(() => batch.ensureValid()).toThrow(KafkaError);
  });

  it('batchesIn stops at an incomplete trailing batch', () => {
    const a = new RecordBatchBuilder().append({ value: Buffer.from('a') }).build();
    const b = new RecordBatchBuilder().append({ value: Buffer.from('b') }).build();
    const all = Buffer.concat([a, b]);
    expect(batchesIn(all).length).toBe(2);
    expect(batchesIn(all.subarray(0, all.length - 1)).length).toBe(1);
  });
});
