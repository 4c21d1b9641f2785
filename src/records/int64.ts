/**
 * int64 fields (offsets, timestamps, producer ids) as JS numbers. Kafka's values stay below 2^53 in practice;
 * reading two int32 halves is much faster than readBigInt64BE + Number() on hot paths.
 */
const TWO_32 = 4294967296;

export function readInt64(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4);
}

export function writeInt64(buf: Buffer, pos: number, value: number): void {
  const hi = Math.floor(value / TWO_32);
  buf.writeInt32BE(hi, pos);
  buf.writeUInt32BE(value - hi * TWO_32, pos + 4);
}
