import { KafkaMetrics } from '../metrics/kafka-metrics';
import type { Series } from '../metrics/scraped-metrics';
import { KafkaController } from '../controller';
import { GroupCoordinator } from '../rebalance/group-coordinator';
import { ReplicaManager } from './replica-manager';
import type { Partition } from './partition';

/** The parts whose state the gauges read. */
export interface GaugedParts {
  readonly replicaManager: ReplicaManager;
  readonly controller: KafkaController;
  readonly groupCoordinator: GroupCoordinator;
  /** The socket server's request channel size, once it is up. */
  readonly requestQueueSize: () => number;
}

/**
 * Kafka's gauges, each computed from the broker's own state when Prometheus scrapes (nothing is maintained on the
 * request path): ReplicaManager's partition counts, KafkaController's, the Log gauges per partition,
 * FetcherLagMetrics, the request channel and purgatory sizes, and the group coordinator's group counts.
 */
export function registerBrokerGauges(metrics: KafkaMetrics, parts: GaugedParts): void {
  const { replicaManager, controller, groupCoordinator } = parts;
  const one = (value: () => number) => (): Series[] => [[{}, value()]];
  const partitions = (): Partition[] => replicaManager.onlinePartitions();
  const count = (pred: (p: Partition) => boolean) => one(() => partitions().filter(pred).length);
  const minIsr = (p: Partition): number => p.log?.config.minInSyncReplicas ?? 1;
  const rm = (name: string, help: string, value: () => Series[]): void => metrics.gauge({ domain: 'server', type: 'ReplicaManager', name }, help, value);
  // Kafka's Partition.isUnderReplicated: led here with an ISR smaller than the assignment.
  rm('UnderReplicatedPartitions', 'Partitions led here whose ISR is smaller than their replica set', count((p) => p.isLeader && p.isr.length < p.assignment.length));
  rm('UnderMinIsrPartitionCount', 'Partitions led here whose ISR is smaller than min.insync.replicas', count((p) => p.isLeader && p.isr.length < minIsr(p)));
  rm('AtMinIsrPartitionCount', 'Partitions led here whose ISR is exactly min.insync.replicas', count((p) => p.isLeader && p.isr.length === minIsr(p)));
  rm('PartitionCount', 'Partitions with a replica on this broker', one(() => replicaManager.allPartitions().length));
  rm('LeaderCount', 'Partitions led by this broker', count((p) => p.isLeader));
  rm('OfflineReplicaCount', 'Replicas on this broker in an offline log dir', one(() => replicaManager.allPartitions().length - partitions().length));

  const kc = (name: string, help: string, value: () => Series[]): void => metrics.gauge({ domain: 'controller', type: 'KafkaController', name }, help, value);
  kc('ActiveControllerCount', '1 on the active controller, 0 elsewhere', one(() => (controller.isActive ? 1 : 0)));
  kc('OfflinePartitionsCount', 'Partitions without a live leader (active controller only)', one(() => controller.gaugeValues().offlinePartitions));
  kc('PreferredReplicaImbalanceCount', 'Partitions not led by their preferred replica (active controller only)', one(() => controller.gaugeValues().preferredReplicaImbalance));
  kc('GlobalTopicCount', 'Topics in the cluster (active controller only)', one(() => controller.gaugeValues().globalTopics));
  kc('GlobalPartitionCount', 'Partitions in the cluster (active controller only)', one(() => controller.gaugeValues().globalPartitions));

  // kafka.log:type=Log,name=<name>,topic=<t>,partition=<p>, one series per local log.
  const logGauge = (name: string, help: string, read: (log: NonNullable<Partition['log']>) => number): void =>
    metrics.gauge({ domain: 'log', type: 'Log', name, tags: ['topic', 'partition'] }, help, function* (): Iterable<Series> {
      for (const p of partitions()) if (p.log !== undefined) yield [{ topic: p.tp.topic, partition: String(p.tp.partition) }, read(p.log)];
    });
  logGauge('Size', 'Bytes in the log segments', (log) => log.size);
  logGauge('NumLogSegments', 'Segments of the log', (log) => log.numberOfSegments);
  logGauge('LogEndOffset', 'The log end offset', (log) => log.logEndOffset);
  logGauge('LogStartOffset', 'The log start offset', (log) => log.logStartOffset);

  metrics.gauge({ domain: 'server', type: 'FetcherLagMetrics', name: 'ConsumerLag', tags: ['clientId', 'topic', 'partition'] }, 'Messages a follower is behind its leader\'s high watermark', function* (): Iterable<Series> {
    for (const thread of replicaManager.fetcherManager?.fetcherThreads() ?? []) {
      for (const [tp, lag] of thread.partitionLags()) yield [{ clientId: thread.name, topic: tp.topic, partition: String(tp.partition) }, lag];
    }
  });

  metrics.gauge({ domain: 'network', type: 'RequestChannel', name: 'RequestQueueSize' }, 'Requests waiting in the request channel', one(parts.requestQueueSize));
  // Responses are written by the connection as soon as they are ready: nothing queues (Kafka's per-processor queues).
  metrics.gauge({ domain: 'network', type: 'RequestChannel', name: 'ResponseQueueSize' }, 'Responses waiting to be sent (always 0: written when ready)', one(() => 0));
  // Produce (acks=all) and fetch (long poll) wait on the one partition watcher list; each kind is counted apart.
  const waiting = (): Series[] => [
    [{ delayedOperation: 'Produce' }, replicaManager.watchers.waitingForChange],
    [{ delayedOperation: 'Fetch' }, replicaManager.watchers.waitingUntil],
  ];
  for (const name of ['PurgatorySize', 'NumDelayedOperations']) {
    metrics.gauge({ domain: 'server', type: 'DelayedOperationPurgatory', name, tags: ['delayedOperation'] }, 'Requests waiting in purgatory: acks=all produces, long-poll fetches', waiting);
  }

  const groups = (name: string, help: string, state: string | undefined): void =>
    metrics.gauge({ domain: 'coordinator.group', type: 'GroupMetadataManager', name }, help, one(() => {
      const counts = groupCoordinator.groupCountsByState();
      if (state !== undefined) return counts.get(state) ?? 0;
      let n = 0;
      for (const c of counts.values()) n += c;
      return n;
    }));
  groups('NumGroups', 'Groups this coordinator holds', undefined);
  for (const state of ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty']) groups(`NumGroups${state}`, `Groups in state ${state}`, state);
}
