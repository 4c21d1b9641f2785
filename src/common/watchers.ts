import { Clock, SYSTEM_CLOCK } from './time';

/**
 * The waiting side of Kafka's purgatories (DelayedOperationPurgatory's Watchers), reduced to what an event loop
 * needs: a waiter registers interest in some keys (partitions, topics) and is woken when any of them is
 * notified, or when its deadline passes; it then re-checks its own condition. Used by long-polling fetches and
 * acks=-1 produces (keyed by partition) and by CreateTopics/DeleteTopics waiting for the metadata cache (keyed
 * by topic).
 */
export class Watchers<K> {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly keyOf: (key: K) => string,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /** Wakes everyone waiting on `key`. */
  /** In-flight waitForChange and waitUntil calls (the purgatories' NumDelayedOperations of produce and fetch). */
  waitingForChange = 0;
  waitingUntil = 0;

  notify(key: K): void {
    const k = this.keyOf(key);
    const set = this.waiters.get(k);
    if (set === undefined) return;
    // Waiters remove themselves when they complete (waitUntil's stay registered until then).
    for (const wake of [...set]) wake();
  }

  /** Resolves true when one of `keys` is notified, false when `timeoutMs` passes first. */
  waitForChange(keys: readonly K[], timeoutMs: number): Promise<boolean> {
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const ks = keys.map(this.keyOf);
      const wake = (): void => finish(true);
      this.waitingForChange++;
      const finish = (changed: boolean): void => {
        this.waitingForChange--;
        timer.cancel();
        this.unregister(ks, wake);
        resolve(changed);
      };
      const timer = this.clock.setTimer(() => finish(false), timeoutMs);
      this.register(ks, wake);
    });
  }

  /**
   * Waits until `done()` holds, re-checking whenever one of `keys` is notified;
   * resolves false if `timeoutMs` passes first (Kafka's tryComplete / onExpiration pair). The waiter stays
   * registered on its keys until it completes: a fetch parked on thousands of partitions (a follower's) is woken
   * by each of their changes, and registering it again after every wake would cost as many set operations each
   * time. Notifications within one turn of the event loop cost one check.
   */
  waitUntil(done: () => boolean, keys: readonly K[], timeoutMs: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const ks = [...new Set(keys.map(this.keyOf))];
      let finished = false;
      let checkQueued = false;
      const finish = (result: boolean): void => {
        if (finished) return;
        finished = true;
        this.waitingUntil--;
        timer.cancel();
        this.unregister(ks, wake);
        resolve(result);
      };
      const wake = (): void => {
        if (checkQueued || finished) return;
        checkQueued = true;
        queueMicrotask(() => {
          checkQueued = false;
          if (!finished && done()) finish(true);
        });
      };
      this.waitingUntil++;
      const timer = this.clock.setTimer(() => finish(done()), timeoutMs);
      this.register(ks, wake);
    });
  }

  private register(keys: readonly string[], wake: () => void): void {
    for (const k of keys) {
      let set = this.waiters.get(k);
      if (!set) this.waiters.set(k, (set = new Set()));
      set.add(wake);
    }
  }

  private unregister(keys: readonly string[], wake: () => void): void {
    for (const k of keys) {
      const set = this.waiters.get(k);
      if (set === undefined) continue;
      set.delete(wake);
      if (set.size === 0) this.waiters.delete(k);
    }
  }
}
