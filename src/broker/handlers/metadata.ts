import { KafkaError } from '../../common/kafka-error';
import { isInternalTopic } from '../../common/topic';
import { topicIdOf } from '../../common/uuid';
import { METADATA_AUTHORIZED_OPERATIONS_OMITTED, MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/apis/metadata';
import { ApiHandler } from '../network/api-handler';
import { CLUSTER_OPERATIONS, to32BitField } from './describe-cluster';
import { HandlerContext } from './handler-context';

/**
 * Kafka's AclOperation codes of the operations a TOPIC resource supports (AclEntry.supportedOperations(TOPIC)):
 * READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11. With no
 * authorizer every one of them is allowed.
 */
const TOPIC_OPERATIONS = [3, 4, 5, 6, 7, 8, 10, 11] as const;
const TOPIC_AUTHORIZED_OPERATIONS = to32BitField(TOPIC_OPERATIONS);
const CLUSTER_AUTHORIZED_OPERATIONS = to32BitField(CLUSTER_OPERATIONS);

/**
 * Metadata from the metadata cache (never ZooKeeper). Unknown topics are auto-created when
 * auto.create.topics.enable is set and the request allows it, and answered LEADER_NOT_AVAILABLE until their
 * leaders are known, as Kafka does. v0 asks for all topics with an empty list; v1+ with null. v10-11 name topics
 * only (Kafka 2.8's KafkaApis refuses an id or a null name with INVALID_REQUEST).
 */
export function createMetadataHandler(ctx: HandlerContext): ApiHandler<MetadataRequest, MetadataResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const listener = context.connection.listenerName;
    const cache = ctx.metadataCache;
    const all = request.topics === null || (version === 0 && request.topics.length === 0);
    if (!all && version >= 10) {
      for (const t of request.topics ?? []) {
        if (t.name === null) throw new KafkaError('INVALID_REQUEST', `Topic name can not be null for version ${version}`);
        if (t.topicId !== undefined && topicIdOf(t.topicId) !== undefined) throw new KafkaError('INVALID_REQUEST', `Topic IDs are not supported in requests for version ${version}`);
      }
    }
    const names = all ? cache.allTopics() : [...new Set((request.topics ?? []).map((t) => t.name ?? ''))];
    const allowAutoCreate = ctx.config.get('auto.create.topics.enable') && (version < 4 || request.allowAutoTopicCreation);
    const topics: MetadataResponseTopic[] = [];
    for (const name of names) {
      const known = cache.topicMetadata(name, listener);
      if (known !== undefined) {
        topics.push(known);
        continue;
      }
      topics.push({ errorCode: await ctx.autoTopicCreation.unknownTopicError(name, allowAutoCreate && !all), name, isInternal: isInternalTopic(name), partitions: [] });
    }
    // No authorizer: every operation is allowed (AuthHelper.authorizedOperations without one); the cached topic
    // metadata is shared, so the field is set on copies.
    const withOperations = version >= 8 && request.includeTopicAuthorizedOperations === true ? topics.map((t) => ({ ...t, topicAuthorizedOperations: TOPIC_AUTHORIZED_OPERATIONS })) : topics;
    return {
      throttleTimeMs: 0,
      brokers: cache.aliveBrokers(listener),
      clusterId: ctx.clusterId,
      controllerId: cache.controllerId,
      topics: withOperations,
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations === true ? CLUSTER_AUTHORIZED_OPERATIONS : METADATA_AUTHORIZED_OPERATIONS_OMITTED,
    };
  };
}
