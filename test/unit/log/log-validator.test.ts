import * as zlib from 'node:zlib';
import { createLogConfig } from '../../../src/common/config/log-config';
import { RecordValidationError } from '../../../src/common/record-validation-error';
import { KafkaError } from '../../../src/common/kafka-error';
import { AppendOrigin, validateAndAssignOffsets } from '../../../src/log/log-validator';
import { CompressionType } from '../../../src/records/compression-type';
import { legacyEntrySize, writeLegacyEntry } from '../../../src/records/legacy-message-set';
import { RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { TimestampType } from '../../../src/records/timestamp-type';
import { fixCrc, gzipZeros, lz4Zeros, RawRecord, rawBatch, rawRecords, zstdZerosStreamed } from '../../helpers/raw-records';

const MiB = 1024 * 1024;
const NOW = 1_700_000_000_000;

function validate(input: Buffer, overrides: Record<string, string> = {}, origin: AppendOrigin = 'client') {
  return validateAndAssignOffsets(input, { nextOffset: 100, config: createLogConfig({}, overrides), now: NOW, leaderEpoch: 7, origin });
}

/** Expects the validation to refuse `input` with `name`, leaving the buffer untouched. */
function expectRefused(input: Buffer, name: string, message?: RegExp, overrides: Record<string, string> = {}, origin: AppendOrigin = 'client'): void {
  const copy = Buffer.from(input);
  let caught: unknown;
  try {
    validate(input, overrides, origin);
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(KafkaError);
  expect((caught as KafkaError).errorName).toBe(name);
  // A record-by-record rejection says why per record (Produce v8's record errors) under a general message.
  const texts = [(caught as KafkaError).message, ...(caught instanceof RecordValidationError ? caught.recordErrors.map((e) => e.message ?? '') : [])];
  if (message) expect(texts.some((t) => message.test(t))).toBe(true);
  expect(input.equals(copy)).toBe(true);
}

function batchOf(records: RawRecord[], compression = CompressionType.NONE, extra: Partial<Parameters<typeof rawBatch>[1]> = {}): Buffer {
  return rawBatch(rawRecords(records), { count: records.length, compression, firstTimestamp: NOW, maxTimestamp: NOW, ...extra });
}

function entry(magic: 0 | 1, attributes: number, ts: number, key: string | null, value: Buffer | string | null): Buffer {
  const k = key === null ? null : Buffer.from(key);
  const v = value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);
  const buf = Buffer.alloc(legacyEntrySize(magic, k, v));
  writeLegacyEntry(buf, 0, 0, magic, attributes, ts, k, v);
  return buf;
}

const ALL_CODECS = [CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD];

describe('validateAndAssignOffsets walks every record, as Kafka 2.8 LogValidator does', () => {
  it('refuses a CRC-valid batch whose records are garbage with INVALID_RECORD, for every codec', () => {
    for (const codec of ALL_CODECS) {
      const garbage = rawBatch(Buffer.from('\x20this is not a record at all, though the CRC is right'), { count: 3, compression: codec, firstTimestamp: NOW, maxTimestamp: NOW });
      new RecordBatch(garbage).ensureValid();
      expectRefused(garbage, 'INVALID_RECORD');
    }
  });

  it('refuses compressed data that does not decompress with CORRUPT_MESSAGE', () => {
    for (const codec of [CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD]) {
      expectRefused(rawBatch(Buffer.alloc(0), { count: 1, compression: codec, compressed: Buffer.from('random bytes, valid CRC') }), 'CORRUPT_MESSAGE');
    }
  });

  it('refuses decompression bombs with CORRUPT_MESSAGE, each costing at most the cap', async () => {
    const bombs: [CompressionType, Buffer][] = [
      [CompressionType.GZIP, gzipZeros(1024 * MiB)],
      [CompressionType.LZ4, lz4Zeros(256)],
      [CompressionType.ZSTD, await zstdZerosStreamed(1024 * MiB)],
    ];
    for (const [codec, compressed] of bombs) {
      const start = Date.now();
      expectRefused(rawBatch(Buffer.alloc(0), { count: 1, compression: codec, compressed }), 'CORRUPT_MESSAGE', /exceeds the limit of 134217728 bytes/, { 'max.message.bytes': String(8 * MiB) });
      expect(Date.now() - start).toBeLessThan(3000);
    }
  });

  it('accepts highly compressible legitimate batches: 1 MiB of zeros with every codec, 100 MiB of zeros in gzip', () => {
    for (const codec of ALL_CODECS) {
      const builder = new RecordBatchBuilder({ compression: codec });
      for (let i = 0; i < 1024; i++) builder.append({ timestamp: NOW, value: Buffer.alloc(1024) });
      const batch = builder.build();
      if (codec !== CompressionType.NONE) expect(batch.length).toBeLessThan(64 * 1024);
      expect(validate(batch, { 'max.message.bytes': String(2 * MiB) })?.numMessages).toBe(1024);
    }
    // one kafkajs send() of 100 MB of zeros: ~100 KB compressed, within the default max.message.bytes
    const builder = new RecordBatchBuilder({ compression: CompressionType.GZIP, initialCapacity: 101 * MiB });
    const value = Buffer.alloc(MiB);
    for (let i = 0; i < 100; i++) builder.append({ timestamp: NOW, value });
    const big = builder.build();
    expect(big.length).toBeLessThan(1048588);
    expect(validate(big)?.numMessages).toBe(100);
  });

  it('refuses offset delta gaps from clients (INVALID_RECORD) but not from the coordinator', () => {
    const gap = batchOf([{ offsetDelta: 0 }, { offsetDelta: 2 }], CompressionType.NONE, { lastOffsetDelta: 1 });
    expectRefused(gap, 'INVALID_RECORD', /Invalid offset delta 2 of record 1/);
    expectRefused(batchOf([{ offsetDelta: 0 }, { offsetDelta: 0 }], CompressionType.LZ4), 'INVALID_RECORD', /Invalid offset delta 0 of record 1/);
    expect(validate(gap, {}, 'coordinator')?.lastOffset).toBe(101);
  });

  it('refuses more than one batch, and a client batch whose baseOffset is not 0, with INVALID_RECORD', () => {
    expectRefused(Buffer.concat([batchOf([{}]), batchOf([{}])]), 'INVALID_RECORD', /more than one batch/);
    expectRefused(batchOf([{}], CompressionType.NONE, { baseOffset: 5 }), 'INVALID_RECORD', /baseOffset of the record batch in the append should be 0, but it is 5/);
    expect(validate(batchOf([{}], CompressionType.NONE, { baseOffset: 5 }), {}, 'coordinator')?.firstOffset).toBe(100);
    // a CRC error anywhere comes first, as in Log.analyzeAndValidateRecords
    const bad = batchOf([{}]);
    bad.writeUInt8(bad.readUInt8(bad.length - 1) ^ 1, bad.length - 1);
    expectRefused(Buffer.concat([batchOf([{}]), bad]), 'CORRUPT_MESSAGE');
  });

  it('refuses null keys on compacted topics, after timestamp errors as Kafka reports them', () => {
    const keyless = batchOf([{}, { key: null }], CompressionType.GZIP);
    expectRefused(keyless, 'INVALID_RECORD', /Compacted topic cannot accept message without key/, { 'cleanup.policy': 'compact' });
    expect(validate(keyless)?.numMessages).toBe(2);
    const both = batchOf([{ key: null }, { timestampDelta: 10 ** 9 }]);
    expectRefused(both, 'INVALID_TIMESTAMP', undefined, { 'cleanup.policy': 'compact', 'message.timestamp.difference.max.ms': '1000' });
  });

  it('names each rejected record by its index in the batch (Produce v8 record errors, Kafka\'s RecordValidationException)', () => {
    const keyless = batchOf([{}, { key: null }, {}, { key: null }]);
    let caught: unknown;
    try {
      validate(keyless, { 'cleanup.policy': 'compact' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(RecordValidationError);
    const e = caught as RecordValidationError;
    expect(e.message).toBe('One or more records have been rejected');
    expect(e.recordErrors.map((r) => r.batchIndex)).toEqual([1, 3]);
    expect(e.recordErrors[0]?.message).toMatch(/^Compacted topic cannot accept message without key( in topic partition .+)?\.$/);
    // A key error and a timestamp error in one batch: INVALID_TIMESTAMP for the partition, each record its own.
    try {
      validate(batchOf([{ key: null }, { timestampDelta: 10 ** 9 }]), { 'cleanup.policy': 'compact', 'message.timestamp.difference.max.ms': '1000' });
    } catch (err) {
      caught = err;
    }
    const both = caught as RecordValidationError;
    expect(both.message).toBe('One or more records have been rejected due to invalid timestamp');
    expect(both.recordErrors.map((r) => r.batchIndex)).toEqual([0, 1]);
    expect(both.recordErrors[1]?.message).toMatch(/^Timestamp \d+ of message with offset 1 is out of range\. The timestamp should be within \[\d+, \d+\]$/);
  });

  it('checks every record timestamp against message.timestamp.difference.max.ms, not only the header', () => {
    const cfg = { 'message.timestamp.difference.max.ms': '60000' };
    // header timestamps fine, the middle record an hour late
    const middle = batchOf([{ timestampDelta: 0 }, { timestampDelta: -3_600_000 }, { timestampDelta: 1000 }], CompressionType.NONE, { maxTimestamp: NOW + 1000 });
    expectRefused(middle, 'INVALID_TIMESTAMP', /Timestamp \d+ of message with offset \d+ is out of range/, cfg);
    // NO_TIMESTAMP records are exempt
    const none = batchOf([{ timestampDelta: 0 }, { timestampDelta: 0 }], CompressionType.NONE, { firstTimestamp: -1, maxTimestamp: -1 });
    expect(validate(none, cfg)?.maxTimestamp).toBe(-1);
  });

  it('refuses a producer batch marked LogAppendTime with INVALID_TIMESTAMP', () => {
    expectRefused(batchOf([{}], CompressionType.NONE, { attributes: 0x08 }), 'INVALID_TIMESTAMP', /LogAppendTime/);
  });

  it('sets the max timestamp to the records own, recomputing the CRC only when it changes', () => {
    const lying = batchOf([{ timestampDelta: 0 }, { timestampDelta: 500 }, { timestampDelta: 20 }], CompressionType.SNAPPY, { maxTimestamp: NOW + 99 });
    const v = validate(lying);
    const batch = new RecordBatch(v?.records as Buffer);
    expect(batch.maxTimestamp).toBe(NOW + 500);
    expect(v?.maxTimestamp).toBe(NOW + 500);
    batch.ensureValid();
    const honest = batchOf([{ timestampDelta: 0 }, { timestampDelta: 7 }], CompressionType.NONE, { maxTimestamp: NOW + 7 });
    const crc = honest.readUInt32BE(17);
    validate(honest);
    expect(honest.readUInt32BE(17)).toBe(crc);
    expect(honest.readInt32BE(12)).toBe(7); // leader epoch stamped, outside the CRC
  });

  it('legacy sets: the same caps, one compressed wrapper, no nested compression, no LogAppendTime', () => {
    const inner = Buffer.concat([entry(0, 0, -1, null, 'one'), entry(0, 0, -1, 'k', 'two')]);
    const wrapper = entry(1, CompressionType.GZIP, NOW, null, zlib.gzipSync(inner));
    const ok = validate(wrapper);
    expect(ok?.numMessages).toBe(2);
    expect(new RecordBatch(ok?.records as Buffer).compressionType).toBe(CompressionType.GZIP);
    expectRefused(Buffer.concat([wrapper, wrapper]), 'INVALID_RECORD', /more than one batch/);
    expectRefused(Buffer.concat([entry(1, 0, NOW, null, 'plain'), wrapper]), 'INVALID_RECORD', /more than one batch/);
    const nested = entry(1, CompressionType.GZIP, NOW, null, zlib.gzipSync(wrapper));
    expectRefused(nested, 'INVALID_RECORD', /inner record with a compression attribute/);
    expectRefused(entry(1, 0x08, NOW, null, 'x'), 'INVALID_TIMESTAMP', /LogAppendTime/);
    // a gzip wrapper of 1 GiB of zeros (~1 MB): refused at the cap
    const start = Date.now();
    expectRefused(entry(1, CompressionType.GZIP, NOW, null, gzipZeros(1024 * MiB)), 'CORRUPT_MESSAGE', /exceeds the limit/, { 'max.message.bytes': String(2 * MiB) });
    expect(Date.now() - start).toBeLessThan(3000);
    // many plain messages are still one batch
    const plain = Buffer.concat(Array.from({ length: 50 }, (_, i) => entry(1, 0, NOW + i, `k${i}`, 'v')));
    const converted = validate(plain);
    expect(converted?.numMessages).toBe(50);
    expect(new RecordBatch(converted?.records as Buffer).timestampType).toBe(TimestampType.CREATE_TIME);
  });

  it('still assigns offsets in place and keeps the walk out of the bytes', () => {
    const b = new RecordBatchBuilder({ compression: CompressionType.NONE });
    for (let i = 0; i < 10; i++) b.append({ timestamp: NOW + i, key: Buffer.from(`k${i}`), value: Buffer.alloc(100, i) });
    const input = b.build();
    const before = Buffer.from(input);
    const v = validate(input);
    expect(v?.records).toBe(input);
    expect(v).toMatchObject({ firstOffset: 100, lastOffset: 109, numMessages: 10, shallowCount: 1, maxTimestamp: NOW + 9 });
    // only baseOffset (0-7) and the leader epoch (12-15) changed
    expect(input.subarray(16).equals(before.subarray(16))).toBe(true);
    expect(input.subarray(8, 12).equals(before.subarray(8, 12))).toBe(true);
  });

  it('refuses header counts and lengths that do not add up, through the whole append path', () => {
    expectRefused(batchOf([{ headerCount: -1 }]), 'INVALID_RECORD', /invalid number of record headers/);
    expectRefused(batchOf([{}, {}], CompressionType.NONE, { count: 3, lastOffsetDelta: 2 }), 'INVALID_RECORD', /premature EOF/);
    const overrun = fixCrc(batchOf([{}, { sizeDelta: 1 }], CompressionType.ZSTD));
    expectRefused(overrun, 'INVALID_RECORD', /Invalid record size/);
  });
});
