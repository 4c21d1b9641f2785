import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { isInternalTopic, topicNameError } from '../../common/topic';
import { assignAddedPartitions, assignReplicasToBrokers } from '../../controller';
import { isTopicConfigKey } from '../../common/config/log-config';
import { CreatePartitionsRequest, CreatePartitionsResponse } from '../../protocol/apis/create-partitions';
import { CreatableTopic, CreateTopicsRequest, CreateTopicsResponse } from '../../protocol/apis/create-topics';
import { DeleteTopicsRequest, DeleteTopicsResponse } from '../../protocol/apis/delete-topics';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.AdminManager');

/**
 * CreateTopics, DeleteTopics and CreatePartitions, answered by the controller (others say NOT_CONTROLLER) by
 * writing ZooKeeper as kafka-topics does; the controller then acts on its own watches. Creation waits (up to
 * the request's timeout) until the new partitions have leaders in this broker's metadata.
 */
export function createCreateTopicsHandler(ctx: HandlerContext): ApiHandler<CreateTopicsRequest, CreateTopicsResponse> {
  return async (request) => {
    const results: CreateTopicsResponse['topics'] = [];
    const created: string[] = [];
    for (const topic of request.topics) {
      if (!ctx.controller.isActive) {
        results.push({ name: topic.name, errorCode: ErrorCode.NOT_CONTROLLER.code, errorMessage: 'This is not the correct controller for this cluster.' });
        continue;
      }
      try {
        await createTopic(ctx, topic, request.validateOnly);
        results.push({ name: topic.name, errorCode: ErrorCode.NONE.code, errorMessage: null });
        if (!request.validateOnly) created.push(topic.name);
      } catch (err) {
        if (!(err instanceof KafkaError)) log.error(`Error creating topic ${topic.name}`, err);
        const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
        results.push({ name: topic.name, errorCode: code, errorMessage: (err as Error).message });
      }
    }
    // Kafka's DelayedCreatePartitions: done once every created topic is in this broker's metadata.
    const cache = ctx.metadataCache;
    await cache.topicWatchers.waitUntil(() => created.every((t) => cache.contains(t)), () => created, request.timeoutMs);
    return { throttleTimeMs: 0, topics: results };
  };
}

async function createTopic(ctx: HandlerContext, topic: CreatableTopic, validateOnly: boolean): Promise<void> {
  const nameError = topicNameError(topic.name);
  if (nameError !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', nameError);
  const config = new Map<string, string>();
  for (const c of topic.configs) {
    if (!isTopicConfigKey(c.name)) throw new KafkaError('INVALID_CONFIG', `Unknown topic config name: ${c.name}`);
    if (c.value !== null) config.set(c.name, c.value);
  }
  try {
    await ctx.logConfigFor(topic.name, config);
  } catch (err) {
    throw new KafkaError('INVALID_CONFIG', (err as Error).message);
  }
  let assignment: Map<number, number[]>;
  if (topic.assignments.length > 0) {
    if (topic.numPartitions !== -1 || topic.replicationFactor !== -1) {
      throw new KafkaError('INVALID_REQUEST', 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
    }
    assignment = new Map(topic.assignments.map((a) => [a.partitionIndex, a.brokerIds]));
  } else {
    const partitions = topic.numPartitions === -1 ? ctx.config.get('num.partitions') : topic.numPartitions;
    const rf = topic.replicationFactor === -1 ? ctx.config.get('default.replication.factor') : topic.replicationFactor;
    if (partitions <= 0) throw new KafkaError('INVALID_PARTITIONS', 'Number of partitions must be larger than 0.');
    if (rf <= 0) throw new KafkaError('INVALID_REPLICATION_FACTOR', 'Replication factor must be larger than 0.');
    const brokers = await ctx.brokerRegistry.getBrokerIds();
    if (rf > brokers.length) throw new KafkaError('INVALID_REPLICATION_FACTOR', `Replication factor: ${rf} larger than available brokers: ${brokers.length}.`);
    assignment = assignReplicasToBrokers(brokers, partitions, rf);
  }
  if (validateOnly) {
    await ctx.adminZk.validateTopicCreate(topic.name, assignment);
    return;
  }
  await ctx.adminZk.createTopic(topic.name, assignment, config);
}

export function createDeleteTopicsHandler(ctx: HandlerContext): ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> {
  return async (request, context) => {
    const responses: DeleteTopicsResponse['responses'] = [];
    const marked: string[] = [];
    for (const name of request.topicNames) {
      let code = 0;
      if (!ctx.controller.isActive) code = ErrorCode.NOT_CONTROLLER.code;
      else if (!ctx.config.get('delete.topic.enable')) code = context.header.apiVersion >= 3 ? ErrorCode.TOPIC_DELETION_DISABLED.code : ErrorCode.INVALID_REQUEST.code;
      else if (isInternalTopic(name) || topicNameError(name) !== undefined) code = ErrorCode.INVALID_TOPIC_EXCEPTION.code;
      else if (!(await ctx.adminZk.topicExists(name))) code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
      else {
        await ctx.adminZk.markTopicForDeletion(name);
        marked.push(name);
      }
      responses.push({ name, errorCode: code });
    }
    // Kafka's DelayedDeleteTopics: done once no deleted topic is left in this broker's metadata (the controller
    // removes a topic from every cache before it deletes its znodes).
    const cache = ctx.metadataCache;
    const done = await cache.topicWatchers.waitUntil(() => marked.every((t) => !cache.contains(t)), () => marked, request.timeoutMs);
    if (!done) for (const r of responses) if (marked.includes(r.name)) r.errorCode = ErrorCode.REQUEST_TIMED_OUT.code;
    return { throttleTimeMs: 0, responses };
  };
}

export function createCreatePartitionsHandler(ctx: HandlerContext): ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> {
  return async (request) => {
    const results: CreatePartitionsResponse['results'] = [];
    for (const t of request.topics) {
      try {
        if (!ctx.controller.isActive) throw new KafkaError('NOT_CONTROLLER', 'This is not the correct controller for this cluster.');
        const existing = await ctx.adminZk.getTopicAssignment(t.name);
        if (existing === null) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${t.name}' does not exist.`);
        const current = existing.partitions.size;
        if (t.count <= current) {
          throw new KafkaError('INVALID_PARTITIONS', `Topic currently has ${current} partitions, which is higher than the requested ${t.count}.`);
        }
        const brokers = await ctx.brokerRegistry.getBrokerIds();
        const added =
          t.assignments === null
            ? assignAddedPartitions(brokers, existing.partitions, t.count)
            : new Map(t.assignments.map((a, i) => [current + i, a.brokerIds]));
        if (added.size !== t.count - current) throw new KafkaError('INVALID_REPLICA_ASSIGNMENT', `Increasing the number of partitions by ${t.count - current} but ${added.size} assignments provided.`);
        if (!request.validateOnly) await ctx.adminZk.addPartitions(t.name, existing, added);
        results.push({ name: t.name, errorCode: ErrorCode.NONE.code, errorMessage: null });
      } catch (err) {
        const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
        results.push({ name: t.name, errorCode: code, errorMessage: (err as Error).message });
      }
    }
    return { throttleTimeMs: 0, results };
  };
}
