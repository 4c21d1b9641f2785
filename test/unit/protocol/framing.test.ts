import fc from 'fast-check';
import { FrameDecoder } from '../../../src/protocol/framing';
import { ProtocolError } from '../../../src/protocol/protocol-error';

function framed(payloads: Buffer[]): Buffer {
  return Buffer.concat(payloads.flatMap((p) => [Buffer.from([(p.length >>> 24) & 255, (p.length >>> 16) & 255, (p.length >>> 8) & 255, p.length & 255]), p]));
}

describe('FrameDecoder', () => {
  it('splits frames however the stream is chunked', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 50 }), { maxLength: 10 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1 }), (raw, cuts) => {
        const payloads = raw.map((a) => Buffer.from(a));
        const stream = framed(payloads);
        const d = new FrameDecoder(1000);
        const out: Buffer[] = [];
        let pos = 0;
        let i = 0;
        while (pos < stream.length) {
          const n = cuts[i++ % cuts.length] as number;
          d.push(stream.subarray(pos, pos + n), (f) => out.push(Buffer.from(f)));
          pos += n;
        }
        expect(out).toEqual(payloads);
        expect(d.bufferedBytes).toBe(0);
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('rejects a size above the limit or negative before allocating', () => {
    expect(() => new FrameDecoder(100).push(Buffer.from([0, 0, 0, 101]), () => undefined)).toThrow(ProtocolError);
    expect(() => new FrameDecoder(100).push(Buffer.from([0xff, 0xff, 0xff, 0xff]), () => undefined)).toThrow(/size = -1/);
    // A TLS ClientHello read as a size: ~369 million.
    expect(() => new FrameDecoder(104857600).push(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]), () => undefined)).toThrow(/larger than 104857600/);
  });

  it('returns in-chunk frames as slices (no copy)', () => {
    const stream = framed([Buffer.from('abc')]);
    let got: Buffer | undefined;
    new FrameDecoder(100).push(stream, (f) => (got = f));
    expect(got?.buffer).toBe(stream.buffer);
  });

  it('a frame trickling in one byte at a time is held in a few buffers, each byte copied once', () => {
    const payload = Buffer.alloc(200_000, 7);
    const stream = framed([payload]);
    const d = new FrameDecoder(1 << 20);
    let got: Buffer | undefined;
    let mostChunks = 0;
    for (let i = 0; i < stream.length; i++) {
      d.push(stream.subarray(i, i + 1), (f) => (got = f));
      mostChunks = Math.max(mostChunks, (Reflect.get(d, 'chunks') as Buffer[]).length);
    }
    expect(got).toEqual(payload);
    // Tails of 256, 512, ... 16384 bytes: about 200,000 / 16,384 + 7 buffers, not 200,000.
    expect(mostChunks).toBeLessThan(25);
  });

  it('large chunks are kept as they are, not copied into the tail', () => {
    const payload = Buffer.alloc(3 * 8192, 1);
    const stream = framed([payload]);
    const d = new FrameDecoder(1 << 20);
    let got: Buffer | undefined;
    for (let i = 0; i < stream.length; i += 8192) d.push(stream.subarray(i, i + 8192), (f) => (got = f));
    expect(got).toEqual(payload);
  });
});
