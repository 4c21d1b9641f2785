/**
 * At most `permits` holders at a time; the rest wait in arrival order (Java's Semaphore with fairness, as Kafka's
 * ZooKeeperClient uses for zookeeper.max.in.flight.requests). Bounds fan-out: a request that would start a
 * million ZooKeeper operations keeps only `permits` of them outstanding.
 */
export class Semaphore {
  private available: number;
  private readonly waiting: (() => void)[] = [];

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new Error(`A semaphore needs at least one permit, not ${permits}`);
    this.available = permits;
  }

  /** Resolves with the function that gives the permit back (call it exactly once). */
  async acquire(): Promise<() => void> {
    if (this.available > 0) this.available--;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // Handed straight to the next waiter: a newcomer cannot overtake the queue.
      if (next !== undefined) next();
      else this.available++;
    };
  }

  /** Permits not held right now. */
  get availablePermits(): number {
    return this.available;
  }

  /** Callers waiting for a permit. */
  get queueLength(): number {
    return this.waiting.length;
  }
}
