/** Requests that fan out (one ZooKeeper call per partition, per group) keep at most this many outstanding. */
export const DEFAULT_FAN_OUT = 64;

/**
 * `Promise.all(items.map(fn))` with at most `limit` calls outstanding: `limit` workers take the next index in
 * turn, so a request naming a million partitions holds `limit` pending calls, not a million promises and closures.
 * Results come back in item order; the first rejection rejects the whole, as Promise.all.
 */
export async function mapBounded<T, R>(items: readonly T[], fn: (item: T, index: number) => Promise<R>, limit = DEFAULT_FAN_OUT): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
