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
        // Chunks of a few times the input: one or two for a batch, and few large ones for a bomb (16 KiB chunks
        // would be thousands of small allocations that the allocator may keep after they are freed).
        return zlib.gunzipSync(data, { maxOutputLength: Math.max(1, maxBytes), chunkSize: chunkSizeFor(data.length) });
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
const MIN_CHUNK = 64 * 1024;
const MAX_CHUNK = 4 * MiB;

/** Output chunk size for streamed decompression: a few times the input, so a batch inflates in one or two. */
function chunkSizeFor(inputLength: number): number {
  return Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, inputLength * 4));
}

/**
 * zstd through the streaming decoder into a list of output chunks that never holds more than `maxBytes`: a
 * frame declaring a content size above the cap is refused before anything is allocated (and one declaring a
 * size gets a buffer of exactly that size), one without (streamed frames) when the output reaches the cap.
 * Concatenated and skippable frames are read as zstd-jni reads them; a truncated frame is an error.
 */
function zstdDecompress(data: Buffer, maxBytes: number): Buffer {
  const declared = zstdBinding.getFrameContentSize(data);
  if (declared !== null && declared > maxBytes) throw new InflateLimitExceeded();
  if (dctx === undefined) dctx = new zstdBinding.DCtx();
  dctx.reset(zstdBinding.ResetDirective.sessionOnly);
  const chunks: Buffer[] = [];
  let chunk = Buffer.allocUnsafe(Math.min(maxBytes, declared !== null ? declared : chunkSizeFor(data.length)));
  let filled = 0;
  let produced = 0;
  let consumed = 0;
  let pending = data.length > 0 ? 1 : 0; // 0 once a frame is complete and flushed
  while (consumed < data.length || pending !== 0) {
    if (filled === chunk.length && chunk.length > 0) {
      chunks.push(chunk);
      chunk = Buffer.allocUnsafe(Math.min(maxBytes - produced, Math.max(MIN_CHUNK, Math.min(MAX_CHUNK, chunk.length * 2))));
      filled = 0;
    }
    // With no room left the decoder may still consume input that produces nothing (a checksum, a skippable
    // frame); it stops making progress only when it needs room the cap does not give.
    const [hint, dst, src] = dctx.decompressStream(chunk.subarray(filled), data.subarray(consumed));
    filled += dst;
    produced += dst;
    consumed += src;
    pending = hint;
    if (dst === 0 && src === 0) {
      if (filled === chunk.length) throw new InflateLimitExceeded();
      throw new Error(consumed < data.length ? 'zstd decoder made no progress' : 'Truncated zstd frame');
    }
  }
  if (chunks.length === 0) return filled === chunk.length ? chunk : chunk.subarray(0, filled);
  chunks.push(chunk.subarray(0, filled));
  return Buffer.concat(chunks, produced);
}
