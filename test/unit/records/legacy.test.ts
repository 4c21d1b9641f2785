import * as zlib from 'node:zlib';
import * as snappy from 'snappy';
import { KafkaError } from '../../../src/common/kafka-error';
import { CompressionType } from '../../../src/records/compression-type';
import { legacyEntrySize, readLegacyMessages, readLegacyRecords, writeLegacyEntry } from '../../../src/records/legacy-message-set';
import { RecordBatch } from '../../../src/records/record-batch';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { convertLegacyToRecordBatch, downConvert } from '../../../src/records/record-conversion';

function entry(offset: number, magic: 0 | 1, attributes: number, ts: number, key: string | null, value: Buffer | string | null): Buffer {
  const k = key === null ? null : Buffer.from(key);
  const v = value === null ? null : Buffer.isBuffer(value) ? value : Buffer.from(value);
  const buf = Buffer.alloc(legacyEntrySize(magic, k, v));
  writeLegacyEntry(buf, 0, offset, magic, attributes, ts, k, v);
  return buf;
}

describe('legacy message sets', () => {
  it('writes v0 entries the way the format prescribes', () => {
    const e = entry(0, 0, 0, -1, null, 'a');
    // offset, size 15, crc, magic 0, attrs 0, key -1, value len 1, 'a'
    expect(e.length).toBe(12 + 14 + 1);
    expect(e.readInt32BE(8)).toBe(15);
    expect(e.readInt8(16)).toBe(0);
    expect(readLegacyMessages(e)).toEqual([{ offset: 0, magic: 0, attributes: 0, timestamp: -1, key: null, value: Buffer.from('a') }]);
  });

  it('refuses a bad CRC, a bad magic and inconsistent sizes with CORRUPT_MESSAGE', () => {
    const good = entry(0, 1, 0, 10, 'k', 'v');
    const badCrc = Buffer.from(good);
    badCrc.writeUInt8(badCrc.readUInt8(badCrc.length - 1) ^ 1, badCrc.length - 1);
    const badMagic = Buffer.from(good);
    badMagic[16] = 5;
    const badSize = Buffer.from(good);
    badSize.writeInt32BE(1000, 8);
    for (const b of [badCrc, badMagic, badSize, good.subarray(0, 20)]) {
      expect(() => readLegacyMessages(b)).toThrow(KafkaError);
    }
  });

  it('reads kafka-node style sets: magic-0 messages inside a magic-1 gzip or snappy wrapper, offsets all 0', () => {
    const inner = Buffer.concat([entry(0, 0, 0, -1, null, 'one'), entry(0, 0, 0, -1, 'k2', 'two')]);
    for (const [codec, compressed] of [
      [CompressionType.GZIP, zlib.gzipSync(inner)],
      [CompressionType.SNAPPY, snappy.compressSync(inner)],
    ] as const) {
      const wrapper = entry(0, 1, codec, 1234, null, compressed);
      const { records, compression } = readLegacyRecords(wrapper);
      expect(compression).toBe(codec);
      expect(records.map((r) => [r.key?.toString() ?? null, r.value?.toString()])).toEqual([
        [null, 'one'],
        ['k2', 'two'],
      ]);
    }
  });

  it('converts a v1 set to one v2 batch with relative offsets and the v1 timestamps', () => {
    const set = Buffer.concat([entry(5, 1, 0, 1000, 'a', 'x'), entry(9, 1, 0, 1003, null, 'y')]);
    const batch = new RecordBatch(convertLegacyToRecordBatch(set) as Buffer);
    batch.ensureValid();
    expect(batch.recordsCount).toBe(2);
    expect(batch.records().map((r) => [r.offset, r.timestamp, r.value?.toString()])).toEqual([
      [0, 1000, 'x'],
      [1, 1003, 'y'],
    ]);
  });

  it('gives converted magic-0 messages no timestamp', () => {
    const batch = new RecordBatch(convertLegacyToRecordBatch(entry(0, 0, 0, -1, null, 'x')) as Buffer);
    expect(batch.records()[0]?.timestamp).toBe(-1);
    expect(batch.maxTimestamp).toBe(-1);
  });

  it('down-converts v2 batches (also compressed) to v0 and v1 with absolute offsets, from the fetch offset', () => {
    for (const codec of [CompressionType.NONE, CompressionType.GZIP, CompressionType.LZ4, CompressionType.SNAPPY]) {
      const b = new RecordBatchBuilder({ compression: codec, baseOffset: 40 });
      for (let i = 0; i < 4; i++) b.append({ timestamp: 500 + i, key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) });
      const v2 = b.build();
      const v1 = readLegacyMessages(downConvert(v2, 1, 42));
      expect(v1.map((m) => [m.offset, m.magic, m.timestamp, m.key?.toString(), m.value?.toString()])).toEqual([
        [42, 1, 502, 'k2', 'v2'],
        [43, 1, 503, 'k3', 'v3'],
      ]);
      const v0 = readLegacyMessages(downConvert(v2, 0));
      expect(v0.map((m) => [m.offset, m.magic])).toEqual([
        [40, 0],
        [41, 0],
        [42, 0],
        [43, 0],
      ]);
    }
  });

  it('refuses to down-convert zstd, as Kafka does', () => {
    const v2 = new RecordBatchBuilder({ compression: CompressionType.ZSTD }).append({ value: Buffer.from('z') }).build();
    expect(() => downConvert(v2, 1)).toThrow(expect.objectContaining({ errorName: 'UNSUPPORTED_COMPRESSION_TYPE' }));
  });

  it('drops control batches and marks LogAppendTime on magic 1', () => {
    const control = new RecordBatchBuilder({ isControlBatch: true, baseOffset: 0 }).append({ key: Buffer.from([0, 0, 0, 1]), value: Buffer.from([0, 0, 0, 0, 0, 0]) }).build();
    const data = new RecordBatchBuilder({ baseOffset: 1 }).append({ value: Buffer.from('d'), timestamp: 3 }).build();
    new RecordBatch(data).setLogAppendTime(77);
    const msgs = readLegacyMessages(downConvert(Buffer.concat([control, data]), 1));
    expect(msgs).toHaveLength(1);
    expect(msgs[0]).toMatchObject({ offset: 1, attributes: 0x08, timestamp: 77 });
  });
});
