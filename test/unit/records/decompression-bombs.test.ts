import * as snappy from 'snappy';
import * as zstd from 'zstd-napi';
import { KafkaError } from '../../../src/common/kafka-error';
import { CompressionType } from '../../../src/records/compression-type';
import { compress, decompress, inflateCap, MAX_INFLATE_CAP, MIN_INFLATE_CAP } from '../../../src/records/compression';
import { gzipZeros, lz4Zeros, zstdZerosStreamed } from '../../helpers/raw-records';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const CAP = 16 * MiB;

/**
 * Runs `fn`, expecting the cap's CORRUPT_MESSAGE, and returns how long it took and how much the process grew:
 * a bomb must cost time and memory of the order of the cap, not of what it would inflate to.
 */
function refused(fn: () => unknown): { ms: number; rssGrowth: number } {
  const rss = process.memoryUsage().rss;
  const start = Date.now();
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  const ms = Date.now() - start;
  expect(caught).toBeInstanceOf(KafkaError);
  expect((caught as KafkaError).errorName).toBe('CORRUPT_MESSAGE');
  expect((caught as KafkaError).message).toMatch(/exceeds the limit of \d+ bytes/);
  return { ms, rssGrowth: process.memoryUsage().rss - rss };
}

function expectCheap(cost: { ms: number; rssGrowth: number }): void {
  expect(cost.ms).toBeLessThan(1500);
  expect(cost.rssGrowth).toBeLessThan(8 * CAP);
}

describe('decompression is bounded for every codec', () => {
  it('sizes the cap from max.message.bytes, between 128 MiB and 1 GiB', () => {
    expect(inflateCap(1048588)).toBe(MIN_INFLATE_CAP);
    expect(MIN_INFLATE_CAP).toBe(128 * MiB);
    expect(inflateCap(32 * MiB)).toBe(512 * MiB);
    expect(inflateCap(2 ** 31 - 1)).toBe(MAX_INFLATE_CAP);
    expect(MAX_INFLATE_CAP).toBe(GiB);
  });

  it.each([CompressionType.GZIP, CompressionType.SNAPPY, CompressionType.LZ4, CompressionType.ZSTD])('codec %i: inflates exactly up to the cap and refuses one byte more', (codec) => {
    const data = Buffer.alloc(300_000, 7);
    const c = compress(codec, data);
    expect(decompress(codec, c, data.length).equals(data)).toBe(true);
    refused(() => decompress(codec, c, data.length - 1));
  });

  it('gzip: 1 GiB of zeros in a ~1 MB member costs the cap, not 1 GiB', () => {
    const bomb = gzipZeros(GiB);
    expect(bomb.length).toBeLessThan(1.1 * MiB);
    expectCheap(refused(() => decompress(CompressionType.GZIP, bomb, CAP)));
  });

  it('snappy: a raw block or xerial blocks declaring more than the cap are refused before anything is inflated', () => {
    // A forged preamble claiming 4 GiB - 1: the decoder would allocate that much up front.
    const forged = Buffer.concat([Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), Buffer.alloc(64)]);
    expectCheap(refused(() => decompress(CompressionType.SNAPPY, forged, CAP)));
    const raw = snappy.compressSync(Buffer.alloc(4 * CAP));
    expectCheap(refused(() => decompress(CompressionType.SNAPPY, raw, CAP)));
    const framed = compress(CompressionType.SNAPPY, Buffer.alloc(4 * CAP));
    const cost = refused(() => decompress(CompressionType.SNAPPY, framed, CAP));
    expect(cost.ms).toBeLessThan(200);
  });

  it('lz4: a frame of 1 GiB of zeros (~4 MB) costs the cap', () => {
    const bomb = lz4Zeros(256);
    expect(bomb.length).toBeLessThan(5 * MiB);
    expectCheap(refused(() => decompress(CompressionType.LZ4, bomb, CAP)));
    // the same frame claiming its content size is refused from the header alone
    const withSize = Buffer.concat([bomb.subarray(0, 4), Buffer.from([bomb[4]! | 0x08, bomb[5]!]), Buffer.alloc(8), bomb.subarray(6)]);
    withSize.writeBigUInt64LE(BigInt(GiB), 6);
    const cost = refused(() => decompress(CompressionType.LZ4, withSize, CAP));
    expect(cost.ms).toBeLessThan(50);
  });

  it('lz4: frames whose block bound exceeds the cap are still read when their real output fits', () => {
    // 4 MiB blocks of 1 KiB each: the bound (n × 4 MiB) is far above the output
    const small = compress(CompressionType.LZ4, Buffer.alloc(1024, 3));
    const header = small.subarray(0, 7);
    const blockLen = small.readUInt32LE(7) & 0x7fffffff;
    const block = small.subarray(7, 11 + blockLen);
    const frame = Buffer.concat([header, ...Array.from({ length: 8 }, () => block), Buffer.alloc(4)]);
    expect(decompress(CompressionType.LZ4, frame, 16 * 1024).equals(Buffer.alloc(8 * 1024, 3))).toBe(true);
    refused(() => decompress(CompressionType.LZ4, frame, 8 * 1024 - 1));
  });

  it('zstd: a streamed frame of 1 GiB of zeros costs the cap; a declared content size is refused up front', async () => {
    const streamed = await zstdZerosStreamed(GiB);
    expect(streamed.length).toBeLessThan(MiB);
    expectCheap(refused(() => decompress(CompressionType.ZSTD, streamed, CAP)));
    const declared = zstd.compress(Buffer.alloc(4 * CAP));
    const cost = refused(() => decompress(CompressionType.ZSTD, declared, CAP));
    expect(cost.ms).toBeLessThan(50);
  });

  it('zstd: truncated or concatenated frames are read as zstd-jni reads them', () => {
    const a = zstd.compress(Buffer.from('hello '));
    const b = zstd.compress(Buffer.from('world'));
    expect(decompress(CompressionType.ZSTD, Buffer.concat([a, b])).toString()).toBe('hello world');
    expect(() => decompress(CompressionType.ZSTD, a.subarray(0, a.length - 2))).toThrow(expect.objectContaining({ errorName: 'CORRUPT_MESSAGE' }));
  });
});
