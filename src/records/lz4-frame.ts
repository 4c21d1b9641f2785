import { InflateLimitExceeded } from './inflate-limit';

/**
 * Bounded reading of one LZ4 frame (the format Kafka's KafkaLZ4BlockOutputStream, librdkafka and kafkajs-lz4
 * write):
 *
 *   magic          uint32 LE  0x184D2204
 *   FLG            int8       version (bits 7-6) = 01, block independence (bit 5), block checksum (bit 4),
 *                             content size (bit 3), content checksum (bit 2), dictionary id (bit 0)
 *   BD             int8       block maximum size (bits 6-4): 4 = 64 KiB, 5 = 256 KiB, 6 = 1 MiB, 7 = 4 MiB
 *   content size   uint64 LE  if FLG bit 3
 *   dictionary id  uint32 LE  if FLG bit 0
 *   HC             int8       header checksum
 *   blocks         { uint32 LE size (high bit: stored uncompressed), data, uint32 checksum if FLG bit 4 }
 *   end mark       uint32 0, then a uint32 content checksum if FLG bit 2
 *
 * The blocks are decoded here, in two passes: the first reads only the compressed bytes (token and length
 * fields) to check the structure and learn the exact output size, so a frame that would inflate beyond the cap
 * is refused before any output is allocated, at a cost proportional to its compressed size; the second decodes
 * into a buffer of exactly that size (long matches, the stuff of bombs, copied by doubling runs at memcpy
 * speed). Decoding in JS also avoids lz4-napi's frame decoder, which allocates a whole maximum-size block
 * (4 MiB for lz4-napi's own frames) per call and costs ~40 µs for a 16 KiB batch. The xxHash checksums (header, blocks, content) are not verified: the batch's CRC-32C already
 * covers every compressed byte. Like Kafka's reader, only the first frame is read; bytes after its end mark are
 * ignored.
 */
const LZ4_FRAME_MAGIC = 0x184d2204;
const BLOCK_MAX_SIZES = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

class Lz4Error extends Error {}

/** The frame's blocks, as [start, end, uncompressed?] triples of `data` (module scratch, reused). */
let blocks: number[] = [];

export function lz4FrameDecompress(data: Buffer, maxBytes: number): Buffer {
  if (data.length < 7 || data.readUInt32LE(0) !== LZ4_FRAME_MAGIC) throw new Lz4Error('Not an LZ4 frame (invalid magic bytes)');
  const flg = data[4] as number;
  const bd = data[5] as number;
  if (flg >> 6 !== 1) throw new Lz4Error(`Unsupported LZ4 frame version ${flg >> 6}`);
  const blockMax = BLOCK_MAX_SIZES[(bd >> 4) & 7] ?? 0;
  if (blockMax === 0) throw new Lz4Error(`Invalid LZ4 block maximum size code ${(bd >> 4) & 7}`);
  const independent = (flg & 0x20) !== 0;
  const blockChecksum = (flg & 0x10) !== 0;
  let pos = 6;
  if ((flg & 0x08) !== 0) {
    if (pos + 8 > data.length) throw new Lz4Error('Truncated LZ4 frame header');
    if (Number(data.readBigUInt64LE(pos)) > maxBytes) throw new InflateLimitExceeded();
    pos += 8;
  }
  if ((flg & 0x01) !== 0) pos += 4;
  pos += 1; // header checksum
  // Pass 1, over the compressed bytes only: block boundaries, sequence structure and the exact output size.
  // A bomb is refused here, before any output is allocated, at a cost proportional to its compressed size.
  blocks.length = 0;
  let total = 0;
  for (;;) {
    if (pos + 4 > data.length) throw new Lz4Error('Truncated LZ4 frame (no end mark)');
    const word = data.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const len = word & 0x7fffffff;
    if (len > blockMax) throw new Lz4Error(`LZ4 block of ${len} bytes exceeds the frame's block maximum ${blockMax}`);
    if (pos + len > data.length) throw new Lz4Error('Truncated LZ4 block');
    const stored = word >>> 31 === 1;
    const size = stored ? len : blockSize(data, pos, pos + len, independent ? 0 : total, maxBytes - total);
    if (size > blockMax) throw new Lz4Error(`LZ4 block decodes to more than the frame's block maximum ${blockMax}`);
    total += size;
    if (total > maxBytes) throw new InflateLimitExceeded();
    blocks.push(pos, pos + len, stored ? 1 : 0);
    pos += len + (blockChecksum ? 4 : 0);
  }
  // Pass 2: decode into a buffer of exactly that size.
  const out = Buffer.allocUnsafe(total);
  let op = 0;
  for (let i = 0; i < blocks.length; i += 3) {
    const start = blocks[i] as number;
    const end = blocks[i + 1] as number;
    if (blocks[i + 2] === 1) {
      data.copy(out, op, start, end);
      op += end - start;
    } else {
      op = decodeBlock(data, start, end, out, op);
    }
  }
  if (blocks.length > 3 * 1024) blocks = [];
  return out;
}

/**
 * The output size of one LZ4 block `src[ip, end)`, checking its structure: lengths within the block, match
 * offsets within what precedes them (`before` bytes of earlier blocks when blocks are linked). Stops at `limit`.
 */
function blockSize(src: Buffer, ip: number, end: number, before: number, limit: number): number {
  let size = 0;
  for (;;) {
    if (ip >= end) return size; // a block should end with literals, but a match ending it is harmless
    const token = src[ip++] as number;
    let literals = token >>> 4;
    if (literals === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) throw new Lz4Error('Truncated LZ4 literal length');
        b = src[ip++] as number;
        literals += b;
      }
    }
    if (literals > end - ip) throw new Lz4Error('LZ4 literals run past the end of the block');
    ip += literals;
    size += literals;
    if (ip === end) return size; // the last sequence has literals only
    if (ip + 2 > end) throw new Lz4Error('Truncated LZ4 match offset');
    const offset = (src[ip] as number) | ((src[ip + 1] as number) << 8);
    ip += 2;
    if (offset === 0 || offset > size + before) throw new Lz4Error(`Invalid LZ4 match offset ${offset}`);
    let length = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b = 255;
      while (b === 255) {
        if (ip >= end) throw new Lz4Error('Truncated LZ4 match length');
        b = src[ip++] as number;
        length += b;
      }
    }
    size += length;
    if (size > limit) throw new InflateLimitExceeded();
  }
}

/** Decodes one LZ4 block `src[ip, end)`, already checked by `blockSize`, into `out` at `op`; returns the end. */
function decodeBlock(src: Buffer, ip: number, end: number, out: Buffer, op: number): number {
  for (;;) {
    if (ip >= end) return op;
    const token = src[ip++] as number;
    let literals = token >>> 4;
    if (literals === 15) {
      let b = 255;
      while (b === 255) {
        b = src[ip++] as number;
        literals += b;
      }
    }
    if (literals < 16) {
      for (let i = 0; i < literals; i++) out[op + i] = src[ip + i] as number;
    } else {
      src.copy(out, op, ip, ip + literals);
    }
    ip += literals;
    op += literals;
    if (ip === end) return op;
    const offset = (src[ip] as number) | ((src[ip + 1] as number) << 8);
    ip += 2;
    let length = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b = 255;
      while (b === 255) {
        b = src[ip++] as number;
        length += b;
      }
    }
    if (length <= 32 && offset >= 8) {
      for (let i = 0; i < length; i++) out[op + i] = out[op - offset + i] as number;
    } else if (offset >= length) {
      out.copyWithin(op, op - offset, op - offset + length);
    } else {
      // An overlapping match repeats the last `offset` bytes: copy runs of a multiple of the period, doubling.
      let distance = offset;
      let left = length;
      let at = op;
      while (left > 0) {
        const n = Math.min(distance, left);
        out.copyWithin(at, at - distance, at - distance + n);
        at += n;
        left -= n;
        distance *= 2;
      }
    }
    op += length;
  }
}
