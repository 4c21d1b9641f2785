import * as zlib from 'node:zlib';

/**
 * CRC-32 (IEEE 802.3, java.util.zip.CRC32), the checksum of legacy messages (magic 0 and 1, magic to end of
 * value). Node 20.15+ has zlib.crc32; older 20.x builds fall back to a table. Check value of "123456789": 0xCBF43926.
 */
const TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

export function crc32Js(data: Uint8Array): number {
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = (TABLE[(crc ^ (data[i] as number)) & 0xff] as number) ^ (crc >>> 8);
  return ~crc >>> 0;
}

const zlibCrc32 = (zlib as unknown as { crc32?: (data: Uint8Array) => number }).crc32;

export function crc32(data: Uint8Array): number {
  return zlibCrc32 !== undefined ? zlibCrc32(data) >>> 0 : crc32Js(data);
}
