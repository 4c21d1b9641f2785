import { Clock, sleepOn, TimerHandle } from '../../src/common/time';

interface PendingTimer {
  readonly id: number;
  readonly dueMs: number;
  readonly callback: () => void | Promise<unknown>;
  cancelled: boolean;
}

/**
 * A hand-driven clock (Kafka's MockTime). Time moves only through `advance`, which fires due timers in due-time
 * order (ties in creation order), each seeing `nowMs()` equal to its due time. Timers created by a firing timer
 * fire in the same `advance` if they fall due within it.
 */
export class MockClock implements Clock {
  private now: number;
  private nextId = 0;
  private timers: PendingTimer[] = [];

  constructor(startMs = 1_600_000_000_000) {
    this.now = startMs;
  }

  nowMs(): number {
    return this.now;
  }

  hiResClockMs(): number {
    return this.now;
  }

  setTimer(callback: () => void | Promise<unknown>, delayMs: number): TimerHandle {
    const timer: PendingTimer = { id: this.nextId++, dueMs: this.now + Math.max(0, delayMs), callback, cancelled: false };
    this.timers.push(timer);
    return { cancel: () => void (timer.cancelled = true) };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepOn((callback, ms) => this.setTimer(callback, ms), delayMs, signal);
  }

  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      this.timers = this.timers.filter((t) => !t.cancelled);
      let next: PendingTimer | undefined;
      for (const t of this.timers) {
        if (t.dueMs <= target && (next === undefined || t.dueMs < next.dueMs || (t.dueMs === next.dueMs && t.id < next.id))) next = t;
      }
      if (next === undefined) break;
      next.cancelled = true;
      this.now = Math.max(this.now, next.dueMs);
      void next.callback();
    }
    this.now = target;
  }

  pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}
