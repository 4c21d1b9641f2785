/** The broker-wide BrokerTopicMetrics counters the sparklines draw (the JMX exporter's names, docs/metrics.md). */
export const THROUGHPUT_COUNTERS = {
  MessagesInPerSec: 'kafka_server_brokertopicmetrics_messagesin_total',
  BytesInPerSec: 'kafka_server_brokertopicmetrics_bytesin_total',
  BytesOutPerSec: 'kafka_server_brokertopicmetrics_bytesout_total',
} as const;

export type ThroughputName = keyof typeof THROUGHPUT_COUNTERS;

/** The value of a counter without labels (the broker-wide one, not a `{topic="..."}` line); undefined if absent. */
export function brokerWideCounter(exposition: string, name: string): number | undefined {
  for (const line of exposition.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith(' ')) continue;
    const value = Number(rest.trim().split(' ')[0]);
    if (Number.isFinite(value)) return value;
  }
  return undefined;
}

/**
 * Per broker, the last samples of each throughput counter turned into per-second rates (what a JMX meter's
 * OneMinuteRate approximates), at most `capacity` points: the sparklines' data. A counter that went down (the
 * broker restarted) starts a new series rather than drawing a negative rate.
 */
export class ThroughputHistory {
  private readonly last = new Map<number, { at: number; values: Partial<Record<ThroughputName, number>> }>();
  private readonly rates = new Map<number, Record<ThroughputName, number[]>>();

  constructor(private readonly capacity = 60) {}

  add(broker: number, atMs: number, exposition: string): void {
    const values: Partial<Record<ThroughputName, number>> = {};
    for (const name of Object.keys(THROUGHPUT_COUNTERS) as ThroughputName[]) {
      const v = brokerWideCounter(exposition, THROUGHPUT_COUNTERS[name]);
      if (v !== undefined) values[name] = v;
    }
    const previous = this.last.get(broker);
    this.last.set(broker, { at: atMs, values });
    if (previous === undefined || atMs <= previous.at) return;
    const series = this.rates.get(broker) ?? { MessagesInPerSec: [], BytesInPerSec: [], BytesOutPerSec: [] };
    this.rates.set(broker, series);
    for (const name of Object.keys(THROUGHPUT_COUNTERS) as ThroughputName[]) {
      const now = values[name];
      const before = previous.values[name];
      if (now === undefined || before === undefined || now < before) continue;
      series[name].push(((now - before) * 1000) / (atMs - previous.at));
      if (series[name].length > this.capacity) series[name].shift();
    }
  }

  /** Rates by broker id, oldest first. */
  snapshot(): Record<string, Record<ThroughputName, number[]>> {
    return Object.fromEntries([...this.rates].map(([id, s]) => [String(id), { MessagesInPerSec: [...s.MessagesInPerSec], BytesInPerSec: [...s.BytesInPerSec], BytesOutPerSec: [...s.BytesOutPerSec] }]));
  }
}
