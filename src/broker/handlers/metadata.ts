import { KafkaError } from '../../common/kafka-error';
import { isInternalTopic } from '../../common/topic';
import { topicIdOf } from '../../common/uuid';
import { METADATA_AUTHORIZED_OPERATIONS_OMITTED, MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/apis/metadata';
import { ApiHandler } from '../network/api-handler';
import { ErrorCode } from '../../common/error-codes';
import { CLUSTER_NAME } from '../../security/acl-binding';
import { authorizeCluster, authorizedOperations, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

function refusedTopic(name: string, isInternal: boolean): MetadataResponseTopic {
  return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, name, isInternal, partitions: [] };
}

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
    const asked = all ? cache.allTopics() : (request.topics ?? []).map((t) => t.name ?? '');
    const allowAutoCreate = ctx.config.get('auto.create.topics.enable') && (version < 4 || request.allowAutoTopicCreation);
    const topics: MetadataResponseTopic[] = [];
    // Kafka's handleTopicMetadataRequest: Describe on each topic (all-topics requests just leave the others out,
    // named ones get TOPIC_AUTHORIZATION_FAILED without saying whether they exist), and auto-creation needs
    // Create on the cluster or on the topic.
    let names = [...new Set(asked)];
    if (ctx.authorizer !== undefined) {
      const described = filterByAuthorized(ctx, context, 'DESCRIBE', 'TOPIC', asked, all ? { logIfDenied: false } : {});
      for (const name of names) if (!all && !described.has(name)) topics.push(refusedTopic(name, false));
      names = names.filter((n) => described.has(n));
      const missing = names.filter((n) => !cache.contains(n));
      if (allowAutoCreate && !all && missing.length > 0 && !authorizeCluster(ctx, context, 'CREATE', { logIfDenied: false })) {
        const creatable = filterByAuthorized(ctx, context, 'CREATE', 'TOPIC', missing);
        for (const name of missing) if (!creatable.has(name)) topics.push(refusedTopic(name, isInternalTopic(name)));
        names = names.filter((n) => cache.contains(n) || creatable.has(n));
      }
    }
    for (const name of names) {
      const known = cache.topicMetadata(name, listener);
      if (known !== undefined) {
        topics.push(known);
        continue;
      }
      topics.push({ errorCode: await ctx.autoTopicCreation.unknownTopicError(name, allowAutoCreate && !all), name, isInternal: isInternalTopic(name), partitions: [] });
    }
    // The cached topic metadata is shared, so the field is set on copies.
    const withOperations =
      version >= 8 && request.includeTopicAuthorizedOperations === true
        ? topics.map((t) => (t.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code ? t : { ...t, topicAuthorizedOperations: authorizedOperations(ctx, context, 'TOPIC', t.name) }))
        : topics;
    return {
      throttleTimeMs: 0,
      brokers: cache.aliveBrokers(listener),
      clusterId: ctx.clusterId,
      controllerId: cache.controllerId,
      topics: withOperations,
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations === true ? authorizedOperations(ctx, context, 'CLUSTER', CLUSTER_NAME) : METADATA_AUTHORIZED_OPERATIONS_OMITTED,
    };
  };
}
