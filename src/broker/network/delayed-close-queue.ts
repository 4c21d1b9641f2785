import { Clock, TimerHandle } from '../../common/time';

/** What waits in the queue: a connection's delayed answer-and-close. */
export interface DelayedClose {
  /** Sends the failure response (if any) and closes; a no-op if the connection is already gone. */
  complete(): void;
}

/**
 * Kafka's Selector.delayedClosingChannels (connection.failed.authentication.delay.ms, KIP-306): a failed
 * authentication is answered and closed only after the delay, so that a client hammering wrong credentials gets
 * its answers slowly. Every entry has the same delay, so the queue is FIFO and one timer serves all of them;
 * an entry holds nothing but its connection's small failure response (the connection stops reading meanwhile),
 * so many such connections cost their count, bounded by max.connections.
 */
export class DelayedCloseQueue {
  private readonly entries: { dueMs: number; close: DelayedClose }[] = [];
  private head = 0;
  private timer: TimerHandle | undefined;

  constructor(
    readonly delayMs: number,
    private readonly clock: Clock,
  ) {}

  get size(): number {
    return this.entries.length - this.head;
  }

  add(close: DelayedClose): void {
    this.entries.push({ dueMs: this.clock.nowMs() + this.delayMs, close });
    this.schedule();
  }

  /** At shutdown: everything still waiting is answered and closed now. */
  flush(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.run(Infinity);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.size === 0) return;
    const wait = Math.max(0, (this.entries[this.head] as { dueMs: number }).dueMs - this.clock.nowMs());
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.run(this.clock.nowMs());
      this.schedule();
    }, wait);
  }

  private run(nowMs: number): void {
    while (this.head < this.entries.length && (this.entries[this.head] as { dueMs: number }).dueMs <= nowMs) {
      const e = this.entries[this.head] as { close: DelayedClose };
      this.entries[this.head++] = undefined as never;
      try {
        e.close.complete();
      } catch {
        // A connection that cannot be written any more is simply gone.
      }
    }
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
  }
}
