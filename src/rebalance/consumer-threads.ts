/** Each member's subscription: consumer id -> topic -> number of streams (threads). */
export type Subscriptions = ReadonlyMap<string, ReadonlyMap<string, number>>;

/** The ZooKeeper consumer's thread ids: `<consumerId>-<n>` for n = 0 .. streams-1, ordered as plain strings. */
export function threadIds(consumerId: string, streams: number): string[] {
  return Array.from({ length: streams }, (_, n) => `${consumerId}-${n}`);
}
