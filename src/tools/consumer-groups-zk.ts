import { NetworkClient } from '../client/network-client';
import { PartitionConsumer } from '../client/partition-consumer';
import { TopicPartition } from '../common/topic-partition';
import { TopicPartitionOffset, ZkOffsetStore } from '../rebalance/zk-offset-store';
import { AdminZk } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { ConsumerOwnerZNode } from '../zk/znodes/consumer-znodes';
import { CliError } from './cli';
import { ConsumerGroupService, GroupDescription, PartitionOwner } from './consumer-groups-service';

/**
 * kafka-consumer-groups --zookeeper: groups are the children of /consumers (ZooKeeper-based consumers, and any
 * group whose offsets the coordinator stored there). A group with registrations under /ids is active; owners
 * come from /owners (thread id without its `-<n>` suffix = consumer id). Log end offsets are asked of the
 * partition leaders, found through the broker registrations.
 */
export class ZkConsumerGroupService implements ConsumerGroupService {
  private readonly store: ZkOffsetStore;
  private client: NetworkClient | undefined;

  constructor(private readonly zk: ZkClient) {
    this.store = new ZkOffsetStore(zk);
  }

  async listGroups(): Promise<string[]> {
    return (await this.store.allGroups()).sort();
  }

  async describeGroup(group: string): Promise<GroupDescription> {
    if (!(await this.store.groupExists(group))) return { state: 'Dead', owners: [], idleMembers: [], committed: [] };
    const ids = await this.store.registeredConsumers(group);
    const owners: PartitionOwner[] = [];
    const topics = (await this.zk.getChildren(ZkPaths.consumerOwnersRoot(group))) ?? [];
    for (const topic of topics) {
      const partitions = ((await this.zk.getChildren(ZkPaths.consumerOwners(group, topic))) ?? []).filter((p) => /^\d{1,10}$/.test(p)).map(Number);
      const nodes = await Promise.all(partitions.map((p) => this.zk.getData(ZkPaths.consumerOwner(group, topic, p))));
      partitions.forEach((partition, i) => {
        const node = nodes[i];
        if (node === null || node === undefined) return;
        const threadId = ConsumerOwnerZNode.decode(ZkPaths.consumerOwner(group, topic, partition), node.data);
        owners.push({ topic, partition, consumerId: threadId.replace(/-\d+$/, ''), host: '-', clientId: '-' });
      });
    }
    const owning = new Set(owners.map((o) => o.consumerId));
    const committed: TopicPartitionOffset[] = [];
    for (const [topic, byPartition] of await this.store.fetchAll(group)) for (const [partition, offset] of byPartition) committed.push({ topic, partition, offset });
    return {
      state: ids.length > 0 ? 'Stable' : 'Empty',
      owners,
      idleMembers: ids.filter((id) => !owning.has(id)).map((consumerId) => ({ consumerId, host: '-', clientId: '-' })),
      committed,
    };
  }

  async partitionsOf(topic: string): Promise<number[]> {
    const assignment = await new AdminZk(this.zk).getTopicAssignment(topic);
    return assignment === null ? [] : [...assignment.partitions.keys()].sort((a, b) => a - b);
  }

  private async networkClient(): Promise<NetworkClient> {
    if (this.client === undefined) {
      const brokers = await new BrokerRegistryZk(this.zk).getAllBrokersAndEpochs();
      const servers = [...brokers.values()].flatMap(({ info }) => info.endpoints.slice(0, 1).map((e) => `${e.host}:${e.port}`));
      if (servers.length === 0) throw new CliError('No brokers found in ZK.');
      this.client = new NetworkClient({ bootstrapServers: servers, clientId: 'consumer-groups' });
    }
    return this.client;
  }

  async listOffsets(tps: readonly TopicPartition[], timestamp: -1 | -2): Promise<number[]> {
    const consumer = new PartitionConsumer(await this.networkClient());
    return Promise.all(tps.map((tp) => consumer.listOffset(tp, timestamp)));
  }

  async commitOffsets(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    const errors = await this.store.commit(group, offsets);
    const failed = errors.find((e) => e !== null);
    if (failed) throw new CliError(`Error: Executing consumer group command failed due to ${failed.message}`);
  }

  /** Kafka's --delete-offsets goes through the group coordinator (OffsetDelete): the --zookeeper form has none. */
  deleteOffsets(): Promise<never> {
    return Promise.reject(new CliError('Option --delete-offsets is only supported with --bootstrap-server'));
  }

  async deleteGroup(group: string): Promise<string | null> {
    if ((await this.store.registeredConsumers(group)).length > 0) return 'its consumers are still active';
    await this.store.deleteGroup(group);
    return null;
  }

  close(): void {
    this.client?.close();
    this.zk.close();
  }
}
