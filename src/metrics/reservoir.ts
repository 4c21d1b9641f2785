/**
 * The samples behind a Kafka histogram or timer's percentiles: the most recent 1028 values (the size of Yammer's
 * default reservoir, which Kafka 2.8's histograms use), kept in a ring so that recording is one store and no
 * allocation. Yammer's reservoir decays exponentially towards recent values; a ring of the latest values is the
 * simpler cousin with the same intent (percentiles of recent behaviour) and is documented as such.
 */
export class Reservoir {
  private readonly values: Float64Array;
  private next = 0;
  private stored = 0;
  /** Every value ever recorded (the histogram's Count). */
  count = 0;

  constructor(size = 1028) {
    this.values = new Float64Array(size);
  }

  update(value: number): void {
    this.values[this.next] = value;
    this.next = this.next + 1 === this.values.length ? 0 : this.next + 1;
    if (this.stored < this.values.length) this.stored++;
    this.count++;
  }

  /** Each quantile's value over the stored samples (Yammer's Snapshot.getValue interpolation), read at scrape time. */
  quantiles(qs: readonly number[]): number[] {
    if (this.stored === 0) return qs.map(() => 0);
    const sorted = this.values.slice(0, this.stored).sort();
    return qs.map((q) => snapshotValue(sorted, q));
  }
}

/** Yammer's UniformSnapshot.getValue: position q * (n + 1), linear between neighbours, clamped at the ends. */
export function snapshotValue(sorted: Float64Array, q: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const pos = q * (n + 1);
  if (pos < 1) return sorted[0] as number;
  if (pos >= n) return sorted[n - 1] as number;
  const lower = sorted[Math.floor(pos) - 1] as number;
  const upper = sorted[Math.floor(pos)] as number;
  return lower + (pos - Math.floor(pos)) * (upper - lower);
}
