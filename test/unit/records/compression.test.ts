import fc from 'fast-check';
import * as lz4 from 'lz4-napi';
import * as snappy from 'snappy';
import { compress, decompress } from '../../../src/records/compression';
import { CompressionType } from '../../../src/records/compression-type';
import { isXerialFramed } from '../../../src/records/xerial-snappy';
import { KafkaError } from '../../../src/common/kafka-error';

describe('compression codecs', () => {
  const data = Buffer.concat(Array.from({ length: 2000 }, (_, i) => Buffer.from(`record-${i % 37} payload `)));

  it.each([CompressionType.NONE, CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD])('round-trips codec %i', (codec) => {
    const c = compress(codec, data);
    expect(decompress(codec, c).equals(data)).toBe(true);
  });

  it('writes gzip, lz4 and zstd in their standard framings', () => {
    expect(compress(CompressionType.GZIP, data).subarray(0, 2).toString('hex')).toBe('1f8b');
    expect(compress(CompressionType.LZ4, data).subarray(0, 4).toString('hex')).toBe('04224d18');
    expect(compress(CompressionType.ZSTD, data).subarray(0, 4).toString('hex')).toBe('28b52ffd');
  });

  it('writes snappy with the xerial framing in 32 KiB blocks', () => {
    const c = compress(CompressionType.SNAPPY, data);
    expect(isXerialFramed(c)).toBe(true);
    expect(c.subarray(0, 16).toString('hex')).toBe('82534e41505059000000000100000001');
    expect(data.length).toBeGreaterThan(32 * 1024);
    const firstBlockLen = c.readInt32BE(16);
    const firstBlock = snappy.uncompressSync(c.subarray(20, 20 + firstBlockLen), { asBuffer: true }) as Buffer;
    expect(firstBlock.length).toBe(32 * 1024);
  });

  it('reads raw (unframed) snappy as librdkafka and kafkajs-snappy write it', () => {
    const raw = snappy.compressSync(data);
    expect(decompress(CompressionType.SNAPPY, raw).equals(data)).toBe(true);
  });

  it('reports undecodable data as CORRUPT_MESSAGE', () => {
    for (const codec of [CompressionType.GZIP, CompressionType.LZ4, CompressionType.ZSTD]) {
      let caught: unknown;
      try {
        decompress(codec, Buffer.from('definitely not compressed'));
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(KafkaError);
      expect((caught as KafkaError).errorName).toBe('CORRUPT_MESSAGE');
    }
  });
});

describe('bounded decoders against their reference implementations', () => {
  // Data mixing random bytes and repeats, so every codec emits both literals and (overlapping) matches.
  const dataArb = fc
    .array(fc.oneof(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.record({ byte: fc.integer({ min: 0, max: 255 }), n: fc.integer({ min: 1, max: 70000 }) })), { minLength: 1, maxLength: 12 })
    .map((parts) => Buffer.concat(parts.map((p) => (p instanceof Uint8Array ? Buffer.from(p) : Buffer.alloc(p.n, p.byte)))));

  it('lz4: the JS frame decoder reads whatever lz4-napi writes, with any checksum options (property)', () => {
    fc.assert(
      fc.property(dataArb, fc.boolean(), fc.boolean(), (data, contentChecksum, blockChecksums) => {
        const frame = lz4.compressFrameSync(data, { contentChecksum, blockChecksums });
        expect(decompress(CompressionType.LZ4, frame).equals(data)).toBe(true);
        expect(lz4.decompressFrameSync(frame).equals(data)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('lz4: linked blocks may refer to earlier blocks, independent ones may not', () => {
    const header = (flg: number): Buffer => Buffer.from([0x04, 0x22, 0x4d, 0x18, flg, 0x40, 0x00]);
    const block = (bytes: number[]): Buffer => {
      const size = Buffer.alloc(4);
      size.writeUInt32LE(bytes.length);
      return Buffer.concat([size, Buffer.from(bytes)]);
    };
    // block 1: 8 literals; block 2: no literals, a match of 8 at offset 8 (into block 1), then 1 literal
    const blocks = [block([0x80, ...Buffer.from('abcdefgh')]), block([0x04, 0x08, 0x00, 0x10, 0x21])];
    const end = Buffer.alloc(4);
    expect(decompress(CompressionType.LZ4, Buffer.concat([header(0x40), ...blocks, end])).toString()).toBe('abcdefghabcdefgh!');
    expect(() => decompress(CompressionType.LZ4, Buffer.concat([header(0x60), ...blocks, end]))).toThrow(expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }));
  });

  it.each([CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD])(
    'codec %i: any corrupted byte gives the data, or CORRUPT_MESSAGE, never another error (property)',
    (codec) => {
      fc.assert(
        fc.property(dataArb, fc.nat(), fc.integer({ min: 1, max: 255 }), (data, where, xor) => {
          const c = Buffer.from(compress(codec, data));
          const at = where % c.length;
          c.writeUInt8(c.readUInt8(at) ^ xor, at);
          try {
            decompress(codec, c, 4 * 1024 * 1024);
          } catch (err) {
            expect(err).toBeInstanceOf(KafkaError);
            expect((err as KafkaError).errorName).toBe('CORRUPT_MESSAGE');
          }
        }),
        { numRuns: Number(process.env['FC_RUNS'] ?? 200) },
      );
    },
  );
});
