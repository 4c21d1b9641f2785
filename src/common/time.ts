import { getLogger } from './logging/logging';

/** A pending `Clock.setTimer` callback. */
export interface TimerHandle {
  cancel(): void;
}

/**
 * Time as the broker sees it. Everything that reads the wall clock or waits goes through a Clock so that tests
 * can drive time by hand (Kafka's `Time`/`MockTime`). Timers live here too, so the Scheduler can run on a mock.
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  nowMs(): number;
  /** A monotonic clock in fractional milliseconds (Kafka's Time.hiResClockMs), for measuring durations. */
  hiResClockMs(): number;
  /** Runs `callback` once after `delayMs` (0 = as soon as possible). */
  setTimer(callback: () => void | Promise<unknown>, delayMs: number): TimerHandle;
  /**
   * Resolves after `delayMs` of this clock's time, or at once when `signal` aborts (a loop's wake-up or stop);
   * it never rejects.
   */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

const timerLog = getLogger('kafka.utils.KafkaScheduler');

/** Node clamps delays above 2^31-1 ms to 1 ms; "never" in Kafka terms is Long.MAX, so clamp to the max instead. */
function clampDelay(delayMs: number): number {
  return Math.min(Math.max(0, delayMs), 0x7fffffff);
}

/** The real clock: Date.now() and Node's timers (unref'd, so pending timers never keep the process alive). */
export class SystemClock implements Clock {
  nowMs(): number {
    return Date.now();
  }

  hiResClockMs(): number {
    return performance.now();
  }

  setTimer(callback: () => void | Promise<unknown>, delayMs: number): TimerHandle {
    const timer = setTimeout(() => {
      // A timer's failure is its owner's bug, logged here; it must not reach the process (see kafka-main).
      const failed = (err: unknown): void => timerLog.error('Uncaught exception in a timer', err);
      try {
        const result = callback();
        if (result instanceof Promise) result.catch(failed);
      } catch (err) {
        failed(err);
      }
    }, clampDelay(delayMs));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    // Unlike setTimer's, this timer keeps the process alive: something is waiting for it.
    return sleepOn((callback, ms) => {
      const timer = setTimeout(callback, clampDelay(ms));
      return { cancel: () => clearTimeout(timer) };
    }, delayMs, signal);
  }
}

export const SYSTEM_CLOCK: Clock = new SystemClock();

/**
 * `Clock.sleep` on top of a timer function: resolves when the timer fires or `signal` aborts, whichever is first,
 * and cancels the other.
 */
export function sleepOn(setTimer: (callback: () => void, delayMs: number) => TimerHandle, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) {
      resolve();
      return;
    }
    const done = (): void => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimer(done, delayMs);
    signal?.addEventListener('abort', done, { once: true });
  });
}
