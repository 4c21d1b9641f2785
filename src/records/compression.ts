import * as zlib from 'node:zlib';
import * as lz4 from 'lz4-napi';
import * as zstd from 'zstd-napi';
import { KafkaError } from '../common/kafka-error';
import { CompressionType, compressionTypeName } from './compression-type';
import { snappyCompressXerial, snappyDecompress } from './xerial-snappy';

/**
 * One-shot compression of a whole records block, as stored inside a v2 batch or a legacy wrapper message.
 * gzip: RFC 1952 stream (node:zlib). snappy: written with xerial framing like the Java producer, read framed or
 * raw. lz4: LZ4 frame format (magic 04 22 4D 18). zstd: a standard zstd frame.
 * Failures to decompress surface as CORRUPT_MESSAGE: the bytes passed the CRC, so the producer sent garbage.
 */
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

export function decompress(type: CompressionType, data: Buffer): Buffer {
  try {
    switch (type) {
      case CompressionType.NONE:
        return data;
      case CompressionType.GZIP:
        return zlib.gunzipSync(data);
      case CompressionType.SNAPPY:
        return snappyDecompress(data);
      case CompressionType.LZ4:
        return lz4.decompressFrameSync(data);
      case CompressionType.ZSTD:
        return zstd.decompress(data);
    }
  } catch (err) {
    throw new KafkaError('CORRUPT_MESSAGE', `Failed to decompress ${compressionTypeName(type)} data: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
