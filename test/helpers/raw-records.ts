import * as zlib from 'node:zlib';
import * as lz4 from 'lz4-napi';
import * as zstd from 'zstd-napi';
import { crc32c } from '../../src/records/crc32c';
import { writeInt64 } from '../../src/common/int64';
import { CompressionType } from '../../src/records/compression-type';
import { compress } from '../../src/records/compression';

/**
 * Hand-made record bytes for tests that must send what no client writes: every field of a v2 record can be
 * overridden or replaced by raw bytes, and `rawBatch` wraps any records area in a header with a correct CRC.
 */

/** Zigzag varint of any 32-bit value, or of a raw unsigned pattern when `raw` is given (overlong encodings). */
export function varint(value: number): Buffer {
  let v = ((value << 1) ^ (value >> 31)) >>> 0;
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

export function varlong(value: number): Buffer {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const out: number[] = [];
  while (v >= 128) {
    out.push((v % 128) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

export interface RawHeader {
  key?: Buffer | null;
  /** Overrides the header key's length varint. */
  keyLength?: number;
  value?: Buffer | null;
  valueLength?: number;
}

export interface RawRecord {
  attributes?: number;
  timestampDelta?: number;
  offsetDelta?: number;
  key?: Buffer | null;
  /** Overrides the key length varint (the key bytes are still written). */
  keyLength?: number;
  value?: Buffer | null;
  valueLength?: number;
  headers?: RawHeader[];
  /** Overrides the header count varint. */
  headerCount?: number;
  /** Added to the true body size in the length varint. */
  sizeDelta?: number;
  /** Bytes appended to the body (inside the declared size unless sizeDelta compensates). */
  trailing?: Buffer;
  /** Replaces the whole body (after the length varint). */
  body?: Buffer;
}

function bytesField(b: Buffer | null | undefined, lengthOverride: number | undefined): Buffer {
  const data = b ?? null;
  const len = lengthOverride ?? (data === null ? -1 : data.length);
  return data === null ? varint(len) : Buffer.concat([varint(len), data]);
}

/** One record, length prefix included. */
export function rawRecord(r: RawRecord, index = 0): Buffer {
  const body =
    r.body ??
    Buffer.concat([
      Buffer.from([r.attributes ?? 0]),
      varlong(r.timestampDelta ?? 0),
      varint(r.offsetDelta ?? index),
      bytesField(r.key === undefined ? Buffer.from(`k${index}`) : r.key, r.keyLength),
      bytesField(r.value === undefined ? Buffer.from(`v${index}`) : r.value, r.valueLength),
      varint(r.headerCount ?? (r.headers ?? []).length),
      ...(r.headers ?? []).map((h) => Buffer.concat([bytesField(h.key === undefined ? Buffer.from('h') : h.key, h.keyLength), bytesField(h.value, h.valueLength)])),
      r.trailing ?? Buffer.alloc(0),
    ]);
  return Buffer.concat([varint(body.length + (r.sizeDelta ?? 0)), body]);
}

export function rawRecords(records: RawRecord[]): Buffer {
  return Buffer.concat(records.map((r, i) => rawRecord(r, i)));
}

export interface RawBatchOptions {
  baseOffset?: number;
  compression?: CompressionType;
  /** The records area is `records` compressed with `compression`, unless `compressed` gives it as is. */
  compressed?: Buffer;
  count: number;
  lastOffsetDelta?: number;
  firstTimestamp?: number;
  maxTimestamp?: number;
  attributes?: number;
  producerId?: number;
  baseSequence?: number;
}

/** A v2 batch around `records` (uncompressed record bytes) with a correct CRC. */
export function rawBatch(records: Buffer, o: RawBatchOptions): Buffer {
  const codec = o.compression ?? CompressionType.NONE;
  const area = o.compressed ?? compress(codec, records);
  const out = Buffer.alloc(61 + area.length);
  writeInt64(out, 0, o.baseOffset ?? 0);
  out.writeInt32BE(out.length - 12, 8);
  out.writeInt32BE(-1, 12);
  out.writeInt8(2, 16);
  out.writeInt16BE((o.attributes ?? 0) | codec, 21);
  out.writeInt32BE(o.lastOffsetDelta ?? o.count - 1, 23);
  writeInt64(out, 27, o.firstTimestamp ?? 1_600_000_000_000);
  writeInt64(out, 35, o.maxTimestamp ?? o.firstTimestamp ?? 1_600_000_000_000);
  writeInt64(out, 43, o.producerId ?? -1);
  out.writeInt16BE(-1, 51);
  out.writeInt32BE(o.baseSequence ?? -1, 53);
  out.writeInt32BE(o.count, 57);
  area.copy(out, 61);
  out.writeUInt32BE(crc32c(out.subarray(21)), 17);
  return out;
}

/** Recomputes the CRC of a v2 batch after a test edited it. */
export function fixCrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
  return batch;
}

const MiB = 1024 * 1024;

/**
 * One gzip member inflating to `bytes` zeros (a multiple of 1 MiB), without ever holding them: the deflate
 * blocks of one 1 MiB chunk (sync-flushed, so they end on a byte boundary and reference nothing before them)
 * repeated, a final empty block, and the real CRC-32 and size trailer. ~1 KB per MiB.
 */
export function gzipZeros(bytes: number): Buffer {
  const chunk = Buffer.alloc(MiB);
  const blocks = zlib.deflateRawSync(chunk, { level: 9, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  const final = zlib.deflateRawSync(Buffer.alloc(0));
  let crc = 0;
  for (let i = 0; i < bytes / MiB; i++) crc = zlib.crc32(chunk, crc);
  const header = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 2, 255]);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(bytes % 2 ** 32, 4);
  return Buffer.concat([header, ...Array.from({ length: bytes / MiB }, () => blocks), final, trailer]);
}

/**
 * An LZ4 frame inflating to `blocks` × 4 MiB of zeros: one 4 MiB block compressed once and repeated (a valid
 * frame: no content size, no checksums), ~16 KB per block.
 */
export function lz4Zeros(blocks: number): Buffer {
  const frame = lz4.compressFrameSync(Buffer.alloc(4 * MiB));
  // header: magic(4) FLG BD HC = 7 bytes for lz4-napi's frames (no content size, no dictionary id)
  const flg = frame[4] as number;
  if ((flg & 0x0d) !== 0) throw new Error('unexpected lz4 frame flags');
  const header = frame.subarray(0, 7);
  const blockLen = frame.readUInt32LE(7) & 0x7fffffff;
  const block = frame.subarray(7, 11 + blockLen);
  if (frame.readUInt32LE(11 + blockLen) !== 0) throw new Error('expected one block');
  return Buffer.concat([header, ...Array.from({ length: blocks }, () => block), Buffer.alloc(4)]);
}

/** A zstd frame of `bytes` zeros without a content size (streamed), built in 1 MiB steps. */
export function zstdZerosStreamed(bytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const stream = new zstd.CompressStream({ compressionLevel: 1 });
    const parts: Buffer[] = [];
    stream.on('data', (d: Buffer) => parts.push(d));
    stream.on('end', () => resolve(Buffer.concat(parts)));
    stream.on('error', reject);
    const chunk = Buffer.alloc(MiB);
    let left = bytes;
    const pump = (): void => {
      while (left > 0) {
        const n = Math.min(left, MiB);
        left -= n;
        if (!stream.write(n === MiB ? chunk : chunk.subarray(0, n))) {
          stream.once('drain', pump);
          return;
        }
      }
      stream.end();
    };
    pump();
  });
}
