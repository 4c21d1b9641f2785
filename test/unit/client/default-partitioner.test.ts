import { DefaultPartitioner, murmur2 } from '../../../src/client/default-partitioner';

describe("the Java client's default partitioner", () => {
  it('computes murmur2 as Kafka Utils.murmur2 does', () => {
    // Expected values from Kafka's UtilsTest.testMurmur2.
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) expect(murmur2(Buffer.from(key))).toBe(hash);
  });

  it('maps a key to murmur2 & 0x7fffffff modulo the partition count, and spreads keyless records', () => {
    const p = new DefaultPartitioner();
    expect(p.partition(Buffer.from('foobar'), 7)).toBe((-790332482 & 0x7fffffff) % 7);
    const seen = new Set<number>();
    for (let i = 0; i < 6; i++) seen.add(p.partition(null, 3));
    expect(seen.size).toBe(3);
  });
});
