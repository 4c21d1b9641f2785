/**
 * CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), the checksum of record batch v2 (attributes to end).
 * Uses sse4_crc32 when it built and the CPU has SSE 4.2, else @node-rs/crc32, else a table-driven JS fallback,
 * so a platform without either native module still works, only slower (`loadNative` says why in that order).
 * Check value: crc32c("123456789") = 0xE3069283.
 */
type Crc32cFn = (input: Uint8Array, initial?: number) => number;

/**
 * sse4_crc32 runs the CRC32 instruction on three interleaved streams (about 1.7x the single-stream speed of
 * @node-rs/crc32 here), which matters because every appended byte is checksummed; @node-rs/crc32 is the
 * fallback where sse4_crc32 did not build.
 */
function loadNative(): Crc32cFn | undefined {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sse4 = require('sse4_crc32') as { calculate: (input: Uint8Array, initial?: number) => number; hardware_support?: boolean };
    if (sse4.hardware_support === true) return (input, initial = 0) => sse4.calculate(input, initial) >>> 0;
  } catch {
    // fall through to the next implementation
  }
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require('@node-rs/crc32') as { crc32c: Crc32cFn };
    return mod.crc32c;
  } catch {
    return undefined;
  }
}

const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The JS fallback; exported so tests can check it against the native one. */
export function crc32cJs(data: Uint8Array, initial = 0): number {
  let crc = ~initial;
  for (let i = 0; i < data.length; i++) crc = (TABLE[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}

const native = loadNative();

/** CRC-32C of `data` as an unsigned 32-bit number. */
export function crc32c(data: Uint8Array): number {
  return native !== undefined ? native(data) >>> 0 : crc32cJs(data);
}
