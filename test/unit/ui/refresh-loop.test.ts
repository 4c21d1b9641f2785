import { RefreshLoop } from '../../../src/ui/refresh-loop';
import { MockClock } from '../../helpers/mock-clock';

/** Lets the loop's awaited step and sleep settle after the clock moved. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('the page refresh loop', () => {
  it('runs every interval, at once and briskly after hurry(), then at its interval again', async () => {
    const clock = new MockClock();
    const runs: number[] = [];
    const start = clock.nowMs();
    const loop = new RefreshLoop(async () => void runs.push(clock.nowMs() - start), { intervalMs: 1000, hurryIntervalMs: 250, hurryForMs: 1000, clock });
    await settle();
    clock.advance(1000);
    await settle();
    expect(runs).toEqual([0, 1000]);
    clock.advance(300);
    loop.hurry();
    await settle();
    // At once, then every 250 ms until 1 s after the hurry, then every second.
    for (let i = 0; i < 8; i++) {
      clock.advance(250);
      await settle();
    }
    expect(runs).toEqual([0, 1000, 1300, 1550, 1800, 2050, 2300, 3300]);
    await Promise.all([loop.stop(), settle()]);
  });

  it('goes on after a failed step, and runs again without a pause when hurried during a step', async () => {
    const clock = new MockClock();
    let runs = 0;
    const loop: RefreshLoop = new RefreshLoop(
      async () => {
        runs++;
        if (runs === 1) throw new Error('ZooKeeper is away');
        if (runs === 2) loop.hurry();
      },
      { intervalMs: 1000, hurryIntervalMs: 250, hurryForMs: 100, clock },
    );
    await settle();
    expect(runs).toBe(1);
    clock.advance(1000);
    await settle();
    expect(runs).toBe(3);
    // The third run was within the hurry (100 ms): the fourth follows 250 ms later, and then every second.
    for (const [ms, expected] of [[249, 3], [1, 4], [999, 4], [1, 5]] as const) {
      clock.advance(ms);
      await settle();
      expect(runs).toBe(expected);
    }
    await loop.stop();
  });
});
