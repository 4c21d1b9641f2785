import type { Clock } from '../common/time';

/** How a handle ended its first wait: connected, or closed by the binding first (with the close state). */
export type HandleOutcome = { connected: true } | { connected: false; code: unknown };

/** The close state given for a handle closed here for having reported no outcome in time. */
export const NO_OUTCOME = 'no outcome';

/**
 * A handle's outcome, or, when it has none within `withinMs` of `clock`'s time, `{ connected: false, code:
 * NO_OUTCOME }` after `closeHandle()`: the caller then replaces the handle as it does one the binding closed. A
 * handle made while every route to the servers was down (the chaos runs' isolations) was seen to report neither a
 * connection nor a close for minutes after the routes came back, and the broker stayed out of the cluster.
 * `closing` (the client's own close) ends the wait at once without touching the handle. The timer and the listener
 * on `closing` are gone when this resolves, whichever way it does.
 */
export async function handleOutcome(
  outcome: Promise<HandleOutcome>,
  withinMs: number,
  clock: Clock,
  closing: AbortSignal,
  closeHandle: () => void,
): Promise<HandleOutcome> {
  const timer = new AbortController();
  const stopTimer = (): void => timer.abort();
  closing.addEventListener('abort', stopTimer, { once: true });
  const first = await Promise.race([outcome, clock.sleep(withinMs, timer.signal).then(() => undefined)]);
  timer.abort();
  closing.removeEventListener('abort', stopTimer);
  if (first !== undefined) return first;
  if (closing.aborted) return { connected: false, code: undefined };
  closeHandle();
  return { connected: false, code: NO_OUTCOME };
}
