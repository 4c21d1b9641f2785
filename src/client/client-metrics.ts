import { Clock, SYSTEM_CLOCK } from '../common/time';

/** Kafka's client defaults: metrics.num.samples=2 windows of metrics.sample.window.ms=30000. */
const SAMPLES = 2;
const WINDOW_MS = 30_000;

type StatKind = 'avg' | 'max' | 'total' | 'rate';

interface Window {
  startMs: number;
  sum: number;
  count: number;
  max: number;
}

/**
 * One sensor's samples (Kafka's SampledStat): values fall into consecutive windows, of which the last SAMPLES
 * are kept; avg and max read the live windows (NaN when empty, as Kafka), rate divides their sum by the time
 * they cover, counting a young sensor as SAMPLES - 1 full windows (Kafka's Rate.windowSize).
 */
class Samples {
  private readonly windows: Window[] = [];
  total = 0;

  record(value: number, nowMs: number): void {
    this.total += value;
    this.purge(nowMs);
    let w = this.windows[this.windows.length - 1];
    if (w === undefined || nowMs >= w.startMs + WINDOW_MS) {
      w = { startMs: nowMs, sum: 0, count: 0, max: -Infinity };
      this.windows.push(w);
      if (this.windows.length > SAMPLES) this.windows.shift();
    }
    w.sum += value;
    w.count++;
    w.max = Math.max(w.max, value);
  }

  read(kind: StatKind, nowMs: number): number {
    this.purge(nowMs);
    if (kind === 'total') return this.total;
    let sum = 0;
    let count = 0;
    let max = -Infinity;
    for (const w of this.windows) {
      sum += w.sum;
      count += w.count;
      max = Math.max(max, w.max);
    }
    if (kind === 'rate') {
      const oldest = this.windows[0];
      let elapsed = oldest === undefined ? 0 : nowMs - oldest.startMs;
      const full = Math.floor(elapsed / WINDOW_MS);
      if (full < SAMPLES - 1) elapsed += (SAMPLES - 1 - full) * WINDOW_MS;
      return (sum / Math.max(elapsed, 1)) * 1000;
    }
    if (count === 0) return NaN;
    return kind === 'avg' ? sum / count : max;
  }

  private purge(nowMs: number): void {
    while (this.windows.length > 0 && (this.windows[0] as Window).startMs + SAMPLES * WINDOW_MS <= nowMs) this.windows.shift();
  }
}

/**
 * A client's metrics under Kafka's names, for the tools' --print-metrics: each sensor records values and shows
 * as `<group>:<name>-<stat>:{client-id=...}` (MetricName's group, name and tags, as ToolsUtils prints them).
 */
export class ClientMetrics {
  private readonly metrics = new Map<string, () => number>();

  constructor(
    private readonly clientId: string,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /**
   * A sensor named `name` in `group` with the given stats: `avg`/`max` become `<name>-avg`/`<name>-max`,
   * `total`/`rate` become `<name>-total`/`<name>-rate` (Kafka's Meter). Returns the function that records a value.
   */
  sensor(group: string, name: string, stats: readonly StatKind[]): (value: number) => void {
    const samples = new Samples();
    for (const kind of stats) this.metrics.set(`${group}:${name}-${kind}:{client-id=${this.clientId}}`, () => samples.read(kind, this.clock.nowMs()));
    return (value) => samples.record(value, this.clock.nowMs());
  }

  /** Every metric's merged name and current value. */
  snapshot(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [name, read] of this.metrics) out.set(name, read());
    return out;
  }
}

/** Kafka's ToolsUtils.printMetrics: a header, then every metric in name order as `%-Ns : %.3f`. */
export function formatMetrics(metrics: ReadonlyMap<string, number>): string[] {
  if (metrics.size === 0) return [];
  const names = [...metrics.keys()].sort();
  const width = Math.max(...names.map((n) => n.length));
  const value = (v: number): string => (Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : v.toFixed(3));
  return ['', `${'Metric Name'.padEnd(width)}   Value`, ...names.map((n) => `${n.padEnd(width)} : ${value(metrics.get(n) as number)}`)];
}
