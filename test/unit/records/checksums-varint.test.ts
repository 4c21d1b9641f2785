import fc from 'fast-check';
import { crc32c, crc32cJs } from '../../../src/records/crc32c';
import { crc32, crc32Js } from '../../../src/records/crc32';
import { readVarint, readVarlong, writeVarint, writeVarlong, zigzagSize32, zigzagSize64 } from '../../../src/records/varint';

describe('checksums', () => {
  it('match the check values of "123456789"', () => {
    const data = Buffer.from('123456789');
    expect(crc32c(data)).toBe(0xe3069283);
    expect(crc32cJs(data)).toBe(0xe3069283);
    expect(crc32(data)).toBe(0xcbf43926);
    expect(crc32Js(data)).toBe(0xcbf43926);
  });

  it('native and JS implementations agree', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (arr) => {
        const b = Buffer.from(arr);
        expect(crc32c(b)).toBe(crc32cJs(b));
        expect(crc32(b)).toBe(crc32Js(b));
      }),
      { seed: 42, numRuns: 200 },
    );
  });
});

describe('varint', () => {
  it('encodes the reference examples', () => {
    const cases: Array<[number, string]> = [
      [0, '00'],
      [-1, '01'],
      [1, '02'],
      [63, '7e'],
      [-64, '7f'],
      [64, '8001'],
      [300, 'd804'],
    ];
    for (const [v, hex] of cases) {
      const b = Buffer.alloc(10);
      expect(b.subarray(0, writeVarint(b, 0, v)).toString('hex')).toBe(hex);
      expect(b.subarray(0, writeVarlong(b, 0, v)).toString('hex')).toBe(hex);
    }
  });

  it('round-trips int32 values and int64 values below 2^52 in magnitude', () => {
    fc.assert(
      fc.property(fc.integer({ min: -2147483648, max: 2147483647 }), fc.integer({ min: -(2 ** 52) + 1, max: 2 ** 52 - 1 }), (i, l) => {
        const b = Buffer.alloc(10);
        const n = writeVarint(b, 0, i);
        expect(n).toBe(zigzagSize32(i));
        expect(readVarint(b, 0)).toEqual({ value: i, next: n });
        const m = writeVarlong(b, 0, l);
        expect(m).toBe(zigzagSize64(l));
        expect(readVarlong(b, 0)).toEqual({ value: l, next: m });
      }),
      { seed: 7, numRuns: 500 },
    );
  });

  it('refuses truncated and over-long varints', () => {
    expect(() => readVarint(Buffer.from([0x80]), 0)).toThrow();
    expect(() => readVarint(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01]), 0)).toThrow();
  });
});
