import { mapBounded } from '../common/map-bounded';
import { jmxExporterName } from '../metrics/jmx-name';
import { KafkaMetrics } from '../metrics/kafka-metrics';
import type { Series } from '../metrics/scraped-metrics';
import { GroupCoordinator } from '../rebalance/group-coordinator';
import { ReplicaManager } from './replica-manager';

/** One committed offset of a group this broker coordinates, with the high watermark of its local replica. */
interface GroupPartitionOffset {
  readonly labels: Readonly<Record<string, string>>;
  readonly committed: number;
  readonly highWatermark: number | undefined;
}

/**
 * Consumer lag per group and partition, and GroupMetadataManager's NumOffsets. Kafka's broker has no such MBean (the JMX exporter gets lag from the
 * consumers' records-lag), so the names are kafka_exporter's, which dashboards for consumer lag are written
 * against: `kafka_consumergroup_current_offset` and `kafka_consumergroup_lag` with `consumergroup`, `topic` and
 * `partition`. Each broker exports the groups it coordinates, so a group appears on exactly one broker. The lag is
 * the partition's high watermark on this broker (its leader's, or a follower's copy of it) minus the committed
 * offset, as kafka-consumer-groups computes it; a partition with no replica here has no lag series. Everything is
 * read when Prometheus scrapes: the committed offsets from ZooKeeper, where this broker keeps them.
 */
export function registerConsumerLagGauges(metrics: KafkaMetrics, groupCoordinator: GroupCoordinator, replicaManager: ReplicaManager): void {
  // One read per scrape serves both gauges: prom-client starts every metric's collect at once.
  let pending: Promise<GroupPartitionOffset[]> | undefined;
  const read = (): Promise<GroupPartitionOffset[]> => {
    pending ??= readOffsets(groupCoordinator, replicaManager).finally(() => (pending = undefined));
    return pending;
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
