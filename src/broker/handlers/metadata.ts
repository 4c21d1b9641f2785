import { ErrorCode } from '../../common/error-codes';
import { getLogger } from '../../common/logging/logging';
import { isInternalTopic, topicNameError } from '../../common/topic';
import { assignReplicasToBrokers } from '../../controller';
import { MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/apis/metadata';
import { AdminZkError } from '../../zk/admin-zk';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.KafkaApis');

/**
 * Metadata from the metadata cache (never ZooKeeper). Unknown topics are auto-created when
 * auto.create.topics.enable is set and the request allows it, and answered LEADER_NOT_AVAILABLE until their
 * leaders are known, as Kafka does. v0 asks for all topics with an empty list; v1+ with null.
 */
export function createMetadataHandler(ctx: HandlerContext): ApiHandler<MetadataRequest, MetadataResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const listener = context.connection.listenerName;
    const cache = ctx.metadataCache;
    const all = request.topics === null || (version === 0 && request.topics.length === 0);
    const names = all ? cache.allTopics() : [...new Set((request.topics ?? []).map((t) => t.name))];
    const allowAutoCreate = ctx.config.bool('auto.create.topics.enable') && (version < 4 || request.allowAutoTopicCreation);
    const topics: MetadataResponseTopic[] = [];
    for (const name of names) {
      const known = cache.topicMetadata(name, listener);
      if (known !== undefined) {
        topics.push(known);
        continue;
      }
      topics.push({ errorCode: await unknownTopicError(ctx, name, allowAutoCreate && !all), name, isInternal: isInternalTopic(name), partitions: [] });
    }
    return {
      throttleTimeMs: 0,
      brokers: cache.aliveBrokers(listener),
      clusterId: ctx.clusterId,
      controllerId: cache.controllerId,
      topics,
    };
  };
}

/**
 * The answer for a topic the metadata cache does not know, creating it first (Kafka's auto-creation, with
 * num.partitions and default.replication.factor) when `autoCreate` holds. Used by Metadata and Produce.
 */
export async function unknownTopicError(ctx: HandlerContext, name: string, autoCreate: boolean): Promise<number> {
  if (topicNameError(name) !== undefined) return ErrorCode.INVALID_TOPIC_EXCEPTION.code;
  if (!autoCreate || isInternalTopic(name)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
  try {
    if (await ctx.adminZk.topicExists(name)) return ErrorCode.LEADER_NOT_AVAILABLE.code;
    const brokers = await ctx.brokerRegistry.getBrokerIds();
    const rf = Math.min(ctx.config.int('default.replication.factor'), Math.max(brokers.length, 1));
    const assignment = assignReplicasToBrokers(brokers, ctx.config.int('num.partitions'), rf);
    await ctx.adminZk.createTopic(name, assignment, new Map());
    log.info(`Auto creation of topic ${name} with ${assignment.size} partitions and replication factor ${rf} is successful`);
    return ErrorCode.LEADER_NOT_AVAILABLE.code;
  } catch (err) {
    if (err instanceof AdminZkError && err.errorName === 'TOPIC_ALREADY_EXISTS') return ErrorCode.LEADER_NOT_AVAILABLE.code;
    log.warn(`Auto creation of topic ${name} failed`, err);
    return err instanceof AdminZkError ? ErrorCode[err.errorName].code : ErrorCode.LEADER_NOT_AVAILABLE.code;
  }
}
