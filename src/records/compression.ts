import * as zlib from 'node:zlib';
import * as lz4 from 'lz4-napi';
import * as zstd from 'zstd-napi';
import * as zstdBinding from 'zstd-napi/binding';
import { KafkaError } from '../common/kafka-error';
import { CompressionType, compressionTypeName } from './compression-type';
import { InflateLimitExceeded } from './inflate-limit';
import { lz4FrameDecompress } from './lz4-frame';
import { snappyCompressXerial, snappyDecompress } from './xerial-snappy';

/**
 * One-shot compression of a whole records block, as stored inside a v2 batch or a legacy wrapper message.
 * gzip: RFC 1952 stream (node:zlib). snappy: written with xerial framing like the Java producer, read framed or
 * raw. lz4: LZ4 frame format (magic 04 22 4D 18). zstd: a standard zstd frame.
 *
 * Decompression is bounded: no codec produces (or allocates for) more than `maxBytes` of output, and data that
 * would inflate beyond it is refused with CORRUPT_MESSAGE once the limit is reached (see `inflateCap` for the
 * figure and why). Failures to decompress surface as CORRUPT_MESSAGE too: the bytes passed the CRC, so the
 * producer sent garbage.
 */
const MiB = 1024 * 1024;

/**
 * The decompression cap, never below this. A batch's declared sizes do not bound its inflated size (deflate
 * reaches ~1030:1, lz4 ~250:1, zstd far more), and Kafka itself has no cap: its LogValidator streams records
 * through the codec with a 2 KiB skip buffer, so a 1 MiB gzip batch of zeros (~1 GiB inflated) costs it time,
 * not memory. This broker walks an inflated copy instead, so it needs a bound that legitimate batches never
 * reach. 128 MiB is above anything a default-configured client emits — the Java producer's 16 KiB batch.size
 * stays below ~16 MiB inflated even at deflate's best ratio, librdkafka's batch.size (1 MB) counts uncompressed
 * bytes, and one kafkajs send() of 100 MB of zeros compresses to ~100 KB and inflates to 100 MB — and of the same
 * scale as socket.request.max.bytes (100 MiB), which the broker already holds in memory for a single request.
 */
export const MIN_INFLATE_CAP = 128 * MiB;
/** Inflated bytes allowed per byte of max.message.bytes, for topics whose operator raised that limit. */
export const INFLATE_RATIO = 16;
/** The cap is never above this: one Node buffer, and more than any consumer could take in one batch. */
export const MAX_INFLATE_CAP = 1024 * MiB;

/**
 * The most bytes one batch (or one legacy message set) may inflate to on a topic with `maxMessageBytes`:
 * clamp(16 × max.message.bytes, 128 MiB, 1 GiB) — 128 MiB at the default max.message.bytes (1 MiB).
 */
export function inflateCap(maxMessageBytes: number): number {
  return Math.min(MAX_INFLATE_CAP, Math.max(MIN_INFLATE_CAP, INFLATE_RATIO * maxMessageBytes));
}

export function compress(type: CompressionType, data: Buffer): Buffer {
  switch (type) {
    case CompressionType.NONE:
      return data;
    case CompressionType.GZIP:
      return zlib.gzipSync(data);
    case CompressionType.SNAPPY:
      return snappyCompressXerial(data);
    case CompressionType.LZ4:
      return lz4.compressFrameSync(data);
    case CompressionType.ZSTD:
      return zstd.compress(data);
  }
}

/** The error for data that would inflate beyond `maxBytes`. */
export function inflateLimitError(type: CompressionType, maxBytes: number): KafkaError {
  return new KafkaError('CORRUPT_MESSAGE', `Decompressed ${compressionTypeName(type)} data exceeds the limit of ${maxBytes} bytes`);
}

/**
 * Decompresses `data` into at most `maxBytes` (default: the largest cap, for stored batches that were bounded
 * when they were appended). Memory and time are proportional to the output produced, so a decompression bomb
 * costs at most the cap before it is refused.
 */
export function decompress(type: CompressionType, data: Buffer, maxBytes = MAX_INFLATE_CAP): Buffer {
  try {
    switch (type) {
      case CompressionType.NONE:
        return data;
      case CompressionType.GZIP:
        // zlib stops inflating as soon as the output passes maxOutputLength (RangeError ERR_BUFFER_TOO_LARGE).
        return zlib.gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes) });
      case CompressionType.SNAPPY:
        return snappyDecompress(data, maxBytes);
      case CompressionType.LZ4:
        return lz4FrameDecompress(data, maxBytes);
      case CompressionType.ZSTD:
        return zstdDecompress(data, maxBytes);
    }
  } catch (err) {
    if (err instanceof KafkaError) throw err;
    if (err instanceof InflateLimitExceeded || (err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw inflateLimitError(type, maxBytes);
    }
    throw new KafkaError('CORRUPT_MESSAGE', `Failed to decompress ${compressionTypeName(type)} data: ${(err as Error).message}`, {
      cause: err,
    });
  }
}

let dctx: zstdBinding.DCtx | undefined;
const ZSTD_MIN_CHUNK = 128 * 1024;

/**
 * zstd through the streaming decoder into an output buffer that grows by doubling up to `maxBytes`: a frame
 * declaring a content size above the cap is refused before anything is allocated, one without (streamed
 * frames) when the output reaches the cap. Concatenated and skippable frames are read as zstd-jni reads them.
 */
function zstdDecompress(data: Buffer, maxBytes: number): Buffer {
  const declared = zstdBinding.getFrameContentSize(data);
  if (declared !== null && declared > maxBytes) throw new InflateLimitExceeded();
  if (dctx === undefined) dctx = new zstdBinding.DCtx();
  dctx.reset(zstdBinding.ResetDirective.sessionOnly);
  let out = Buffer.allocUnsafe(Math.min(maxBytes, declared !== null ? Math.max(declared, 1) : Math.max(ZSTD_MIN_CHUNK, data.length * 4)));
  let produced = 0;
  let consumed = 0;
  let pending = 0; // 0 once a frame is complete and flushed
  while (consumed < data.length || pending !== 0) {
    if (produced === out.length && out.length < maxBytes) {
      const grown = Buffer.allocUnsafe(Math.min(maxBytes, out.length * 2));
      out.copy(grown, 0, 0, produced);
      out = grown;
    }
    // With the output full at the cap the decoder may still consume input that produces nothing (a checksum, a
    // skippable frame); it stops making progress only when it needs room we cannot give.
    const [hint, dst, src] = dctx.decompressStream(out.subarray(produced), data.subarray(consumed));
    produced += dst;
    consumed += src;
    pending = hint;
    if (dst === 0 && src === 0) {
      if (produced === out.length) throw new InflateLimitExceeded();
      throw new Error(consumed < data.length ? 'zstd decoder made no progress' : 'Truncated zstd frame');
    }
  }
  return produced === out.length ? out : out.subarray(0, produced);
}
