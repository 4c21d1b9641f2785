import fc from 'fast-check';
import { KafkaError } from '../../../src/common/kafka-error';
import { CompressionType } from '../../../src/records/compression-type';
import { RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CHECK_OFFSET_DELTAS, COUNT_NULL_KEYS, recordsWalk, TRACK_MIN_TIMESTAMP, walkBatchRecords, walkRecords } from '../../../src/records/record-batch-validator';
import { RawRecord, rawBatch, rawRecord, rawRecords, varint } from '../../helpers/raw-records';

const CAP = 64 * 1024 * 1024;
const FIRST_TS = 1_600_000_000_000;

/** The KafkaError `walkRecords` throws for `records` in `buf` (with `slack` bytes after them), or undefined. */
function tryWalk(bytes: Buffer, slack: number, count: number, flags: number): KafkaError | undefined {
  const buf = slack === 0 ? bytes : Buffer.concat([bytes, Buffer.alloc(slack, 0xff)]);
  try {
    walkRecords(buf, 0, bytes.length, count, FIRST_TS, flags);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(KafkaError);
    return err as KafkaError;
  }
}

/**
 * The KafkaError the walk throws for `records` (count = records.length unless given), or undefined. Every case
 * runs twice: at the very end of the buffer (each read checked) and with bytes after it (the unchecked fast
 * path); both must come to the same verdict.
 */
function walkError(records: RawRecord[] | Buffer, flags = CHECK_OFFSET_DELTAS, count?: number): KafkaError | undefined {
  const bytes = Buffer.isBuffer(records) ? records : rawRecords(records);
  const n = count ?? (Buffer.isBuffer(records) ? 1 : records.length);
  const fast = tryWalk(bytes, 64, n, flags);
  const fastWalk = { ...recordsWalk };
  const checked = tryWalk(bytes, 0, n, flags);
  expect(fast?.errorName).toBe(checked?.errorName);
  if (checked === undefined) expect(recordsWalk).toEqual(fastWalk);
  return checked;
}

function expectInvalid(records: RawRecord[] | Buffer, message: RegExp, flags = CHECK_OFFSET_DELTAS, count?: number): void {
  const err = walkError(records, flags, count);
  expect(err?.errorName).toBe('INVALID_RECORD');
  expect(err?.message).toMatch(message);
}

const three: RawRecord[] = [{}, {}, {}];

describe('the validation walk over v2 records', () => {
  it('accepts well-formed records and reports their timestamps', () => {
    const records = [{ timestampDelta: 5 }, { timestampDelta: 9, key: null }, { timestampDelta: 2, headers: [{ key: Buffer.from('a'), value: null }] }];
    expect(walkError(records, CHECK_OFFSET_DELTAS | TRACK_MIN_TIMESTAMP)).toBeUndefined();
    expect(recordsWalk).toMatchObject({ maxTimestamp: FIRST_TS + 9, minTimestamp: FIRST_TS + 2, nullKeys: 0 });
    expect(walkError(records)).toBeUndefined();
    expect(recordsWalk).toMatchObject({ maxTimestamp: FIRST_TS + 9, minTimestamp: Infinity });
  });

  it('refuses a record whose length overruns the batch', () => {
    expectInvalid([{}, { sizeDelta: 1 }], /Invalid record size: expected \d+ bytes in record payload, but instead the buffer has only \d+ remaining bytes/);
    expectInvalid([{ sizeDelta: 1000 }], /Invalid record size/);
  });

  it('refuses a record whose fields do not take exactly its declared length', () => {
    // declared longer than the fields, the extra byte inside the batch: the fields end early
    expectInvalid([{ trailing: Buffer.from([0]) }, {}], /Invalid record size: expected to read \d+ bytes in record payload, but instead read \d+/);
    // declared shorter than the fields: a field crosses the record's end
    expectInvalid([{ sizeDelta: -1 }, {}], /Found invalid record structure/);
    expectInvalid([{ sizeDelta: -3 }], /Found invalid record structure|Invalid record size/);
    expectInvalid(Buffer.concat([varint(0)]), /empty record/);
  });

  it('refuses a negative record length', () => {
    expectInvalid(Buffer.concat([varint(-5), rawRecord({}).subarray(1)]), /Invalid record size: expected -5 bytes/);
  });

  it('refuses a record count that does not match the records', () => {
    expectInvalid(rawRecords(three), /Incorrect declared batch size, premature EOF reached/, CHECK_OFFSET_DELTAS, 4);
    expectInvalid(rawRecords(three), /Incorrect declared batch size, records still remaining/, CHECK_OFFSET_DELTAS, 2);
    expectInvalid(Buffer.concat([rawRecords(three), Buffer.from([1, 2])]), /records still remaining/, CHECK_OFFSET_DELTAS, 3);
  });

  it('refuses offset delta gaps and duplicates in client batches, and allows them for replication', () => {
    const gap: RawRecord[] = [{ offsetDelta: 0 }, { offsetDelta: 2 }];
    const duplicate: RawRecord[] = [{ offsetDelta: 0 }, { offsetDelta: 0 }];
    const late: RawRecord[] = [{ offsetDelta: 1 }, { offsetDelta: 2 }];
    for (const records of [gap, duplicate, late]) {
      expectInvalid(records, /Invalid offset delta/);
      expect(walkError(records, 0)).toBeUndefined();
    }
  });

  it('refuses bad header counts, fast even when the count is huge', () => {
    expectInvalid([{ headerCount: -1 }], /Found invalid number of record headers -1/);
    expectInvalid([{ headerCount: 2, headers: [{}] }], /Found invalid record structure/);
    const start = Date.now();
    expectInvalid([{ headerCount: 2 ** 31 - 1, headers: [{}, {}] }], /Found invalid record structure/);
    expect(Date.now() - start).toBeLessThan(100);
    expectInvalid([{ headerCount: 0, headers: [{}] }], /Invalid record size: expected to read/);
  });

  it('refuses negative lengths other than -1 (null)', () => {
    expectInvalid([{ key: Buffer.alloc(0), keyLength: -2 }], /invalid key length -2/);
    expectInvalid([{ value: Buffer.alloc(0), valueLength: -7 }], /invalid value length -7/);
    expectInvalid([{ headers: [{ key: Buffer.alloc(0), keyLength: -1 }] }], /Invalid negative header key size -1/);
    expectInvalid([{ headers: [{ value: Buffer.alloc(0), valueLength: -3 }] }], /invalid header value length -3/);
    expect(walkError([{ key: null, value: null, headers: [{ key: Buffer.from('h'), value: null }] }])).toBeUndefined();
  });

  it('refuses lengths that run past the record', () => {
    expectInvalid([{ key: Buffer.from('ab'), keyLength: 50 }], /key of 50 bytes runs past the end of its record/);
    expectInvalid([{ value: Buffer.from('ab'), valueLength: 50 }], /value of 50 bytes runs past/);
    expectInvalid([{ headers: [{ key: Buffer.from('h'), keyLength: 40 }] }], /header key of 40 bytes runs past/);
    expectInvalid([{ headers: [{ value: Buffer.from('v'), valueLength: 40 }] }], /header value of 40 bytes runs past/);
  });

  it('refuses overlong varints and varlongs', () => {
    const six = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    const eleven = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    // as the record length
    expectInvalid(Buffer.concat([six, Buffer.alloc(20)]), /varint is longer than 5 bytes/);
    // as the offset delta, inside a record
    const body = (parts: Buffer[]): Buffer => {
      const b = Buffer.concat(parts);
      return Buffer.concat([varint(b.length), b]);
    };
    expectInvalid(body([Buffer.from([0]), varint(0), six, varint(-1), varint(-1), varint(0)]), /varint is longer than 5 bytes/);
    expectInvalid(body([Buffer.from([0]), eleven, varint(0), varint(-1), varint(-1), varint(0)]), /varlong is longer than 10 bytes/);
    // a 5-byte varint is fine, and so is a 10-byte varlong
    const five = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x00]);
    const ten = Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]);
    expect(walkError(body([Buffer.from([0]), ten, five, varint(-1), varint(-1), varint(0)]))).toBeUndefined();
  });

  it('counts null keys when asked (compacted topics), without failing', () => {
    expect(walkError([{ key: null }, {}, { key: null }], CHECK_OFFSET_DELTAS | COUNT_NULL_KEYS)).toBeUndefined();
    expect(recordsWalk.nullKeys).toBe(2);
    expect(walkError([{ key: null }], CHECK_OFFSET_DELTAS)).toBeUndefined();
    expect(recordsWalk.nullKeys).toBe(0);
  });

  it('exempts NO_TIMESTAMP (-1) records from the minimum, as Kafka exempts them from the range check', () => {
    const bytes = rawRecords([{ timestampDelta: 0 }, { timestampDelta: 101 }, { timestampDelta: 1000 }]);
    walkRecords(bytes, 0, bytes.length, 3, -1, CHECK_OFFSET_DELTAS | TRACK_MIN_TIMESTAMP);
    expect(recordsWalk).toMatchObject({ maxTimestamp: 999, minTimestamp: 100 });
  });

  it('walks compressed batches after inflating them, with every codec', () => {
    for (const compression of [CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD]) {
      const good = new RecordBatch(rawBatch(rawRecords(three), { count: 3, compression }));
      walkBatchRecords(good, CHECK_OFFSET_DELTAS, CAP);
      expect(recordsWalk.bytes).toBe(rawRecords(three).length);
      const bad = new RecordBatch(rawBatch(rawRecords([{}, { sizeDelta: 1 }]), { count: 2, compression }));
      expect(() => walkBatchRecords(bad, CHECK_OFFSET_DELTAS, CAP)).toThrow(expect.objectContaining({ errorName: 'INVALID_RECORD' }));
      const garbage = new RecordBatch(rawBatch(Buffer.alloc(0), { count: 3, compression, compressed: Buffer.from('not compressed at all, but CRC-valid') }));
      expect(() => walkBatchRecords(garbage, CHECK_OFFSET_DELTAS, CAP)).toThrow(expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }));
    }
  });

  const recordArb = fc.record({
    key: fc.option(fc.uint8Array({ maxLength: 200 }), { nil: null }),
    value: fc.option(fc.uint8Array({ maxLength: 2000 }), { nil: null }),
    headers: fc.array(fc.record({ key: fc.string({ maxLength: 10 }), value: fc.option(fc.uint8Array({ maxLength: 20 }), { nil: null }) }), { maxLength: 3 }),
    timestamp: fc.oneof(fc.constant(-1), fc.integer({ min: 0, max: 2 ** 42 })),
  });
  const codecArb = fc.constantFrom(CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD);

  type RecordSpec = typeof recordArb extends fc.Arbitrary<infer T> ? T : never;

  function build(inputs: RecordSpec[], compression: CompressionType): Buffer {
    const builder = new RecordBatchBuilder({ compression });
    for (const r of inputs) {
      builder.append({
        timestamp: r.timestamp,
        key: r.key === null ? null : Buffer.from(r.key),
        value: r.value === null ? null : Buffer.from(r.value),
        headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
      });
    }
    return builder.build();
  }

  it('passes every batch RecordBatchBuilder builds, and agrees with decoding it (property)', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 30 }), codecArb, (inputs, compression) => {
        const batch = new RecordBatch(build(inputs, compression));
        walkBatchRecords(batch, CHECK_OFFSET_DELTAS | COUNT_NULL_KEYS | TRACK_MIN_TIMESTAMP, CAP);
        const decoded = batch.records();
        expect(recordsWalk.nullKeys).toBe(decoded.filter((r) => r.key === null).length);
        expect(recordsWalk.maxTimestamp).toBe(batch.maxTimestamp);
        const stamped = decoded.map((r) => r.timestamp).filter((t) => t !== -1);
        expect(recordsWalk.minTimestamp).toBe(stamped.length === 0 ? Infinity : Math.min(...stamped));
      }),
      { numRuns: 300 },
    );
  });

  it('either passes or throws INVALID_RECORD for any byte changed in the records, never anything else (property)', () => {
    fc.assert(
      fc.property(fc.array(recordArb, { minLength: 1, maxLength: 8 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (inputs, where, xor) => {
        const bytes = build(inputs, CompressionType.NONE);
        const records = bytes.subarray(61);
        const at = where % records.length;
        records.writeUInt8(records.readUInt8(at) ^ xor, at);
        const count = bytes.readInt32BE(57);
        let walked: unknown;
        try {
          walkRecords(records, 0, records.length, count, 0, 0);
        } catch (err) {
          walked = err;
        }
        // the fast path (bytes after the records) comes to the same verdict
        let fast: unknown;
        try {
          walkRecords(Buffer.concat([records, Buffer.alloc(32, 0x80)]), 0, records.length, count, 0, 0);
        } catch (err) {
          fast = err;
        }
        expect((fast as KafkaError | undefined)?.errorName).toBe((walked as KafkaError | undefined)?.errorName);
        if (walked !== undefined) {
          expect(walked).toBeInstanceOf(KafkaError);
          expect((walked as KafkaError).errorName).toBe('INVALID_RECORD');
          return;
        }
        // what the walk accepts, the full decoder reads (header keys aside: any bytes are a valid key here)
        const batch = new RecordBatch(bytes);
        expect(batch.records()).toHaveLength(count);
      }),
      { numRuns: Number(process.env['FC_RUNS'] ?? 2000) },
    );
  });
});
