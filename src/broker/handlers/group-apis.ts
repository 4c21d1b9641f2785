import { ErrorCode, ErrorName } from '../../common/error-codes';
import { GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME } from '../../common/topic';
import { mapBounded } from '../../common/map-bounded';
import { DeleteGroupsRequest, DeleteGroupsResponse } from '../../protocol/apis/delete-groups';
import { AUTHORIZED_OPERATIONS_OMITTED } from '../../protocol/apis/describe-cluster';
import { DescribeGroupsRequest, DescribeGroupsResponse } from '../../protocol/apis/describe-groups';
import { FindCoordinatorRequest, FindCoordinatorResponse } from '../../protocol/apis/find-coordinator';
import { HeartbeatRequest, HeartbeatResponse } from '../../protocol/apis/heartbeat';
import { JoinGroupRequest, JoinGroupResponse } from '../../protocol/apis/join-group';
import { LeaveGroupRequest, LeaveGroupResponse } from '../../protocol/apis/leave-group';
import { ListGroupsRequest, ListGroupsResponse } from '../../protocol/apis/list-groups';
import { OffsetCommitRequest, OffsetCommitResponse } from '../../protocol/apis/offset-commit';
import { OffsetDeleteRequest, OffsetDeleteResponse } from '../../protocol/apis/offset-delete';
import { OffsetFetchRequest, OffsetFetchResponse, OffsetFetchResponsePartition } from '../../protocol/apis/offset-fetch';
import { SyncGroupRequest, SyncGroupResponse } from '../../protocol/apis/sync-group';
import { ApiHandler } from '../network/api-handler';
import { authorize, authorizeCluster, authorizedOperations, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';
import type { DescribedGroupInfo } from '../../rebalance/group-coordinator';

/*
 * The group APIs (Kafka's KafkaApis handlers in front of the GroupCoordinator), in API key order:
 * OffsetCommit, OffsetFetch, FindCoordinator, JoinGroup, Heartbeat, LeaveGroup, SyncGroup, DescribeGroups,
 * ListGroups, DeleteGroups, OffsetDelete. The coordinator is the broker's own (KafkaServer builds and stops it).
 */

/** FindCoordinator's key types (CoordinatorType): 0 a group, 1 a transactional id. */
const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;

export function createOffsetCommitHandler(ctx: HandlerContext): ApiHandler<OffsetCommitRequest, OffsetCommitResponse> {
  return async (request, context) => {
    const every = (errorCode: number): OffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    // Kafka's handleOffsetCommitRequest: Read on the group, then Read on each topic.
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) return every(ErrorCode.GROUP_AUTHORIZATION_FAILED.code);
    const authorizedTopics = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    const allowed = (topic: string): boolean => authorizedTopics === undefined || authorizedTopics.has(topic);
    const flat = request.topics
      .filter((t) => allowed(t.name))
      .flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.committedMetadata, leaderEpoch: p.committedLeaderEpoch })));
    // v0 is the ZooKeeper-era commit: any broker stores it, without group checks.
    const errors =
      context.header.apiVersion === 0
        ? await ctx.groupCoordinator.storeOffsets(request.groupId, flat)
        : await ctx.groupCoordinator.commitOffsets(request.groupId, request.generationId, request.memberId, flat, request.groupInstanceId);
    let i = 0;
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: allowed(t.name) ? errors[i++]! : ErrorCode.TOPIC_AUTHORIZATION_FAILED.code })),
      })),
    };
  };
}

export function createOffsetFetchHandler(ctx: HandlerContext): ApiHandler<OffsetFetchRequest, OffsetFetchResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const asked = request.topics === null ? null : request.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
    const refused = (errorCode: number, p: { partition: number }): OffsetFetchResponsePartition => ({ partitionIndex: p.partition, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode });
    // Kafka's handleOffsetFetchRequest: Describe on the group (refused: the error in every asked partition and,
    // v2+, at the top), then Describe on each topic (refused topics flagged, or left out of an all-topics fetch).
    if (!authorize(ctx, context, 'DESCRIBE', 'GROUP', request.groupId)) {
      const code = ErrorCode.GROUP_AUTHORIZATION_FAILED.code;
      return { throttleTimeMs: 0, errorCode: code, topics: (request.topics ?? []).map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((partition) => refused(code, { partition })) })) };
    }
    const authorizedTopics = ctx.authorizer === undefined || asked === null ? undefined : filterByAuthorized(ctx, context, 'DESCRIBE', 'TOPIC', asked.map((p) => p.topic));
    const wanted = asked === null || authorizedTopics === undefined ? asked : asked.filter((p) => authorizedTopics.has(p.topic));
    const r = await ctx.groupCoordinator.fetchOffsets(request.groupId, wanted, version > 0);
    const byTopic = new Map<string, OffsetFetchResponsePartition[]>();
    const add = (topic: string, p: OffsetFetchResponsePartition): void => {
      const list = byTopic.get(topic);
      if (list === undefined) byTopic.set(topic, [p]);
      else list.push(p);
    };
    if (r.errorCode !== ErrorCode.NONE.code && wanted !== null) {
      // v1 reports a group-level error in every partition (v2+ also in the top-level code, as Kafka does).
      for (const p of wanted) add(p.topic, { partitionIndex: p.partition, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: r.errorCode });
    }
    if (authorizedTopics !== undefined) for (const p of asked ?? []) if (!authorizedTopics.has(p.topic)) add(p.topic, refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, p));
    const hidden = asked === null && ctx.authorizer !== undefined ? filterByAuthorized(ctx, context, 'DESCRIBE', 'TOPIC', r.offsets.map((o) => o.topic), { logIfDenied: false }) : undefined;
    for (const o of r.offsets) {
      if (hidden !== undefined && !hidden.has(o.topic)) continue;
      // v7's require_stable (KIP-447): an offset an open transaction will replace is not answered yet.
      if (request.requireStable && ctx.groupCoordinator.hasPendingTxnOffset(request.groupId, o)) {
        add(o.topic, { partitionIndex: o.partition, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT.code });
        continue;
      }
      // v0 (the ZooKeeper-era fetch) reports a partition without a committed offset as UNKNOWN_TOPIC_OR_PARTITION.
      const errorCode = version === 0 && o.offset < 0 ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code : ErrorCode.NONE.code;
      add(o.topic, { partitionIndex: o.partition, committedOffset: o.offset, committedLeaderEpoch: o.leaderEpoch, metadata: o.metadata, errorCode });
    }
    return { throttleTimeMs: 0, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })), errorCode: r.errorCode };
  };
}

/**
 * FindCoordinator: the live leader of the group's `__consumer_offsets` partition, or (key type 1) of the
 * transactional id's `__transaction_state` partition. While the topic does not exist
 * each request tries to create it (Kafka does the same; refused until offsets.topic.replication.factor brokers are
 * alive) and is answered COORDINATOR_NOT_AVAILABLE until its leaders are known. v3 is v2, flexible.
 */
export function createFindCoordinatorHandler(ctx: HandlerContext): ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> {
  return (request, context) => {
    const v1 = context.header.apiVersion >= 1;
    const fail = (name: ErrorName): FindCoordinatorResponse => ({
      throttleTimeMs: 0,
      errorCode: ErrorCode[name].code,
      errorMessage: v1 ? ErrorCode[name].message : null,
      nodeId: -1,
      host: '',
      port: -1,
    });
    // Kafka's handleFindCoordinatorRequest checks Describe on the group or transactional id first.
    if (request.keyType === GROUP_KEY_TYPE && !authorize(ctx, context, 'DESCRIBE', 'GROUP', request.key)) return fail('GROUP_AUTHORIZATION_FAILED');
    if (request.keyType === TRANSACTION_KEY_TYPE && !authorize(ctx, context, 'DESCRIBE', 'TRANSACTIONAL_ID', request.key)) return fail('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
    let topic: string;
    let partition: number;
    if (request.keyType === GROUP_KEY_TYPE) {
      topic = GROUP_METADATA_TOPIC_NAME;
      if (!ctx.metadataCache.contains(topic)) ctx.autoTopicCreation.createOffsetsTopic();
      partition = ctx.groupCoordinator.partitionFor(request.key);
    } else if (request.keyType === TRANSACTION_KEY_TYPE) {
      topic = TRANSACTION_STATE_TOPIC_NAME;
      if (!ctx.metadataCache.contains(topic)) ctx.autoTopicCreation.createTransactionStateTopic();
      partition = ctx.transactionCoordinator.partitionFor(request.key);
    } else {
      // Kafka throws InvalidRequestException("Unknown coordinator type in FindCoordinator request").
      return fail('INVALID_REQUEST');
    }
    if (!ctx.metadataCache.contains(topic)) return fail('COORDINATOR_NOT_AVAILABLE');
    const state = ctx.metadataCache.partitionState({ topic, partition });
    const leader = state?.leader ?? -1;
    const endpoint = leader >= 0 && ctx.metadataCache.isBrokerAlive(leader) ? ctx.metadataCache.endpoint(leader, context.connection.listenerName) : undefined;
    if (endpoint === undefined) return fail('COORDINATOR_NOT_AVAILABLE');
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE.code, errorMessage: null, nodeId: leader, host: endpoint.host, port: endpoint.port };
  };
}

export function createJoinGroupHandler(ctx: HandlerContext): ApiHandler<JoinGroupRequest, JoinGroupResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) {
      const code = ErrorCode.GROUP_AUTHORIZATION_FAILED.code;
      return { throttleTimeMs: 0, errorCode: code, generationId: -1, protocolType: null, protocolName: version >= 7 ? null : '', leader: '', memberId: request.memberId, members: [] };
    }
    const r = await ctx.groupCoordinator.joinGroup({
      groupId: request.groupId,
      memberId: request.memberId,
      groupInstanceId: request.groupInstanceId,
      // KIP-394: from v4 a dynamic member's first join gets MEMBER_ID_REQUIRED and rejoins with the id it got.
      requireKnownMemberId: version >= 4 && request.groupInstanceId === null,
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
      // v7 sends null for both in error answers (Kafka's JoinGroupResult without a protocol); older versions "".
      protocolType: r.protocolType,
      protocolName: version >= 7 && r.protocolType === null ? null : r.protocolName,
      leader: r.leaderId,
      memberId: r.memberId,
      members: r.members,
    };
  };
}

export function createHeartbeatHandler(ctx: HandlerContext): ApiHandler<HeartbeatRequest, HeartbeatResponse> {
  return (request, context) => ({
    throttleTimeMs: 0,
    errorCode: !authorize(ctx, context, 'READ', 'GROUP', request.groupId) ? ErrorCode.GROUP_AUTHORIZATION_FAILED.code : ctx.groupCoordinator.heartbeat(request.groupId, request.generationId, request.memberId, request.groupInstanceId),
  });
}

export function createLeaveGroupHandler(ctx: HandlerContext): ApiHandler<LeaveGroupRequest, LeaveGroupResponse> {
  return (request, context) => {
    // v3 (KIP-345) leaves a batch of members; earlier versions name one.
    const v3 = context.header.apiVersion >= 3;
    const leaving = v3 ? request.members : [{ memberId: request.memberId, groupInstanceId: null }];
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, members: [] };
    const r = ctx.groupCoordinator.leaveGroup(request.groupId, leaving);
    return {
      throttleTimeMs: 0,
      errorCode: v3 && r.members.length > 0 ? ErrorCode.NONE.code : r.errorCode,
      members: r.members,
    };
  };
}

export function createSyncGroupHandler(ctx: HandlerContext): ApiHandler<SyncGroupRequest, SyncGroupResponse> {
  return async (request, context) => {
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, protocolType: null, protocolName: null, assignment: Buffer.alloc(0) };
    }
    const r = await ctx.groupCoordinator.syncGroup(request.groupId, request.generationId, request.memberId, request.assignments, request.groupInstanceId, {
      protocolType: request.protocolType,
      protocolName: request.protocolName,
    });
    return { throttleTimeMs: 0, errorCode: r.errorCode, protocolType: r.protocolType ?? null, protocolName: r.protocolName ?? null, assignment: r.assignment };
  };
}

/**
 * DescribeGroups. Describe on each group (refused: GROUP_AUTHORIZATION_FAILED and nothing else about it). v3
 * reports the authorized operations on each group when asked (set whatever the group's error, as Kafka does),
 * else Int.MinValue.
 */
export function createDescribeGroupsHandler(ctx: HandlerContext): ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> {
  return async (request, context) => {
    const allowed = filterByAuthorized(ctx, context, 'DESCRIBE', 'GROUP', request.groups);
    const described = await mapBounded(
      request.groups.filter((g) => allowed.has(g)),
      (g) => ctx.groupCoordinator.describeGroup(g),
    );
    const byId = new Map(described.map((g) => [g.groupId, g]));
    const groups = request.groups.map(
      (g) => byId.get(g) ?? { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, groupId: g, state: '', protocolType: '', protocolName: '', members: [] as DescribedGroupInfo['members'] },
    );
    return {
      throttleTimeMs: 0,
      groups: groups.map((g) => ({
        errorCode: g.errorCode,
        groupId: g.groupId,
        groupState: g.state,
        protocolType: g.protocolType,
        protocolData: g.protocolName,
        members: g.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          memberMetadata: m.metadata,
          memberAssignment: m.assignment,
        })),
        authorizedOperations: request.includeAuthorizedOperations ? authorizedOperations(ctx, context, 'GROUP', g.groupId) : AUTHORIZED_OPERATIONS_OMITTED,
      })),
    };
  };
}

/** ListGroups: v4's states filter (empty: every group) and each group's state. */
export function createListGroupsHandler(ctx: HandlerContext): ApiHandler<ListGroupsRequest, ListGroupsResponse> {
  return async (request, context) => {
    const listed = await ctx.groupCoordinator.listGroups(request.statesFilter);
    // Kafka: Describe on the cluster lists every group; otherwise only the groups the principal may describe.
    const visible = authorizeCluster(ctx, context, 'DESCRIBE', { logIfDenied: false }) ? undefined : filterByAuthorized(ctx, context, 'DESCRIBE', 'GROUP', listed.map((g) => g.groupId), { logIfDenied: false });
    const groups = visible === undefined ? listed : listed.filter((g) => visible.has(g.groupId));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE.code, groups: groups.map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, groupState: g.state })) };
  };
}

export function createDeleteGroupsHandler(ctx: HandlerContext): ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> {
  return async (request, context) => {
    const allowed = filterByAuthorized(ctx, context, 'DELETE', 'GROUP', request.groupsNames);
    const deleted = await ctx.groupCoordinator.deleteGroups(request.groupsNames.filter((g) => allowed.has(g)));
    const refused = request.groupsNames.filter((g) => !allowed.has(g)).map((groupId) => ({ groupId, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code }));
    return { throttleTimeMs: 0, results: [...deleted, ...refused] };
  };
}

/**
 * OffsetDelete (Kafka's handleOffsetDeleteRequest): a partition this broker's metadata does not know is
 * UNKNOWN_TOPIC_OR_PARTITION; the coordinator answers for the others. A group-level error is answered alone,
 * with no topics (OffsetDeleteRequest.getErrorResponse).
 */
export function createOffsetDeleteHandler(ctx: HandlerContext): ApiHandler<OffsetDeleteRequest, OffsetDeleteResponse> {
  return async (request, context) => {
    if (!authorize(ctx, context, 'DELETE', 'GROUP', request.groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code, throttleTimeMs: 0, topics: [] };
    const authorizedTopics = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    const errors = new Map<string, Map<number, number>>();
    const set = (topic: string, partition: number, code: number): void => {
      let byPartition = errors.get(topic);
      if (byPartition === undefined) errors.set(topic, (byPartition = new Map()));
      byPartition.set(partition, code);
    };
    const known: { topic: string; partition: number }[] = [];
    for (const t of request.topics) {
      for (const p of t.partitions) {
        if (authorizedTopics !== undefined && !authorizedTopics.has(t.name)) set(t.name, p.partitionIndex, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code);
        else if (ctx.metadataCache.partitionState({ topic: t.name, partition: p.partitionIndex }) === undefined) set(t.name, p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code);
        else known.push({ topic: t.name, partition: p.partitionIndex });
      }
    }
    const result = await ctx.groupCoordinator.deleteOffsets(request.groupId, known);
    if (result.errorCode !== ErrorCode.NONE.code) return { errorCode: result.errorCode, throttleTimeMs: 0, topics: [] };
    for (const p of result.partitions) set(p.topic, p.partition, p.errorCode);
    return {
      errorCode: ErrorCode.NONE.code,
      throttleTimeMs: 0,
      topics: [...errors].map(([name, byPartition]) => ({ name, partitions: [...byPartition].map(([partitionIndex, errorCode]) => ({ partitionIndex, errorCode })) })),
    };
  };
}
