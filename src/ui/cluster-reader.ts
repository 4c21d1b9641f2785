import { NetworkClient } from '../client/network-client';
import { ErrorCode } from '../common/error-codes';
import { getLogger } from '../common/logging/logging';
import { DescribeConfigsApi } from '../protocol/apis/describe-configs';
import { DescribeLogDirsApi } from '../protocol/apis/describe-log-dirs';
import { ListOffsetsApi } from '../protocol/apis/list-offsets';
import { ZkOffsetStore } from '../rebalance/zk-offset-store';
import { KafkaConsumerGroupService } from '../tools/consumer-groups-kafka';
import { GroupDescription } from '../tools/consumer-groups-service';
import { ZkConsumerGroupService } from '../tools/consumer-groups-zk';
import { AdminZk } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ControllerZk } from '../zk/controller-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { PartitionReassignment, ReassignPartitionsZNode } from '../zk/znodes/admin-znodes';
import { AssignedPartition, BrokerView, GroupView, groupPartitions, partitionFlags, reassignmentsInFlight, ReassignmentView, TopicView, topicView, totalLag } from './cluster-view';
import { ThroughputHistory } from './throughput-history';

const log = getLogger('kafka.tools.KafkaUi');

/** What ZooKeeper says: read every second, so that the page follows a broker's death within a few seconds. */
export interface ZkState {
  brokers: BrokerView[];
  controller: number | null;
  /** Partitions by topic: replicas from /brokers/topics/<t>, leader and ISR from its partitions' state znodes. */
  topics: { topic: string; markedForDeletion: boolean; partitions: { partition: number; leader: number; replicas: number[]; isr: number[] }[] }[];
  /** From the topic znodes' adding/removing replicas and /admin/reassign_partitions. */
  reassignments: ReassignmentView[];
}

/** What the brokers say, read in its own loop because a dead broker makes a request wait for its timeout. */
export interface BrokerState {
  /** By `topic-partition`, from the leaders: ListOffsets earliest and latest, DescribeLogDirs sizes. */
  logStartOffsets: Map<string, number>;
  logEndOffsets: Map<string, number>;
  sizes: Map<string, number>;
  groups: GroupView[];
  /** Broker id to its metrics endpoint (kafka.metrics.host:kafka.metrics.port), where the port is set. */
  metricsEndpoints: Map<number, string>;
}

export interface ClusterSnapshot {
  brokers: BrokerView[];
  controller: number | null;
  topics: TopicView[];
  groups: GroupView[];
  reassignments: ReassignmentView[];
  throughput: ReturnType<ThroughputHistory['snapshot']>;
  metricsBrokers: number[];
  updatedAt: number;
}

const BROKER_RESOURCE = 4;

/**
 * Reads the cluster for the page with the tools' own readers (AdminZk, BrokerRegistryZk, ControllerZk, the
 * consumer-group services) and the project's client. It only reads; the page's writes go through UiActions.
 */
export class ClusterReader {
  private readonly admin: AdminZk;
  private readonly zkGroups: ZkConsumerGroupService;
  private readonly coordinatorGroups: KafkaConsumerGroupService;
  readonly throughput = new ThroughputHistory();

  constructor(
    private readonly zk: ZkClient,
    private readonly client: NetworkClient,
  ) {
    this.admin = new AdminZk(zk);
    this.zkGroups = new ZkConsumerGroupService(zk);
    this.coordinatorGroups = new KafkaConsumerGroupService(client);
  }

  async readZk(): Promise<ZkState> {
    const [registered, controller, topicNames, marked, reassigning] = await Promise.all([
      new BrokerRegistryZk(this.zk).getAllBrokersAndEpochs(),
      new ControllerZk(this.zk).getControllerId(),
      this.admin.getAllTopics(),
      this.admin.getTopicsMarkedForDeletion(),
      this.zk.getData(ZkPaths.reassignPartitions),
    ]);
    const brokers = [...registered.values()]
      .map(({ info }) => ({ id: info.id, host: info.endpoints[0]?.host ?? '', port: info.endpoints[0]?.port ?? -1, rack: info.rack, controller: info.id === controller }))
      .sort((a, b) => a.id - b.id);
    const markedSet = new Set(marked);
    const assigned: AssignedPartition[] = [];
    const topics = await Promise.all(
      [...topicNames].sort().map(async (topic) => {
        const assignment = await this.admin.getTopicAssignment(topic);
        const ids = [...(assignment?.partitions.keys() ?? [])].sort((a, b) => a - b);
        const partitions = await Promise.all(
          ids.map(async (partition) => {
            const state = (await this.admin.getPartitionState(topic, partition))?.state;
            return { partition, leader: state?.leader ?? -1, replicas: assignment?.partitions.get(partition) ?? [], isr: state?.isr ?? [] };
          }),
        );
        for (const partition of ids) {
          const addingReplicas = assignment?.addingReplicas.get(partition) ?? [];
          const removingReplicas = assignment?.removingReplicas.get(partition) ?? [];
          assigned.push({ topic, partition, replicas: assignment?.partitions.get(partition) ?? [], addingReplicas, removingReplicas });
        }
        return { topic, markedForDeletion: markedSet.has(topic), partitions };
      }),
    );
    let requested: PartitionReassignment[] = [];
    if (reassigning !== null) {
      try {
        requested = ReassignPartitionsZNode.decode(ZkPaths.reassignPartitions, reassigning.data);
      } catch (err) {
        log.warn(`Ignoring unreadable ${ZkPaths.reassignPartitions}: ${(err as Error).message}`);
      }
    }
    return { brokers, controller, topics, reassignments: reassignmentsInFlight(assigned, requested) };
  }

  /** Offsets, sizes, groups and metrics endpoints; a broker that does not answer leaves its part unknown. */
  async readBrokers(zkState: ZkState): Promise<BrokerState> {
    await this.client.refreshMetadata();
    const live = new Set([...this.client.metadata.brokers.keys()]);
    const byLeader = new Map<number, { topic: string; partition: number }[]>();
    for (const t of zkState.topics) {
      for (const p of t.partitions) if (live.has(p.leader)) byLeader.set(p.leader, [...(byLeader.get(p.leader) ?? []), { topic: t.topic, partition: p.partition }]);
    }
    const logStartOffsets = new Map<string, number>();
    const logEndOffsets = new Map<string, number>();
    const sizes = new Map<string, number>();
    const metricsEndpoints = new Map<number, string>();
    await Promise.allSettled([
      ...[...byLeader].flatMap(([leader, tps]) => [this.offsets(leader, tps, -2, logStartOffsets), this.offsets(leader, tps, -1, logEndOffsets)]),
      ...[...live].map(async (id) => {
        const r = await this.client.request(id, DescribeLogDirsApi, { topics: null });
        const leaderOf = new Set((byLeader.get(id) ?? []).map((tp) => `${tp.topic}-${tp.partition}`));
        for (const dir of r.results) for (const t of dir.topics) for (const p of t.partitions) if (!p.isFutureKey && leaderOf.has(`${t.name}-${p.partitionIndex}`)) sizes.set(`${t.name}-${p.partitionIndex}`, p.partitionSize);
      }),
      ...[...live].map(async (id) => {
        const r = await this.client.request(id, DescribeConfigsApi, { resources: [{ resourceType: BROKER_RESOURCE, resourceName: String(id), configurationKeys: ['kafka.metrics.port', 'kafka.metrics.host'] }], includeSynonyms: false });
        const configs = r.results[0]?.errorCode === ErrorCode.NONE.code ? r.results[0].configs : [];
        const port = Number(configs.find((c) => c.name === 'kafka.metrics.port')?.value ?? 0);
        const host = configs.find((c) => c.name === 'kafka.metrics.host')?.value || this.client.metadata.broker(id)?.host || 'localhost';
        if (port > 0) metricsEndpoints.set(id, `${host}:${port}`);
      }),
    ]);
    const groups = await this.readGroups(logEndOffsets);
    return { logStartOffsets, logEndOffsets, sizes, groups, metricsEndpoints };
  }

  private async offsets(leader: number, tps: { topic: string; partition: number }[], timestamp: number, into: Map<string, number>): Promise<void> {
    const topics = new Map<string, number[]>();
    for (const tp of tps) topics.set(tp.topic, [...(topics.get(tp.topic) ?? []), tp.partition]);
    const r = await this.client.request(leader, ListOffsetsApi, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, maxNumOffsets: 1 })) })),
    });
    for (const t of r.topics) for (const p of t.partitions) if (p.errorCode === ErrorCode.NONE.code) into.set(`${t.name}-${p.partitionIndex}`, p.offset);
  }

  /**
   * ZooKeeper consumer groups (those with /consumers/<g>/ids, where the old consumers register) and coordinator
   * groups (ListGroups on every broker). The two kinds share the offsets under /consumers, so the coordinator
   * also lists a ZooKeeper consumer group, as an Empty group of offsets only: the registrations decide.
   */
  private async readGroups(logEndOffsets: ReadonlyMap<string, number>): Promise<GroupView[]> {
    const listed = await this.coordinatorGroups.listGroups().catch(() => [] as string[]);
    const store = new ZkOffsetStore(this.zk);
    const registered: string[] = [];
    for (const g of await store.allGroups()) if (await store.isZookeeperConsumerGroup(g)) registered.push(g);
    const coordinator = listed.filter((g) => !registered.includes(g));
    const describe = async (group: string, kind: GroupView['kind']): Promise<GroupView | undefined> => {
      let d: GroupDescription;
      try {
        d = kind === 'coordinator' ? await this.coordinatorGroups.describeGroup(group) : await this.zkGroups.describeGroup(group);
      } catch (err) {
        log.debug(`Could not describe group ${group}: ${(err as Error).message}`);
        return undefined;
      }
      const owners = new Map(d.owners.map((o) => [`${o.topic}-${o.partition}`, o.consumerId]));
      const partitions = groupPartitions(d.committed, owners, logEndOffsets);
      const members =
        d.members?.map((m) => ({ consumerId: m.consumerId, clientId: m.clientId, host: m.host, assignment: m.assignment.map((tp) => `${tp.topic}-${tp.partition}`) })) ??
        [...new Set([...d.owners.map((o) => o.consumerId), ...d.idleMembers.map((m) => m.consumerId)])].map((consumerId) => ({
          consumerId,
          clientId: '-',
          host: '-',
          assignment: d.owners.filter((o) => o.consumerId === consumerId).map((o) => `${o.topic}-${o.partition}`),
        }));
      return { group, kind, state: d.state, members, partitions, totalLag: totalLag(partitions) };
    };
    const views = await Promise.all([...coordinator.map((g) => describe(g, 'coordinator')), ...registered.map((g) => describe(g, 'zookeeper'))]);
    return views.filter((v): v is GroupView => v !== undefined).sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
  }

  /** One scrape of each metrics endpoint into the sparklines' history. */
  async sampleMetrics(endpoints: ReadonlyMap<number, string>): Promise<void> {
    await Promise.allSettled(
      [...endpoints].map(async ([id, endpoint]) => {
        const res = await fetch(`http://${endpoint}/metrics`, { signal: AbortSignal.timeout(2000) });
        if (res.ok) this.throughput.add(id, Date.now(), await res.text());
      }),
    );
  }

  /** The page's data: ZooKeeper's view (fresh) joined with the brokers' last answers. */
  static snapshot(zkState: ZkState, brokerState: BrokerState | undefined, throughput: ThroughputHistory): ClusterSnapshot {
    const live = new Set(zkState.brokers.map((b) => b.id));
    const topics = zkState.topics.map((t) =>
      topicView(
        t.topic,
        t.partitions.map((p) => {
          const key = `${t.topic}-${p.partition}`;
          return {
            ...p,
            logStartOffset: brokerState?.logStartOffsets.get(key) ?? null,
            logEndOffset: brokerState?.logEndOffsets.get(key) ?? null,
            size: brokerState?.sizes.get(key) ?? null,
            ...partitionFlags(p.replicas, p.isr, p.leader, live),
          };
        }),
        t.markedForDeletion,
      ),
    );
    return {
      brokers: zkState.brokers,
      controller: zkState.controller,
      topics,
      groups: brokerState?.groups ?? [],
      reassignments: zkState.reassignments,
      throughput: throughput.snapshot(),
      metricsBrokers: [...(brokerState?.metricsEndpoints.keys() ?? [])].filter((id) => live.has(id)),
      updatedAt: Date.now(),
    };
  }
}
