import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { isInternalTopic, topicNameError, unifyCollisionChars } from '../../common/topic';
import { assignAddedPartitions, assignReplicasToBrokers, InvalidPartitionsError, InvalidReplicationFactorError } from '../../controller';
import { checkAssignmentFits, explicitAssignmentBytes, renderAssignment } from '../../zk/admin-zk';
import { estimateAssignmentBytes, TopicAssignmentZNode } from '../../zk/znodes/topic-assignment';
import { isTopicConfigKey } from '../../common/config/log-config';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/apis/create-partitions';
import { CreatableTopic, CreatableTopicResult, CreateTopicsRequest, CreateTopicsResponse } from '../../protocol/apis/create-topics';
import { randomUuid, topicIdBytes, topicIdOf } from '../../common/uuid';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/apis/delete-topics';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.AdminManager');

/**
 * CreateTopics, DeleteTopics and CreatePartitions, answered by the controller (others say NOT_CONTROLLER) by
 * writing ZooKeeper as kafka-topics does; the controller then acts on its own watches. Creation waits (up to
 * the request's timeout) until the new partitions have leaders in this broker's metadata.
 */
export function createCreateTopicsHandler(ctx: HandlerContext): ApiHandler<CreateTopicsRequest, CreateTopicsResponse> {
  return async (request, context) => {
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // Kafka's handleCreateTopicsRequest: Create on the cluster, else on each topic.
    const authorized =
      ctx.authorizer === undefined || authorizeCluster(ctx, context, 'CREATE', { logIfDenied: false }) ? undefined : filterByAuthorized(ctx, context, 'CREATE', 'TOPIC', counts.keys());
    const describable = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'DESCRIBE_CONFIGS', 'TOPIC', counts.keys(), { logIfDenied: false });
    // The topics are created with their ZooKeeper work in flight together, so that a request for a hundred topics
    // costs a few round trips, not hundreds queued behind the controller's own. Topics whose names collide
    // ('.' against '_') still go one after the other, so the later one is refused as when created alone.
    const chains = new Map<string, Promise<unknown>>();
    const outcomes = request.topics.map((topic): Promise<CreateTopicsResponse['topics'][number]> => {
      if (!ctx.controller.isActive) return Promise.resolve({ name: topic.name, errorCode: ErrorCode.NOT_CONTROLLER.code, errorMessage: 'This is not the correct controller for this cluster.', ...FAILED_TOPIC });
      // As KafkaApis.handleCreateTopicsRequest: every entry of a name given twice is refused.
      if ((counts.get(topic.name) ?? 0) > 1) return Promise.resolve({ name: topic.name, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: 'Found multiple entries for this topic.', ...FAILED_TOPIC });
      if (authorized !== undefined && !authorized.has(topic.name)) return Promise.resolve({ name: topic.name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, errorMessage: 'Authorization failed.', ...FAILED_TOPIC });
      const key = unifyCollisionChars(topic.name);
      const outcome = (chains.get(key) ?? Promise.resolve()).then(async () => {
        try {
          const created = await createTopic(ctx, topic, request.validateOnly);
          // Without DescribeConfigs on the topic, v5+ answers carry neither its configs nor its layout.
          if (describable !== undefined && !describable.has(topic.name)) {
            return { name: topic.name, errorCode: ErrorCode.NONE.code, errorMessage: null, ...FAILED_TOPIC, topicId: created.topicId };
          }
          return { name: topic.name, errorCode: ErrorCode.NONE.code, errorMessage: null, ...created };
        } catch (err) {
          if (!(err instanceof KafkaError)) log.error(`Error creating topic ${topic.name}`, err);
          const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
          // As KafkaApis: a failed topic's v5+ fields are reset (no configs, -1 partitions and replication factor).
          return { name: topic.name, errorCode: code, errorMessage: (err as Error).message, ...FAILED_TOPIC };
        }
      });
      chains.set(key, outcome);
      return outcome;
    });
    const results = await Promise.all(outcomes);
    // Kafka sets the v5+ topic config error on every entry the caller may not describe, whatever its outcome.
    if (describable !== undefined) for (const r of results) if (!describable.has(r.name)) r.topicConfigErrorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code;
    const created = request.validateOnly ? [] : results.filter((r) => r.errorCode === ErrorCode.NONE.code).map((r) => r.name);
    // Kafka's DelayedCreatePartitions: done once every created topic is in this broker's metadata.
    const cache = ctx.metadataCache;
    // timeout_ms <= 0 asks not to wait at all; otherwise a topic still without metadata when it runs out is
    // REQUEST_TIMED_OUT, as DelayedCreatePartitions.onComplete answers (the topic is created all the same).
    if (request.timeoutMs > 0 && created.length > 0) {
      const done = await cache.topicWatchers.waitUntil(() => created.every((t) => hasAllLeaders(cache, t)), created, request.timeoutMs);
      if (!done) {
        for (const r of results) {
          if (created.includes(r.name) && !hasAllLeaders(cache, r.name)) Object.assign(r, { errorCode: ErrorCode.REQUEST_TIMED_OUT.code, errorMessage: null });
        }
      }
    }
    return { throttleTimeMs: 0, topics: results };
  };
}

const FAILED_TOPIC = { topicId: topicIdBytes(undefined), numPartitions: -1, replicationFactor: -1, configs: [] };

/** DescribeConfigs v1+ config sources a created topic's configs carry. */
const TOPIC_CONFIG_SOURCE = 1;
const DEFAULT_CONFIG_SOURCE = 5;

/** Kafka's DelayedCreatePartitions test: the topic is in the metadata and no partition of it lacks a leader. */
function hasAllLeaders(cache: HandlerContext['metadataCache'], topic: string): boolean {
  const n = cache.numPartitions(topic);
  if (n === undefined) return false;
  for (let partition = 0; partition < n; partition++) {
    const leader = cache.partitionState({ topic, partition })?.leader ?? -1;
    if (leader < 0) return false;
  }
  return true;
}

/**
 * One topic of a CreateTopics request, checked in ZkAdminManager.createTopics' order with its errors (config
 * nulls, numPartitions/replicationFactor against assignments, then the assignment, then
 * AdminZkClient.validateTopicCreate), except that the name is checked first and that no assignment is built
 * that ZooKeeper could not store.
 */
async function createTopic(ctx: HandlerContext, topic: CreatableTopic, validateOnly: boolean): Promise<Partial<CreatableTopicResult>> {
  const nameError = topicNameError(topic.name);
  if (nameError !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', nameError);
  const nullConfigs = topic.configs.filter((c) => c.value === null).map((c) => c.name);
  if (nullConfigs.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for topic configs : ${nullConfigs.join(',')}`);
  const config = new Map<string, string>();
  for (const c of topic.configs) {
    if (!isTopicConfigKey(c.name)) throw new KafkaError('INVALID_CONFIG', `Unknown topic config name: ${c.name}`);
    config.set(c.name, c.value as string);
  }
  let logConfig: Awaited<ReturnType<HandlerContext['logConfigFor']>>;
  try {
    logConfig = await ctx.logConfigFor(topic.name, config);
  } catch (err) {
    throw new KafkaError('INVALID_CONFIG', (err as Error).message);
  }
  let assignment: Map<number, number[]>;
  if (topic.assignments.length > 0) {
    if (topic.numPartitions !== -1 || topic.replicationFactor !== -1) {
      throw new KafkaError('INVALID_REQUEST', 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
    }
    // As Kafka: a later entry for the same partition replaces an earlier one, and brokers are not checked
    // ("we don't check that replicaAssignment contains unknown brokers", ZkAdminManager.createTopics).
    assignment = new Map(topic.assignments.map((a) => [a.partitionIndex, a.brokerIds]));
    checkAssignmentFits(topic.name, assignment.size, explicitAssignmentBytes(assignment));
  } else {
    const partitions = topic.numPartitions === -1 ? ctx.config.get('num.partitions') : topic.numPartitions;
    const rf = topic.replicationFactor === -1 ? ctx.config.get('default.replication.factor') : topic.replicationFactor;
    const brokers = partitions > 0 && rf > 0 ? await ctx.brokerRegistry.getBrokerIds() : [];
    assignment = assign(topic.name, brokers, partitions, rf);
  }
  // CreateTopics v5+ (KIP-525): the topic as created, its configs as DescribeConfigs would give them.
  const described: Partial<CreatableTopicResult> = {
    numPartitions: assignment.size,
    replicationFactor: assignment.get(0)?.length ?? -1,
    configs: Object.entries(logConfig.originals)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, value]) => ({ name, value, readOnly: false, configSource: config.has(name) ? TOPIC_CONFIG_SOURCE : DEFAULT_CONFIG_SOURCE, isSensitive: false })),
  };
  if (validateOnly) {
    await ctx.adminZk.validateTopicCreate(topic.name, assignment);
    return described;
  }
  // The broker's AdminZkClient.createTopic gives a new topic its id (usesTopicId at IBP 2.8).
  const topicId = randomUuid();
  await ctx.adminZk.createTopic(topic.name, assignment, config, topicId);
  return { ...described, topicId: topicIdBytes(topicId) };
}

/**
 * AdminUtils.assignReplicasToBrokers with its errors, after checking (without building it) that the assignment
 * fits in its znode.
 */
function assign(topic: string, brokers: readonly number[], partitions: number, rf: number): Map<number, number[]> {
  checkAssignable(topic, brokers, partitions, rf);
  return kafkaErrors(() => assignReplicasToBrokers(brokers, partitions, rf));
}

/**
 * AdminUtils.assignReplicasToBrokers' checks, and the size check: `partitions` partitions from `startPartitionId`
 * on, on top of an existing assignment of `existingBytes`.
 */
function checkAssignable(topic: string, brokers: readonly number[], partitions: number, rf: number, startPartitionId = 0, existingBytes = 0): void {
  if (partitions <= 0) throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.');
  if (rf <= 0) throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.');
  if (rf > brokers.length) throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor: ${rf} larger than available brokers: ${brokers.length}.`);
  const estimate = estimateAssignmentBytes(startPartitionId, partitions, rf, brokers);
  checkAssignmentFits(topic, startPartitionId + partitions, estimate + existingBytes);
}

function kafkaErrors<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof InvalidReplicationFactorError) throw new KafkaError('INVALID_REPLICATION_FACTOR', err.message);
    if (err instanceof InvalidPartitionsError) throw new KafkaError('INVALID_PARTITIONS', err.message);
    throw err;
  }
}

/**
 * DeleteTopics as Kafka 2.8's KafkaApis.handleDeleteTopicsRequest: v6 names each topic or gives its id (never
 * both: INVALID_REQUEST for the whole request); an id is resolved by the controller's context (Kafka's
 * controllerContext.topicNames), and one that names no topic is UNKNOWN_TOPIC_ID. Each result carries the id
 * as the request gave it.
 */
export function createDeleteTopicsHandler(ctx: HandlerContext): ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const wanted: { name: string | null; topicId: Buffer }[] =
      version >= 6 ? (request.topics ?? []) : request.topicNames.map((name) => ({ name, topicId: topicIdBytes(undefined) }));
    for (const t of wanted) {
      if (t.name !== null && topicIdOf(t.topicId) !== undefined) throw new KafkaError('INVALID_REQUEST', 'Topic name and topic ID can not both be specified.');
    }
    const responses: DeleteTopicsResponse['responses'] = [];
    const marked: string[] = [];
    const names = wanted.map((t) => {
      const id = topicIdOf(t.topicId);
      return id === undefined ? t.name : (ctx.controller.context.topicName(id) ?? null);
    });
    // Kafka's handleDeleteTopicsRequest: Delete on each topic (Describe first, which Delete implies).
    const authorized = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'DELETE', 'TOPIC', names.filter((n): n is string => n !== null));
    for (const [i, t] of wanted.entries()) {
      const name = names[i] ?? null;
      let code = 0;
      if (!ctx.controller.isActive) code = ErrorCode.NOT_CONTROLLER.code;
      else if (authorized !== undefined && name !== null && !authorized.has(name)) code = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code;
      else if (!ctx.config.get('delete.topic.enable')) code = version >= 3 ? ErrorCode.TOPIC_DELETION_DISABLED.code : ErrorCode.INVALID_REQUEST.code;
      else if (name === null) code = ErrorCode.UNKNOWN_TOPIC_ID.code;
      else if (isInternalTopic(name) || topicNameError(name) !== undefined) code = ErrorCode.INVALID_TOPIC_EXCEPTION.code;
      else if (!(await ctx.adminZk.topicExists(name))) code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
      else {
        await ctx.adminZk.markTopicForDeletion(name);
        marked.push(name);
      }
      responses.push({ name, topicId: t.topicId, errorCode: code, errorMessage: null });
    }
    // Kafka's DelayedDeleteTopics: done once no deleted topic is left in this broker's metadata (the controller
    // removes a topic from every cache before it deletes its znodes).
    const cache = ctx.metadataCache;
    const done = await cache.topicWatchers.waitUntil(() => marked.every((t) => !cache.contains(t)), marked, request.timeoutMs);
    if (!done) for (const r of responses) if (r.name !== null && marked.includes(r.name)) r.errorCode = ErrorCode.REQUEST_TIMED_OUT.code;
    return { throttleTimeMs: 0, responses };
  };
}

/**
 * CreatePartitions as ZkAdminManager.createPartitions and AdminZkClient.createNewPartitionsAssignment check it,
 * with their errors; the new assignment is not built when the topic's znode could not hold it.
 */
export function createCreatePartitionsHandler(ctx: HandlerContext): ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> {
  return async (request, context) => {
    const results: CreatePartitionsResponse['results'] = [];
    // Kafka's handleCreatePartitionsRequest: Alter on each topic.
    const authorized = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'ALTER', 'TOPIC', request.topics.map((t) => t.name));
    for (const t of request.topics) {
      try {
        if (!ctx.controller.isActive) throw new KafkaError('NOT_CONTROLLER', 'This is not the correct controller for this cluster.');
        if (authorized !== undefined && !authorized.has(t.name)) throw new KafkaError('TOPIC_AUTHORIZATION_FAILED', 'The topic authorization is failed.');
        const existing = await ctx.adminZk.getTopicAssignment(t.name);
        if (existing !== null && (existing.addingReplicas.size > 0 || existing.removingReplicas.size > 0)) {
          throw new KafkaError('REASSIGNMENT_IN_PROGRESS', `A partition reassignment is in progress for the topic '${t.name}'.`);
        }
        if (existing === null || existing.partitions.size === 0) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${t.name}' does not exist.`);
        const current = existing.partitions.size;
        const increment = t.count - current;
        if (increment < 0) throw new KafkaError('INVALID_PARTITIONS', `Topic currently has ${current} partitions, which is higher than the requested ${t.count}.`);
        if (increment === 0) throw new KafkaError('INVALID_PARTITIONS', `Topic already has ${current} partitions.`);
        const brokers = await ctx.brokerRegistry.getBrokerIds();
        const partition0 = existing.partitions.get(0);
        if (partition0 === undefined) {
          throw new KafkaError('UNKNOWN_SERVER_ERROR', `Unexpected existing replica assignment for topic '${t.name}', partition id 0 is missing. Assignment: ${renderAssignment(existing.partitions)}`);
        }
        const existingBytes = TopicAssignmentZNode.encode(existing).length;
        let added: Map<number, number[]>;
        if (t.assignments !== null) {
          const brokerSet = new Set(brokers);
          const unknown = [...new Set(t.assignments.flatMap((a) => a.brokerIds))].filter((b) => !brokerSet.has(b));
          if (unknown.length > 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Unknown broker(s) in replica assignment: ${unknown.join(', ')}.`);
          if (t.assignments.length !== increment) {
            throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Increasing the number of partitions by ${increment} but ${t.assignments.length} assignments provided.`);
          }
          added = new Map(t.assignments.map((a, i) => [current + i, a.brokerIds]));
          checkAssignmentFits(t.name, t.count, explicitAssignmentBytes(added, existingBytes));
          validateAddedReplicas(added, partition0.length);
        } else {
          checkAssignable(t.name, brokers, increment, partition0.length, current, existingBytes);
          // Kafka continues partition 0's pattern (AdminZkClient.createNewPartitionsAssignment).
          added = kafkaErrors(() => assignAddedPartitions(brokers, existing.partitions, t.count));
        }
        if (!request.validateOnly) await ctx.adminZk.addPartitions(t.name, existing, added);
        results.push({ name: t.name, errorCode: ErrorCode.NONE.code, errorMessage: null });
      } catch (err) {
        const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
        if (!(err instanceof KafkaError)) log.error(`Error creating partitions of topic ${t.name}`, err);
        results.push({ name: t.name, errorCode: code, errorMessage: (err as Error).message });
      }
    }
    return { throttleTimeMs: 0, results };
  };
}

/** AdminZkClient.validateReplicaAssignment, with its messages. */
function validateAddedReplicas(added: ReadonlyMap<number, readonly number[]>, expectedReplicationFactor: number): void {
  for (const [p, replicas] of added) {
    if (replicas.length === 0) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Cannot have replication factor of 0 for partition id ${p}.`);
    if (new Set(replicas).size !== replicas.length) {
      throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Duplicate brokers not allowed in replica assignment: ${replicas.join(', ')} for partition id ${p}.`);
    }
  }
  const bad = [...added].filter(([, r]) => r.length !== expectedReplicationFactor).sort((a, b) => a[0] - b[0]);
  if (bad.length > 0) {
    throw new KafkaError(
      'INVALID_REPLICA_ASSIGNMENT',
      `Inconsistent replication factor between partitions, partition 0 has ${expectedReplicationFactor} while partitions [${bad.map(([p]) => p).join(', ')}] have replication factors [${bad.map(([, r]) => r.length).join(', ')}], respectively.`,
    );
  }
}
