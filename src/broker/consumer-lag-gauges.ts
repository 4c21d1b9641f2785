import { getLogger } from '../common/logging/logging';
import { mapBounded } from '../common/map-bounded';
import { jmxExporterName } from '../metrics/jmx-name';
import { KafkaMetrics } from '../metrics/kafka-metrics';
import type { Series } from '../metrics/scraped-metrics';
import { GroupCoordinator } from '../rebalance/group-coordinator';
import { ReplicaManager } from './replica-manager';

const log = getLogger('kafka.coordinator.group.GroupMetadataManager');

/** How long a scrape waits for the committed offsets (well inside Prometheus' default 10 s scrape timeout). */
const LAG_READ_TIMEOUT_MS = 3000;

/** The read's result, or `fallback` if it takes longer than `ms`. */
function within(read: Promise<GroupPartitionOffset[]>, ms: number, fallback: GroupPartitionOffset[]): Promise<GroupPartitionOffset[]> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<GroupPartitionOffset[]>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)));
  return Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/** One committed offset of a group this broker coordinates, with the high watermark of its local replica. */
interface GroupPartitionOffset {
  readonly labels: Readonly<Record<string, string>>;
  readonly committed: number;
  readonly highWatermark: number | undefined;
}

/**
 * Consumer lag per group and partition, and GroupMetadataManager's NumOffsets. Kafka's broker has no lag MBean
 * (the JMX exporter gets lag from the consumers' records-lag), so the names are kafka_exporter's, which dashboards for consumer lag are written
 * against: `kafka_consumergroup_current_offset` and `kafka_consumergroup_lag` with `consumergroup`, `topic` and
 * `partition`. Each broker exports the groups it coordinates, so a group appears on exactly one broker. The lag is
 * the partition's high watermark on this broker (its leader's, or a follower's copy of it) minus the committed
 * offset, as kafka-consumer-groups computes it; a partition with no replica here has no lag series. Everything is
 * read when Prometheus scrapes: the committed offsets from ZooKeeper, where this broker keeps them.
 */
export function registerConsumerLagGauges(metrics: KafkaMetrics, groupCoordinator: GroupCoordinator, replicaManager: ReplicaManager): void {
  // One read serves all three gauges (prom-client starts every metric's collect at once) and every scrape that
  // comes while it is outstanding: with ZooKeeper away the read waits for the reconnection, and scrapes must
  // neither pile reads up nor wait for it: such a scrape gets the values of the last read that succeeded.
  let reading: Promise<GroupPartitionOffset[]> | undefined;
  let last: GroupPartitionOffset[] = [];
  const read = (): Promise<GroupPartitionOffset[]> => {
    reading ??= readOffsets(groupCoordinator, replicaManager)
      .then(
        (offsets) => (last = offsets),
        (err: unknown) => {
          log.warn(`Could not read the committed offsets for the consumer lag metrics: ${err instanceof Error ? err.message : String(err)}`);
          return last;
        },
      )
      .finally(() => (reading = undefined));
    return within(reading, LAG_READ_TIMEOUT_MS, last);
  };
  // GroupMetadataManager's NumOffsets: the committed offsets of the groups coordinated here (Kafka counts its cache).
  metrics.namedGauge(jmxExporterName({ domain: 'coordinator.group', type: 'GroupMetadataManager', name: 'NumOffsets' }, 'Value'), 'Committed offsets of the groups this coordinator holds', [], async () => [
    [{}, (await read()).length],
  ]);
  const labelNames = ['consumergroup', 'topic', 'partition'];
  metrics.namedGauge('kafka_consumergroup_current_offset', 'Committed offset of a group on a partition (groups coordinated by this broker)', labelNames, async () =>
    (await read()).map((o): Series => [o.labels, o.committed]),
  );
  metrics.namedGauge('kafka_consumergroup_lag', 'High watermark minus committed offset of a group on a partition (groups coordinated by this broker)', labelNames, async () =>
    (await read()).flatMap((o): Series[] => (o.highWatermark === undefined ? [] : [[o.labels, o.highWatermark - o.committed]])),
  );
}

async function readOffsets(groupCoordinator: GroupCoordinator, replicaManager: ReplicaManager): Promise<GroupPartitionOffset[]> {
  const groups = await groupCoordinator.listGroups();
  const fetched = await mapBounded(groups, (g) => groupCoordinator.fetchOffsets(g.groupId, null));
  const result: GroupPartitionOffset[] = [];
  groups.forEach((g, i) => {
    const answer = fetched[i];
    if (answer === undefined || answer.errorCode !== 0) return;
    for (const o of answer.offsets) {
      if (o.offset < 0) continue;
      const partition = replicaManager.getPartition({ topic: o.topic, partition: o.partition });
      result.push({
        labels: { consumergroup: g.groupId, topic: o.topic, partition: String(o.partition) },
        committed: o.offset,
        highWatermark: partition?.log === undefined ? undefined : partition.highWatermark,
      });
    }
  });
  return result;
}
