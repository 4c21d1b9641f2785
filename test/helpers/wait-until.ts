export interface WaitUntilOptions {
  /** Give up after this long. Default 15000. */
  timeoutMs?: number;
  /** Pause between two evaluations of the predicate. Default 100. */
  intervalMs?: number;
  /** What was awaited, for the timeout error ("broker 1 to become controller"). */
  message?: string | (() => string);
}

/**
 * Evaluates `predicate` until it returns something other than false, undefined or null, and returns that: a
 * predicate may return what it was looking for (a znode's Stat, a leader's index, 0 included). A predicate that
 * throws counts as "not yet"; on timeout the error names what was awaited and carries the last thrown error as
 * `cause`. An evaluation still running at the deadline is not waited for, so a hung predicate cannot hang a test.
 */
export async function waitUntil<T>(predicate: () => T | Promise<T>, options: WaitUntilOptions = {}): Promise<Exclude<T, false | null | undefined>> {
  const { timeoutMs = 15000, intervalMs = 100 } = options;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    const remainingMs = deadline - Date.now();
    try {
      const result = await withTimeout(Promise.resolve().then(predicate), remainingMs);
      if (result.done && result.value !== false && result.value !== undefined && result.value !== null) {
        return result.value as Exclude<T, false | null | undefined>;
      }
    } catch (err) {
      lastError = err;
    }
    const leftMs = deadline - Date.now();
    if (leftMs <= 0) break;
    await delay(Math.min(intervalMs, leftMs));
  }
  const what = typeof options.message === 'function' ? options.message() : (options.message ?? 'condition');
  const last = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${last}`, { cause: lastError });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
