import { NetworkClient } from '../client/network-client';
import { SYSTEM_CLOCK } from '../common/time';
import { PartitionConsumer } from '../client/partition-consumer';
import { listOffset } from '../client/list-offset';
import { ErrorCode, errorName, isRetriable } from '../common/error-codes';
import { TopicPartition } from '../common/topic-partition';
import { DeleteGroupsApi } from '../protocol/apis/delete-groups';
import { DescribeGroupsApi } from '../protocol/apis/describe-groups';
import { FindCoordinatorApi } from '../protocol/apis/find-coordinator';
import { LeaveGroupApi } from '../protocol/apis/leave-group';
import { ListGroupsApi } from '../protocol/apis/list-groups';
import { OffsetCommitApi } from '../protocol/apis/offset-commit';
import { OffsetDeleteApi } from '../protocol/apis/offset-delete';
import { OffsetFetchApi } from '../protocol/apis/offset-fetch';
import { decodeAssignment } from '../rebalance/consumer-protocol';
import { TopicPartitionOffset } from '../rebalance/zk-offset-store';
import { CliError } from './cli';
import { ConsumerGroupService, GroupDescription } from './consumer-groups-service';

/** kafka-consumer-groups --bootstrap-server: asks the group's coordinator, as Kafka's AdminClient does. */
export class KafkaConsumerGroupService implements ConsumerGroupService {
  constructor(private readonly client: NetworkClient) {}

  /** The coordinator's node id, retrying while __consumer_offsets is being created or has no leader. */
  private async coordinator(group: string): Promise<number> {
    for (let attempt = 0; attempt < 100; attempt++) {
      const r = await this.client.request('any', FindCoordinatorApi, { key: group, keyType: 0 });
      if (r.errorCode === ErrorCode.NONE.code) {
        if (this.client.metadata.broker(r.nodeId) === undefined) await this.client.refreshMetadata();
        return r.nodeId;
      }
      if (!isRetriable(r.errorCode)) throw new CliError(`Error: Executing consumer group command failed due to ${errorName(r.errorCode)}`);
      await SYSTEM_CLOCK.sleep(100);
    }
    throw new CliError(`Error: Executing consumer group command failed due to the coordinator of group '${group}' not being available`);
  }

  /** Sends to the coordinator again when it moved (NOT_COORDINATOR) or is not ready yet. */
  private async toCoordinator<T>(group: string, send: (node: number) => Promise<T>, errorOf: (r: T) => number): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const r = await send(await this.coordinator(group));
      const code = errorOf(r);
      const retry = code === ErrorCode.NOT_COORDINATOR.code || code === ErrorCode.COORDINATOR_NOT_AVAILABLE.code || code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS.code;
      if (!retry || attempt >= 50) return r;
      await SYSTEM_CLOCK.sleep(100);
    }
  }

  async listGroups(): Promise<string[]> {
    await this.client.refreshMetadata();
    const answers = await Promise.all([...this.client.metadata.brokers.keys()].map((id) => this.client.request(id, ListGroupsApi, { statesFilter: [] })));
    return [...new Set(answers.flatMap((a) => a.groups.map((g) => g.groupId)))].sort();
  }

  /** ListGroups v4 to every broker with the states filter, as the AdminClient's listConsumerGroups(inStates). */
  async listGroupsWithState(states: readonly string[]): Promise<{ groupId: string; state: string }[]> {
    await this.client.refreshMetadata();
    const ids = [...this.client.metadata.brokers.keys()];
    const answers = await Promise.all(ids.map((id) => this.client.request(id, ListGroupsApi, { statesFilter: [...states] })));
    const byGroup = new Map<string, string>();
    for (const a of answers) {
      if (a.errorCode !== ErrorCode.NONE.code) throw new CliError(`Error: Executing consumer group command failed due to ${errorName(a.errorCode)}`);
      for (const g of a.groups) byGroup.set(g.groupId, g.groupState);
    }
    return [...byGroup].map(([groupId, state]) => ({ groupId, state })).sort((x, y) => (x.groupId < y.groupId ? -1 : x.groupId > y.groupId ? 1 : 0));
  }

  async describeGroup(group: string): Promise<GroupDescription> {
    let coordinatorId = -1;
    const described = await this.toCoordinator(
      group,
      (node) => {
        coordinatorId = node;
        return this.client.request(node, DescribeGroupsApi, { groups: [group], includeAuthorizedOperations: false });
      },
      (r) => r.groups[0]?.errorCode ?? 0,
    );
    const g = described.groups[0];
    if (g === undefined || g.errorCode !== ErrorCode.NONE.code) throw new CliError(`Error: Executing consumer group command failed due to ${errorName(g?.errorCode ?? -1)}`);
    const fetched = await this.toCoordinator(group, (node) => this.client.request(node, OffsetFetchApi, { groupId: group, topics: null, requireStable: false }), (r) => r.errorCode);
    const committed = fetched.topics.flatMap((t) => t.partitions.filter((p) => p.committedOffset >= 0).map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset })));
    const node = this.client.metadata.broker(coordinatorId);
    const description: GroupDescription = {
      state: g.groupState,
      owners: [],
      idleMembers: [],
      committed,
      coordinator: { id: coordinatorId, host: node?.host ?? '', port: node?.port ?? -1 },
      assignmentStrategy: g.protocolData,
      members: [],
    };
    for (const m of g.members) {
      const who = { consumerId: m.memberId, host: m.clientHost, clientId: m.clientId };
      const assigned = g.protocolType === 'consumer' ? decodeAssignment(m.memberAssignment).partitions : [];
      const tps = assigned.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
      description.members!.push({ ...who, groupInstanceId: m.groupInstanceId ?? '', assignment: tps });
      if (tps.length === 0) description.idleMembers.push(who);
      for (const tp of tps) description.owners.push({ ...tp, ...who });
    }
    return description;
  }

  async partitionsOf(topic: string): Promise<number[]> {
    await this.client.refreshMetadata([topic]);
    const t = this.client.metadata.topics.get(topic);
    return t === undefined || t.errorCode !== ErrorCode.NONE.code ? [] : t.partitions.map((p) => p.partition).sort((a, b) => a - b);
  }

  listOffsets(tps: readonly TopicPartition[], timestamp: -1 | -2): Promise<number[]> {
    const consumer = new PartitionConsumer(this.client);
    return Promise.all(tps.map((tp) => consumer.listOffset(tp, timestamp)));
  }

  /** ListOffsets by timestamp to each partition's leader (OffsetSpec.forTimestamp); -1 where no record is that late. */
  offsetsForTimes(tps: readonly TopicPartition[], timestamp: number): Promise<number[]> {
    return Promise.all(tps.map(async (tp) => (await listOffset(this.client, tp, timestamp)).offset));
  }

  async commitOffsets(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    const topics = new Map<string, TopicPartitionOffset[]>();
    for (const o of offsets) topics.set(o.topic, [...(topics.get(o.topic) ?? []), o]);
    const r = await this.toCoordinator(
      group,
      (node) =>
        this.client.request(node, OffsetCommitApi, {
          groupId: group,
          generationId: -1,
          memberId: '',
          groupInstanceId: null,
          retentionTimeMs: -1,
          topics: [...topics].map(([name, list]) => ({
            name,
            partitions: list.map((o) => ({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: '' })),
          })),
        }),
      (res) => res.topics[0]?.partitions[0]?.errorCode ?? 0,
    );
    const failed = r.topics.flatMap((t) => t.partitions.filter((p) => p.errorCode !== ErrorCode.NONE.code));
    if (failed.length > 0) throw new CliError(`Error: Executing consumer group command failed due to ${errorName(failed[0]!.errorCode)}`);
  }

  async deleteOffsets(group: string, partitions: readonly TopicPartition[]): Promise<{ errorCode: number; partitions: (TopicPartition & { errorCode: number })[] }> {
    const topics = new Map<string, number[]>();
    for (const p of partitions) topics.set(p.topic, [...(topics.get(p.topic) ?? []), p.partition]);
    const r = await this.toCoordinator(
      group,
      (node) => this.client.request(node, OffsetDeleteApi, { groupId: group, topics: [...topics].map(([name, ps]) => ({ name, partitions: ps.map((partitionIndex) => ({ partitionIndex })) })) }),
      (res) => res.errorCode,
    );
    const answered = new Map(r.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}\0${p.partitionIndex}`, p.errorCode] as const)));
    return {
      errorCode: r.errorCode,
      // A partition the response leaves out fails as the Java AdminClient's does ("did not get a response"): UNKNOWN_SERVER_ERROR.
      partitions: partitions.map((p) => ({ ...p, errorCode: r.errorCode !== ErrorCode.NONE.code ? r.errorCode : (answered.get(`${p.topic}\0${p.partition}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR.code) })),
    };
  }

  /** removeMembersFromConsumerGroup: a batch LeaveGroup (v3+) of the given members; the first error code, or 0. */
  async removeMembers(group: string, members: readonly { memberId: string; groupInstanceId: string | null }[]): Promise<number> {
    const r = await this.toCoordinator(group, (node) => this.client.request(node, LeaveGroupApi, { groupId: group, memberId: '', members: members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId })) }), (res) => res.errorCode);
    return r.errorCode !== ErrorCode.NONE.code ? r.errorCode : (r.members.find((m) => m.errorCode !== ErrorCode.NONE.code)?.errorCode ?? ErrorCode.NONE.code);
  }

  async deleteGroup(group: string): Promise<string | null> {
    const r = await this.toCoordinator(group, (node) => this.client.request(node, DeleteGroupsApi, { groupsNames: [group] }), (res) => res.results[0]?.errorCode ?? 0);
    const code = r.results[0]?.errorCode ?? 0;
    if (code === ErrorCode.NONE.code) return null;
    const name = errorName(code) as keyof typeof ErrorCode;
    return ErrorCode[name]?.message ?? name;
  }

  close(): void {
    this.client.close();
  }
}
