/**
 * Time as the broker sees it. Everything that reads the wall clock or waits goes through a Clock so that tests
 * can drive time by hand (Kafka's `Time`/`MockTime`). Timers live here too, so the Scheduler can run on a mock.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** Runs `callback` once after `delayMs` (0 = as soon as possible). */
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  /** Resolves after `delayMs` of this clock's time. */
  sleep(delayMs: number): Promise<void>;
}

/** The real clock: Date.now() and Node's timers (unref'd, so pending timers never keep the process alive). */
export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    // Node clamps delays above 2^31-1 ms to 1 ms; "never" in Kafka terms is Long.MAX, so clamp to the max instead.
    const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), 0x7fffffff));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  }

  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => {
      setTimeout(resolve, Math.min(Math.max(0, delayMs), 0x7fffffff));
    });
  }
}

export const SYSTEM_CLOCK: Clock = new SystemClock();
