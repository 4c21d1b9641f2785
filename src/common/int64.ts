/**
 * The one int64 rule of the project: INT64 in bytes (the wire, record batches, index files), JS `number` in
 * memory. Offsets, timestamps and producer ids stay far below 2^53, so a double represents them exactly; reading
 * two int32 halves is much faster than readBigInt64BE + Number() on hot paths. A value outside the safe range is
 * rounded to the nearest double when read (never an exception: a client may legitimately send Long.MAX_VALUE as a
 * sentinel) and clamped to [-2^63, 2^63-1] when written.
 */
const TWO_32 = 4294967296;
const INT64_MAX = 2n ** 63n - 1n;
const INT64_MIN = -(2n ** 63n);

export function readInt64(buf: Buffer, offset: number): number {
  const hi = buf.readInt32BE(offset);
  const lo = buf.readUInt32BE(offset + 4);
  return hi * TWO_32 + lo;
}

export function writeInt64(buf: Buffer, offset: number, value: number): void {
  if (Number.isSafeInteger(value)) {
    // Split without BigInt: the fast path for every realistic offset and timestamp.
    const lo = value % TWO_32;
    let hi = (value - lo) / TWO_32;
    let loU = lo;
    if (lo < 0) {
      loU = lo + TWO_32;
      hi -= 1;
    }
    buf.writeInt32BE(hi, offset);
    buf.writeUInt32BE(loU, offset + 4);
    return;
  }
  let big = Number.isFinite(value) ? BigInt(Math.trunc(value)) : value > 0 ? INT64_MAX : INT64_MIN;
  if (Number.isNaN(value)) big = 0n;
  if (big > INT64_MAX) big = INT64_MAX;
  if (big < INT64_MIN) big = INT64_MIN;
  buf.writeBigInt64BE(big, offset);
}

/** A long as Java prints it: the value clamped to [-2^63, 2^63-1] (an offset written as text, e.g. in ZooKeeper). */
export function formatInt64(value: number): string {
  if (Number.isSafeInteger(value)) return String(value);
  if (Number.isNaN(value)) return '0';
  let big = Number.isFinite(value) ? BigInt(Math.trunc(value)) : value > 0 ? INT64_MAX : INT64_MIN;
  if (big > INT64_MAX) big = INT64_MAX;
  if (big < INT64_MIN) big = INT64_MIN;
  return big.toString();
}

/** Java's Long.parseLong: a decimal within [-2^63, 2^63-1], rounded to the nearest double; undefined otherwise. */
export function parseInt64(text: string): number | undefined {
  if (!/^-?\d{1,19}$/.test(text)) return undefined;
  const big = BigInt(text);
  return big > INT64_MAX || big < INT64_MIN ? undefined : Number(big);
}
