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
