/**
 * Kafka's ExponentialBackoff (KIP-580): initial * 2^attempts, capped, with +-20% jitter so that many clients
 * retrying after one broker failure do not arrive in lockstep.
 */
export function backoffMs(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(initialMs * 2 ** attempt, maxMs);
  const jitter = 1 + (random() * 2 - 1) * 0.2;
  return Math.max(0, Math.round(base * jitter));
}
