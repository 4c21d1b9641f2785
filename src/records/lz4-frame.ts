import * as lz4 from 'lz4-napi';
import { InflateLimitExceeded } from './inflate-limit';

/**
 * Bounded reading of one LZ4 frame (the format Kafka's KafkaLZ4BlockOutputStream, librdkafka and kafkajs-lz4
 * write):
 *
 *   magic          uint32 LE  0x184D2204
 *   FLG            int8       version (bits 7-6) = 01, block independence, block checksum (bit 4),
 *                             content size (bit 3), content checksum (bit 2), dictionary id (bit 0)
 *   BD             int8       block maximum size (bits 6-4): 4 = 64 KiB, 5 = 256 KiB, 6 = 1 MiB, 7 = 4 MiB
 *   content size   uint64 LE  if FLG bit 3
 *   dictionary id  uint32 LE  if FLG bit 0
 *   HC             int8       header checksum
 *   blocks         { uint32 LE size (high bit: stored uncompressed), data, uint32 checksum if FLG bit 4 }
 *   end mark       uint32 0, then a uint32 content checksum if FLG bit 2
 *
 * A compressed block inflates to at most the block maximum size, so the block sizes give an upper bound of the
 * output before anything is decompressed. When it is within the cap (always, for frames real producers write:
 * their blocks are full but the last) the frame goes to lz4-napi in one call; otherwise the blocks are inflated
 * one at a time and the real output is counted, stopping at the cap (at most one block beyond it is ever held).
 * Like Kafka's reader, only the first frame is read; bytes after its end mark are ignored.
 */
const LZ4_FRAME_MAGIC = 0x184d2204;
const BLOCK_MAX_SIZES = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

export function lz4FrameDecompress(data: Buffer, maxBytes: number): Buffer {
  if (data.length < 7 || data.readUInt32LE(0) !== LZ4_FRAME_MAGIC) throw new Error('Not an LZ4 frame (invalid magic bytes)');
  const flg = data[4] as number;
  const bd = data[5] as number;
  if (flg >> 6 !== 1) throw new Error(`Unsupported LZ4 frame version ${flg >> 6}`);
  const blockMax = BLOCK_MAX_SIZES[(bd >> 4) & 7] ?? 0;
  if (blockMax === 0) throw new Error(`Invalid LZ4 block maximum size code ${(bd >> 4) & 7}`);
  const blockChecksum = (flg & 0x10) !== 0;
  let pos = 6;
  if ((flg & 0x08) !== 0) {
    if (pos + 8 > data.length) throw new Error('Truncated LZ4 frame header');
    if (Number(data.readBigUInt64LE(pos)) > maxBytes) throw new InflateLimitExceeded();
    pos += 8;
  }
  if ((flg & 0x01) !== 0) pos += 4;
  pos += 1; // header checksum, checked by the decoder
  const firstBlock = pos;
  let bound = 0;
  for (;;) {
    if (pos + 4 > data.length) throw new Error('Truncated LZ4 frame (no end mark)');
    const word = data.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const len = word & 0x7fffffff;
    if (len > blockMax) throw new Error(`LZ4 block of ${len} bytes exceeds the frame's block maximum ${blockMax}`);
    pos += len + (blockChecksum ? 4 : 0);
    if (pos > data.length) throw new Error('Truncated LZ4 block');
    bound += word >>> 31 === 1 ? len : blockMax;
  }
  if (bound <= maxBytes) return lz4.decompressFrameSync(data);
  return blockByBlock(data, firstBlock, blockMax, blockChecksum, maxBytes);
}

function blockByBlock(data: Buffer, start: number, blockMax: number, blockChecksum: boolean, maxBytes: number): Buffer {
  const parts: Buffer[] = [];
  const sizePrefix = Buffer.allocUnsafe(4);
  sizePrefix.writeUInt32LE(blockMax, 0);
  let total = 0;
  let pos = start;
  for (;;) {
    const word = data.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const len = word & 0x7fffffff;
    const block = data.subarray(pos, pos + len);
    // lz4-napi's uncompressSync reads a raw block behind a little-endian size that bounds its output.
    const out = word >>> 31 === 1 ? block : lz4.uncompressSync(Buffer.concat([sizePrefix, block]));
    total += out.length;
    if (total > maxBytes) throw new InflateLimitExceeded();
    parts.push(out);
    pos += len + (blockChecksum ? 4 : 0);
  }
  return Buffer.concat(parts, total);
}
