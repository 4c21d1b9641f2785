/**
 * How the Prometheus JMX exporter's standard Kafka rules (example_configs/kafka-2_0_0.yml, lowercaseOutputName)
 * render a Kafka MBean attribute: `kafka.<domain>:type=T,name=N[,k=v...]` becomes `kafka_<domain>_<t>_<n>`,
 * lowercased, with the MBean's other keys as labels (names kept as written: the file does not lowercase label
 * names). Per-second meters (`...PerSec`) export their Count as `_total`; histograms and timers their Count as
 * `_count` and each `NNthPercentile` as the bare name with `quantile="0.NN"`; gauges their Value as the bare name.
 * Operators' dashboards and alerts are written against exactly these names, so they are computed from the MBean
 * here rather than typed by hand next to each metric.
 */
export interface MBeanName {
  /** `server` for kafka.server, `coordinator.group` for kafka.coordinator.group. */
  readonly domain: string;
  readonly type: string;
  readonly name: string;
  /** The MBean's further keys, in the MBean's order (topic, partition, request, ...). */
  readonly tags?: readonly string[];
}

export type MBeanAttribute = 'Value' | 'Count' | 'Percentile';

/** The Prometheus metric name the standard rules give the attribute. */
export function jmxExporterName(bean: MBeanName, attribute: MBeanAttribute): string {
  // kafka.coordinator.(\w+)<type, name><>Value keeps the sub-domain: kafka_coordinator_group_<type>_<name>.
  const domain = bean.domain.replace(/\./g, '_');
  const base = `kafka_${domain}_${bean.type}`;
  if (attribute === 'Count') {
    // The rule's `name=(.+)PerSec\w*` is greedy: the meter's name up to its last "PerSec".
    const perSec = /^(.+)PerSec\w*$/.exec(bean.name);
    if (perSec !== null) return `${base}_${perSec[1] as string}_total`.toLowerCase();
    return `${base}_${bean.name}_count`.toLowerCase();
  }
  return `${base}_${bean.name}`.toLowerCase();
}

/** Yammer's percentiles as Kafka's MBeans expose them (50thPercentile ... 999thPercentile). */
export const KAFKA_PERCENTILES: readonly { readonly attribute: string; readonly quantile: number }[] = [
  { attribute: '50th', quantile: 0.5 },
  { attribute: '75th', quantile: 0.75 },
  { attribute: '95th', quantile: 0.95 },
  { attribute: '98th', quantile: 0.98 },
  { attribute: '99th', quantile: 0.99 },
  { attribute: '999th', quantile: 0.999 },
];

/** The rule's `quantile: "0.$N"` for an `NthPercentile` attribute: 50th → "0.50", 999th → "0.999". */
export function quantileLabel(attribute: string): string {
  return `0.${attribute.replace(/th$/, '')}`;
}

/** Kafka's ApiKeys display name, the RequestMetrics `request` key: PRODUCE → Produce, API_VERSIONS → ApiVersions. */
export function requestMetricName(apiKeyEnumName: string): string {
  return apiKeyEnumName
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}
