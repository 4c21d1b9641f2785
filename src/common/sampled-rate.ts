/**
 * Kafka's metrics `Rate` over a `SampledStat`: values are summed in `samples` consecutive windows of `windowMs`;
 * the rate is the sum of the live windows divided by the time they cover, where a young sensor is treated as
 * covering at least `samples - 1` full windows (Kafka's Rate.windowSize), so the first requests of a client are not
 * measured against a tiny elapsed time. Used for client quotas (ClientQuotaManager). With `simple`, Kafka's
 * SimpleRate instead (replication quotas): the time covered is what elapsed since the oldest live window, at least
 * one window, so a throttle bites from the first second rather than after ten.
 */
export class SampledRate {
  /** Start time and sum of each window, oldest first. */
  private readonly windows: { startMs: number; value: number }[] = [];

  constructor(
    private readonly samples: number,
    private readonly windowMs: number,
    private readonly simple = false,
  ) {}

  record(value: number, nowMs: number): void {
    this.purge(nowMs);
    const current = this.windows[this.windows.length - 1];
    if (current === undefined || nowMs >= current.startMs + this.windowMs) this.windows.push({ startMs: nowMs, value });
    else current.value += value;
    while (this.windows.length > this.samples) this.windows.shift();
  }

  /** Units per second. */
  rate(nowMs: number): number {
    this.purge(nowMs);
    let total = 0;
    for (const w of this.windows) total += w.value;
    return (total / this.windowSize(nowMs)) * 1000;
  }

  /** The time the rate is measured over, in ms (Kafka's Rate.windowSize). */
  windowSize(nowMs: number): number {
    const oldest = this.windows[0];
    let elapsed = oldest === undefined ? 0 : nowMs - oldest.startMs;
    if (this.simple) return Math.max(elapsed, this.windowMs);
    const fullWindows = Math.floor(elapsed / this.windowMs);
    const minFullWindows = this.samples - 1;
    if (fullWindows < minFullWindows) elapsed += (minFullWindows - fullWindows) * this.windowMs;
    return Math.max(elapsed, 1);
  }

  /** Windows older than all `samples` windows are gone (Kafka's purgeObsoleteSamples). */
  private purge(nowMs: number): void {
    const expiry = this.samples * this.windowMs;
    while (this.windows.length > 0 && nowMs - (this.windows[0] as { startMs: number }).startMs >= expiry) this.windows.shift();
  }
}
