import { performance, EventLoopUtilization } from 'node:perf_hooks';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { BROKER_TOPIC_METERS, BrokerTopicStats } from './broker-topic-stats';
import { ControllerStats } from './controller-stats';
import { MBeanName } from './jmx-name';
import { REQUEST_TIME_HISTOGRAMS, RequestMetrics } from './request-metrics';
import { Reservoir } from './reservoir';
import { ScrapedMetrics, Series, SeriesSource } from './scraped-metrics';
import { ZooKeeperClientStats } from './zookeeper-client-stats';

/** Counters that broker parts move on rare events (ISR changes): plain numbers read at scrape time. */
export class EventCounts {
  isrShrinks = 0;
  isrExpands = 0;
}

/**
 * One broker's metrics registry, with the names of Kafka 2.8's MBeans as the Prometheus JMX exporter renders them
 * (see jmx-name.ts). The hot paths hold `brokerTopicStats`, `requests` and the reservoirs and add plain numbers;
 * everything else is a gauge the broker registers with `gauge()`, read from its own state at scrape time.
 * Also the process and Node.js defaults of prom-client (the JVM's java.lang MBeans' counterpart).
 */
export class KafkaMetrics {
  readonly registry = new Registry();
  readonly brokerTopicStats = new BrokerTopicStats();
  readonly requests = new RequestMetrics();
  readonly events = new EventCounts();
  /** ControllerStats: the controller's event timers and unclean elections. */
  readonly controllerStats = new ControllerStats();
  /** LogFlushStats' LogFlushRateAndTimeMs: one sample per segment flush. */
  readonly logFlush = new Reservoir();
  /** ZooKeeperClientMetrics and the SessionExpireListener meters of the broker's ZooKeeper client. */
  readonly zooKeeperClient = new ZooKeeperClientStats();
  private readonly scraped = new ScrapedMetrics(this.registry);
  private lastUtilization: EventLoopUtilization = performance.eventLoopUtilization();

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    this.registerBrokerTopicMetrics();
    this.registerRequestMetrics();
    this.registerEventStats();
    const s = this.scraped;
    const one = (value: () => number): SeriesSource => () => [[{}, value()]];
    s.counter({ domain: 'server', type: 'ReplicaManager', name: 'IsrShrinksPerSec' }, 'ISR shrinks of partitions led here', one(() => this.events.isrShrinks));
    s.counter({ domain: 'server', type: 'ReplicaManager', name: 'IsrExpandsPerSec' }, 'ISR expansions of partitions led here', one(() => this.events.isrExpands));
    // The event loop stands for Kafka's network processor threads: idle is the share of time it was not busy
    // since the previous scrape (performance.eventLoopUtilization), between 0 and 1 as Kafka's gauge is.
    s.gauge({ domain: 'network', type: 'SocketServer', name: 'NetworkProcessorAvgIdlePercent' }, 'Share of time the event loop was idle since the last scrape', one(() => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, this.lastUtilization);
      this.lastUtilization = now;
      return 1 - since.utilization;
    }));
  }

  /** A gauge read from the broker's state at scrape time. */
  gauge(bean: MBeanName, help: string, source: SeriesSource): void {
    this.scraped.gauge(bean, help, source);
  }

  /** A counter read from the broker's state at scrape time. */
  counter(bean: MBeanName, help: string, source: SeriesSource): void {
    this.scraped.counter(bean, help, source);
  }

  /** A gauge under a name of its own (not an MBean's), whose values may take a request to read. */
  namedGauge(name: string, help: string, labelNames: readonly string[], source: () => Promise<Iterable<Series>>): void {
    this.scraped.namedGauge(name, help, labelNames, source);
  }

  /** The Prometheus text exposition of every metric. */
  exposition(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private registerBrokerTopicMetrics(): void {
    const stats = this.brokerTopicStats;
    for (const meter of BROKER_TOPIC_METERS) {
      // The broker-wide MBean has no topic key and the per-topic ones have one; the exporter renders both under
      // one name, the broker-wide series without a label.
      this.scraped.counter({ domain: 'server', type: 'BrokerTopicMetrics', name: meter.name, tags: ['topic'] }, meter.help, function* (): Iterable<Series> {
        yield [{}, stats.allTopics[meter.field]];
        for (const [topic, t] of stats.entries()) yield [{ topic }, t[meter.field]];
      });
    }
  }

  private registerRequestMetrics(): void {
    const requests = this.requests;
    this.scraped.counter({ domain: 'network', type: 'RequestMetrics', name: 'RequestsPerSec', tags: ['request', 'version'] }, 'Requests answered, by type and version', function* (): Iterable<Series> {
      for (const m of requests.all()) {
        for (let v = 0; v < m.requestsByVersion.length; v++) {
          const n = m.requestsByVersion[v];
          if (n !== undefined) yield [{ request: m.request, version: String(v) }, n];
        }
      }
    });
    this.scraped.counter({ domain: 'network', type: 'RequestMetrics', name: 'ErrorsPerSec', tags: ['request', 'error'] }, 'Error codes in responses, by request type', function* (): Iterable<Series> {
      for (const m of requests.all()) for (const [error, n] of m.errors) yield [{ request: m.request, error }, n];
    });
    for (const h of REQUEST_TIME_HISTOGRAMS) {
      this.scraped.histogram({ domain: 'network', type: 'RequestMetrics', name: h.name, tags: ['request'] }, h.help, () => requests.all().map((m) => [{ request: m.request }, m[h.field]] as const));
    }
  }

  /** ControllerStats, LogFlushStats and the ZooKeeper client's metrics: timers and meters the hooks fill. */
  private registerEventStats(): void {
    const s = this.scraped;
    const controller = this.controllerStats;
    for (const [name, reservoir] of controller.timers) {
      s.histogram({ domain: 'controller', type: 'ControllerStats', name }, 'Controller events of this kind and their time in ms', () => [[{}, reservoir]]);
    }
    s.counter({ domain: 'controller', type: 'ControllerStats', name: 'UncleanLeaderElectionsPerSec' }, 'Leaders elected from outside the ISR', () => [[{}, controller.uncleanLeaderElections]]);
    s.histogram({ domain: 'log', type: 'LogFlushStats', name: 'LogFlushRateAndTimeMs' }, 'Segment flushes to disk and their time in ms', () => [[{}, this.logFlush]]);
    const zk = this.zooKeeperClient;
    s.histogram({ domain: 'server', type: 'ZooKeeperClientMetrics', name: 'ZooKeeperRequestLatencyMs' }, 'ZooKeeper request round trips in ms', () => [[{}, zk.requestLatencyMs]]);
    for (const [event] of zk.sessionEvents) {
      s.counter({ domain: 'server', type: 'SessionExpireListener', name: `ZooKeeper${event}PerSec` }, `ZooKeeper session events: ${event.toLowerCase()}`, () => [[{}, zk.sessionEvents.get(event) ?? 0]]);
    }
  }
}
