import { ByteReader } from '../../../src/protocol/primitives/byte-reader';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { ProtocolError } from '../../../src/protocol/protocol-error';

describe('ByteWriter / ByteReader', () => {
  it('round-trips every primitive', () => {
    const w = new ByteWriter(4);
    w.int8(-5).int16(-300).int32(-70000).int64(-1).int64(2 ** 53 - 1).int64(1700000000000).uint32(0xffffffff).bool(true);
    w.string('héllo').string(null).compactString('x').compactString(null).bytes(Buffer.from('ab')).bytes(null);
    w.compactBytes(Buffer.from('cd')).unsignedVarint(300).varint(-1).varint(2147483647).varlong(-2).varlong(2 ** 40);
    const r = new ByteReader(w.toBuffer());
    expect([r.int8(), r.int16(), r.int32(), r.int64(), r.int64(), r.int64(), r.uint32(), r.bool()]).toEqual([-5, -300, -70000, -1, 2 ** 53 - 1, 1700000000000, 0xffffffff, true]);
    expect([r.string(false), r.string(true), r.compactString(false), r.compactString(true)]).toEqual(['héllo', null, 'x', null]);
    expect(r.bytes(false)?.toString()).toBe('ab');
    expect(r.bytes(true)).toBeNull();
    expect(r.compactBytes(false)?.toString()).toBe('cd');
    expect([r.unsignedVarint(), r.varint(), r.varint(), r.varlong(), r.varlong()]).toEqual([300, -1, 2147483647, -2, 2 ** 40]);
    expect(r.remaining).toBe(0);
  });

  it('matches the zig-zag examples of the record format', () => {
    expect(new ByteWriter().varint(-1).toBuffer()).toEqual(Buffer.from([0x01]));
    expect(new ByteWriter().varint(1).toBuffer()).toEqual(Buffer.from([0x02]));
    expect(new ByteWriter().varint(7).toBuffer()).toEqual(Buffer.from([0x0e]));
    expect(new ByteWriter().unsignedVarint(0).toBuffer()).toEqual(Buffer.from([0x00]));
  });

  it('int64 outside the safe range is clamped when written and rounded when read', () => {
    const w = new ByteWriter().int64(Number.MAX_VALUE).int64(-Infinity);
    const b = w.toBuffer();
    expect(b.readBigInt64BE(0)).toBe(2n ** 63n - 1n);
    expect(b.readBigInt64BE(8)).toBe(-(2n ** 63n));
    expect(new ByteReader(b).int64()).toBe(2 ** 63);
  });

  it('keeps large byte fields by reference (zero copy) and patches the size prefix', () => {
    const big = Buffer.alloc(5000, 7);
    const w = new ByteWriter(16);
    w.int32(0).int16(1).bytes(big).int8(9);
    w.patchInt32(0, w.length - 4);
    const chunks = w.toChunks();
    expect(chunks).toContain(big);
    const all = Buffer.concat(chunks);
    expect(all.readInt32BE(0)).toBe(all.length - 4);
    expect(all[all.length - 1]).toBe(9);
  });

  it.each([
    ['truncated int32', Buffer.from([0, 0, 1]), (r: ByteReader) => r.int32()],
    ['string longer than the frame', Buffer.from([0x7f, 0xff, 0x41]), (r: ByteReader) => r.string(false)],
    ['negative string length', Buffer.from([0xff, 0xfe]), (r: ByteReader) => r.string(true)],
    ['null non-nullable string', Buffer.from([0xff, 0xff]), (r: ByteReader) => r.string(false)],
    ['bad UTF-8', Buffer.from([0x00, 0x02, 0xc3, 0x28]), (r: ByteReader) => r.string(false)],
    ['absurd array length', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 0]), (r: ByteReader) => r.arrayLength(false, false, 4)],
    ['null non-nullable array', Buffer.from([0xff, 0xff, 0xff, 0xff]), (r: ByteReader) => r.arrayLength(false, false, 1)],
    ['bytes length -2', Buffer.from([0xff, 0xff, 0xff, 0xfe]), (r: ByteReader) => r.bytes(true)],
    ['over-long varint', Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), (r: ByteReader) => r.unsignedVarint()],
    ['unordered tags', Buffer.from([0x02, 0x05, 0x00, 0x01, 0x00]), (r: ByteReader) => r.skipTaggedFields()],
  ])('rejects %s with ProtocolError', (_name, bytes, read) => {
    expect(() => read(new ByteReader(bytes))).toThrow(ProtocolError);
  });
});
