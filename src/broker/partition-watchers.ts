import { TopicPartition, tpString } from '../common/topic-partition';

/**
 * The waiting side of Kafka's purgatories, reduced to what an event loop needs: a long-polling fetch or an
 * acks=-1 produce registers interest in some partitions and is woken when any of them changes (append, high
 * watermark move, leadership change), or when its deadline passes. The waiter then re-checks its condition.
 */
export class PartitionWatchers {
  private readonly waiters = new Map<string, Set<() => void>>();

  notify(tp: TopicPartition): void {
    const set = this.waiters.get(tpString(tp));
    if (set === undefined) return;
    this.waiters.delete(tpString(tp));
    for (const wake of set) wake();
  }

  /** Resolves true when one of `tps` changes, false when `timeoutMs` passes first. */
  waitForChange(tps: readonly TopicPartition[], timeoutMs: number): Promise<boolean> {
    if (timeoutMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const keys = tps.map(tpString);
      const wake = (): void => finish(true);
      const finish = (changed: boolean): void => {
        clearTimeout(timer);
        for (const k of keys) this.waiters.get(k)?.delete(wake);
        resolve(changed);
      };
      const timer = setTimeout(() => finish(false), timeoutMs);
      for (const k of keys) {
        let set = this.waiters.get(k);
        if (!set) this.waiters.set(k, (set = new Set()));
        set.add(wake);
      }
    });
  }
}
