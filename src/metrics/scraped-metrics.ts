import { Counter, Gauge, Registry } from 'prom-client';
import { jmxExporterName, KAFKA_PERCENTILES, MBeanName, quantileLabel } from './jmx-name';
import { Reservoir } from './reservoir';

/** One exported series: its label values (by label name) and its value. */
export type Series = readonly [labels: Readonly<Record<string, string>>, value: number];

/** What a metric reads at scrape time: the series it has now. */
export type SeriesSource = () => Iterable<Series>;

/**
 * Metrics whose values are read when Prometheus scrapes, from state the broker keeps anyway (plain numbers on
 * the hot path, partitions and logs for gauges): the collect callback fills the prom-client metric afresh on
 * each scrape, so nothing is looked up or hashed while requests are served.
 */
export class ScrapedMetrics {
  constructor(readonly registry: Registry) {}

  /** A Yammer gauge's Value. */
  gauge(bean: MBeanName, help: string, source: SeriesSource): void {
    new Gauge({
      name: jmxExporterName(bean, 'Value'),
      help,
      labelNames: [...(bean.tags ?? [])],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of source()) this.set(labels, value);
      },
    });
  }

  /**
   * A gauge outside Kafka's MBeans, under a name of its own (the consumer lag that kafka_exporter users know),
   * whose source may have to ask for its values (ZooKeeper): prom-client awaits the collect callback.
   */
  namedGauge(name: string, help: string, labelNames: readonly string[], source: () => Promise<Iterable<Series>>): void {
    new Gauge({
      name,
      help,
      labelNames: [...labelNames],
      registers: [this.registry],
      async collect() {
        const series = await source();
        this.reset();
        for (const [labels, value] of series) this.set(labels, value);
      },
    });
  }

  /** A Yammer meter's Count (`...PerSec` → `_total`) or a histogram's Count (`_count`). */
  counter(bean: MBeanName, help: string, source: SeriesSource): void {
    new Counter({
      name: jmxExporterName(bean, 'Count'),
      help,
      labelNames: [...(bean.tags ?? [])],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, value] of source()) this.inc(labels, value);
      },
    });
  }

  /**
   * A Yammer histogram or timer: its Count (`_count`) and its percentiles as the bare name with a `quantile`
   * label, as the exporter's "emulate Prometheus Summary" rules have them (no `_sum`: the rules export none).
   */
  histogram(bean: MBeanName, help: string, source: () => Iterable<readonly [Readonly<Record<string, string>>, Reservoir]>): void {
    const tags = [...(bean.tags ?? [])];
    new Counter({
      name: jmxExporterName(bean, 'Count'),
      help,
      labelNames: tags,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, r] of source()) this.inc(labels, r.count);
      },
    });
    const qs = KAFKA_PERCENTILES.map((p) => p.quantile);
    new Gauge({
      name: jmxExporterName(bean, 'Percentile'),
      help,
      labelNames: [...tags, 'quantile'],
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, r] of source()) {
          const values = r.quantiles(qs);
          KAFKA_PERCENTILES.forEach((p, i) => this.set({ ...labels, quantile: quantileLabel(p.attribute) }, values[i] as number));
        }
      },
    });
  }
}
