import { ErrorCode, ErrorName } from '../../common/error-codes';
import { getLogger } from '../../common/logging/logging';
import { GROUP_METADATA_TOPIC_NAME } from '../../common/topic';
import { assignReplicasToBrokers } from '../../controller';
import { AdminZkError } from '../../zk/admin-zk';
import { ApiHandlers } from '../network/api-handler';
import { groupCoordinatorFor, groupPartition } from './group-context';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.KafkaApis');

const creating = new WeakMap<HandlerContext, Promise<void>>();

/**
 * Creates `__consumer_offsets` through ZooKeeper (the controller picks it up as any new topic), once per broker
 * at a time: offsets.topic.num.partitions partitions, min(offsets.topic.replication.factor, live brokers)
 * replicas, compacted. Kafka does this on the first FindCoordinator for a group.
 */
function ensureOffsetsTopic(ctx: HandlerContext): void {
  if (creating.has(ctx)) return;
  const run = (async () => {
    if (await ctx.adminZk.topicExists(GROUP_METADATA_TOPIC_NAME)) return;
    const brokers = await ctx.brokerRegistry.getBrokerIds();
    if (brokers.length === 0) return;
    const partitions = ctx.config.int('offsets.topic.num.partitions');
    const rf = Math.min(ctx.config.int('offsets.topic.replication.factor'), brokers.length);
    const config = new Map([
      ['cleanup.policy', 'compact'],
      ['compression.type', 'producer'],
      ['segment.bytes', String(ctx.config.int('offsets.topic.segment.bytes'))],
    ]);
    await ctx.adminZk.createTopic(GROUP_METADATA_TOPIC_NAME, assignReplicasToBrokers(brokers, partitions, rf), config);
    log.info(`Created topic ${GROUP_METADATA_TOPIC_NAME} with ${partitions} partitions and replication factor ${rf}`);
  })()
    .catch((err: unknown) => {
      if (!(err instanceof AdminZkError && err.errorName === 'TOPIC_ALREADY_EXISTS')) log.warn(`Could not create ${GROUP_METADATA_TOPIC_NAME}`, err);
    })
    .finally(() => creating.delete(ctx));
  creating.set(ctx, run);
}

const code = (name: ErrorName): number => ErrorCode[name].code;

/**
 * The group APIs (Kafka's KafkaApis handlers for the GroupCoordinator): FindCoordinator, JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch, ListGroups, DescribeGroups, DeleteGroups.
 */
export function createGroupApis(ctx: HandlerContext): ApiHandlers {
  const coordinator = (): ReturnType<typeof groupCoordinatorFor> => groupCoordinatorFor(ctx);
  // Create it now so that its ownership sweep runs from the start.
  coordinator();
  return {
    10: (request, context) => {
      const v1 = context.header.apiVersion >= 1;
      const fail = (name: ErrorName) => ({ throttleTimeMs: 0, errorCode: code(name), errorMessage: v1 ? ErrorCode[name].message : null, nodeId: -1, host: '', port: -1 });
      // Transactions are not supported, so there is no transaction coordinator to find.
      if (request.keyType !== 0) return fail('COORDINATOR_NOT_AVAILABLE');
      if (!ctx.metadataCache.contains(GROUP_METADATA_TOPIC_NAME)) {
        ensureOffsetsTopic(ctx);
        return fail('COORDINATOR_NOT_AVAILABLE');
      }
      const state = ctx.metadataCache.partitionState({ topic: GROUP_METADATA_TOPIC_NAME, partition: groupPartition(ctx, request.key) });
      const leader = state?.leader ?? -1;
      const endpoint = leader >= 0 && ctx.metadataCache.isBrokerAlive(leader) ? ctx.metadataCache.endpoint(leader, context.connection.listenerName) : undefined;
      if (endpoint === undefined) return fail('COORDINATOR_NOT_AVAILABLE');
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: leader, host: endpoint.host, port: endpoint.port };
    },

    11: async (request, context) => {
      const r = await coordinator().joinGroup({
        groupId: request.groupId,
        memberId: request.memberId,
        clientId: context.header.clientId ?? '',
        // Already "/127.0.0.1", Kafka's InetAddress.toString().
        clientHost: context.connection.clientAddress,
        // v0 has no rebalance timeout: the session timeout doubles as one.
        rebalanceTimeoutMs: context.header.apiVersion === 0 || request.rebalanceTimeoutMs < 0 ? request.sessionTimeoutMs : request.rebalanceTimeoutMs,
        sessionTimeoutMs: request.sessionTimeoutMs,
        protocolType: request.protocolType,
        protocols: request.protocols,
      });
      return {
        throttleTimeMs: 0,
        errorCode: r.errorCode,
        generationId: r.generationId,
        protocolName: r.protocolName,
        leader: r.leaderId,
        memberId: r.memberId,
        members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: null, metadata: m.metadata })),
      };
    },

    14: async (request) => {
      const r = await coordinator().syncGroup(request.groupId, request.generationId, request.memberId, request.assignments);
      return { throttleTimeMs: 0, errorCode: r.errorCode, assignment: r.assignment };
    },

    12: (request) => ({ throttleTimeMs: 0, errorCode: coordinator().heartbeat(request.groupId, request.generationId, request.memberId) }),

    13: (request, context) => {
      const v3 = context.header.apiVersion >= 3;
      const memberIds = v3 ? request.members.map((m) => m.memberId) : [request.memberId];
      const r = coordinator().leaveGroup(request.groupId, memberIds);
      return {
        throttleTimeMs: 0,
        errorCode: v3 && r.members.length > 0 ? 0 : r.errorCode,
        members: r.members.map((m) => ({ memberId: m.memberId, groupInstanceId: null, errorCode: m.errorCode })),
      };
    },

    8: async (request, context) => {
      const flat = request.topics.flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.committedMetadata })),
      );
      // v0 is the ZooKeeper-era commit: any broker stores it, without group checks.
      const errors =
        context.header.apiVersion === 0
          ? await coordinator().storeOffsets(request.groupId, flat)
          : await coordinator().commitOffsets(request.groupId, request.generationId, request.memberId, flat);
      let i = 0;
      return {
        throttleTimeMs: 0,
        topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: errors[i++]! })) })),
      };
    },

    9: async (request, context) => {
      const version = context.header.apiVersion;
      const wanted = request.topics === null ? null : request.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
      const r = await coordinator().fetchOffsets(request.groupId, wanted, version > 0);
      const byTopic = new Map<string, { partitionIndex: number; committedOffset: number; committedLeaderEpoch: number; metadata: string | null; errorCode: number }[]>();
      if (r.errorCode !== 0 && wanted !== null) {
        // v1 reports a group-level error in every partition (v2+ also in the top-level code, as Kafka does).
        for (const p of wanted) {
          const list = byTopic.get(p.topic) ?? [];
          list.push({ partitionIndex: p.partition, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: r.errorCode });
          byTopic.set(p.topic, list);
        }
      }
      for (const o of r.offsets) {
        const list = byTopic.get(o.topic) ?? [];
        // v0 (the ZooKeeper-era fetch) reports a partition without a committed offset as UNKNOWN_TOPIC_OR_PARTITION.
        const errorCode = version === 0 && o.offset < 0 ? code('UNKNOWN_TOPIC_OR_PARTITION') : 0;
        list.push({ partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: -1, metadata: '', errorCode });
        byTopic.set(o.topic, list);
      }
      return { throttleTimeMs: 0, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })), errorCode: r.errorCode };
    },

    16: async () => {
      const groups = await coordinator().listGroups();
      return { throttleTimeMs: 0, errorCode: 0, groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType })) };
    },

    15: async (request) => {
      const groups = await Promise.all(request.groups.map((g) => coordinator().describeGroup(g)));
      return {
        throttleTimeMs: 0,
        groups: groups.map((g) => ({
          errorCode: g.errorCode,
          groupId: g.groupId,
          groupState: g.state,
          protocolType: g.protocolType,
          protocolData: g.protocolName,
          members: g.members.map((m) => ({ memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost, memberMetadata: m.metadata, memberAssignment: m.assignment })),
        })),
      };
    },

    42: async (request) => ({ throttleTimeMs: 0, results: await coordinator().deleteGroups(request.groupsNames) }),
  };
}
