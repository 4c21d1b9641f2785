import { Scheduler } from '../../../src/common/scheduler';
import { MockClock } from '../../helpers/mock-clock';
import { quietLogging } from '../../helpers/quiet-logging';

// Tests for src/common/scheduler.ts and the mock clock, kept beside the log tests that drive them.
describe('Scheduler on a mock clock', () => {
  let restoreLogging: () => void = () => undefined;
  beforeAll(() => {
    restoreLogging = quietLogging();
  });
  afterAll(() => restoreLogging());
  it('runs delayed and periodic tasks as time advances, and cancels them', async () => {
    const clock = new MockClock(0);
    const s = new Scheduler(clock);
    const runs: string[] = [];
    s.schedule('once', () => void runs.push(`once@${clock.nowMs()}`), 100);
    const periodic = s.schedule('tick', () => void runs.push(`tick@${clock.nowMs()}`), 50, 30);
    clock.advance(49);
    expect(runs).toEqual([]);
    clock.advance(60);
    expect(runs).toEqual(['tick@50', 'tick@80', 'once@100']);
    periodic.cancel();
    clock.advance(1000);
    expect(runs.length).toBe(3);
    await s.shutdown();
    expect(() => s.schedule('late', () => undefined, 0)).toThrow();
  });

  it('never overlaps runs of one task and survives failures', async () => {
    const clock = new MockClock(0);
    const s = new Scheduler(clock);
    let release: () => void = () => undefined;
    let started = 0;
    s.schedule('slow', () => {
      started++;
      return new Promise<void>((r) => (release = r));
    }, 0, 10);
    let failures = 0;
    s.schedule('failing', () => {
      failures++;
      throw new Error('boom');
    }, 0, 10);
    clock.advance(0);
    clock.advance(25);
    expect(started).toBe(1);
    release();
    await s.idle();
    clock.advance(10);
    expect(started).toBe(2);
    expect(failures).toBe(4);
    release();
    await s.shutdown();
    expect(s.taskNames()).toEqual([]);
  });
});
