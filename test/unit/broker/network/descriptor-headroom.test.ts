import { DescriptorHeadroom, DescriptorUsage, readDescriptorUsage } from '../../../../src/broker/network/descriptor-headroom';
import { MockClock } from '../../../helpers/mock-clock';

describe('DescriptorHeadroom', () => {
  function withUsage(initial: DescriptorUsage): { headroom: DescriptorHeadroom; clock: MockClock; usage: { open: number; limit: number }; reads: () => number } {
    const clock = new MockClock();
    const usage = { ...initial };
    let reads = 0;
    const headroom = new DescriptorHeadroom(clock, () => {
      reads++;
      return { ...usage };
    }, 64);
    return { headroom, clock, usage, reads: () => reads };
  }

  it('refuses once only the reserve is left, and recovers when descriptors are freed', () => {
    const { headroom, usage } = withUsage({ open: 100, limit: 200 });
    expect(headroom.exhausted()).toBeUndefined();
    usage.open = 136;
    // 36 accepts later the count is refreshed (half of the 100 - 64 headroom), and refuses.
    let refused: DescriptorUsage | undefined;
    for (let i = 0; i < 40 && refused === undefined; i++) refused = headroom.exhausted();
    expect(refused).toEqual({ open: 136, limit: 200 });
    expect(headroom.recovered()).toBe(false);
    usage.open = 120;
    expect(headroom.recovered()).toBe(true);
  });

  it('reads /proc once per 16 accepts while the headroom is large, and at least every 100 ms', () => {
    const { headroom, clock, usage, reads } = withUsage({ open: 100, limit: 100_100 });
    for (let i = 0; i < 1600; i++) headroom.exhausted();
    expect(reads()).toBe(100);
    // A lowered limit (prlimit on a running broker) is seen within the interval...
    usage.limit = 150;
    clock.advance(100);
    expect(headroom.exhausted()).toEqual({ open: 100, limit: 150 });
    // ...or within 16 accepts, whichever comes first.
    usage.limit = 100_100;
    expect(headroom.recovered()).toBe(true);
    usage.limit = 150;
    let refused;
    let accepts = 0;
    while (refused === undefined && accepts < 100) {
      refused = headroom.exhausted();
      accepts++;
    }
    expect(accepts).toBe(16);
  });

  it('never refuses where the usage cannot be read', () => {
    const headroom = new DescriptorHeadroom(new MockClock(), () => undefined, 64);
    for (let i = 0; i < 1000; i++) expect(headroom.exhausted()).toBeUndefined();
    expect(headroom.recovered()).toBe(true);
  });

  it('reads this process on Linux', () => {
    const usage = readDescriptorUsage();
    if (process.platform !== 'linux') return;
    expect(usage?.open).toBeGreaterThan(2);
    expect(usage?.limit).toBeGreaterThan(usage?.open ?? 0);
  });
});
