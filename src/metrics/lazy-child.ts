/** What lazyChild needs of a cache: a Map, keyed by topic name or API key. */
export interface ChildCache<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): unknown;
}

/**
 * The child stats under `key` (a topic's, an API's), made by `create(arg)` on first use and cached, as Kafka's
 * metric pools do: afterwards one lookup per use. `create` and `arg` come separately so that callers on the
 * request path pass a module-level function and a value, and allocate no closure per request.
 */
export function lazyChild<K, V, A>(cache: ChildCache<K, V>, key: K, create: (arg: A) => V, arg: A): V {
  let child = cache.get(key);
  if (child === undefined) cache.set(key, (child = create(arg)));
  return child;
}
