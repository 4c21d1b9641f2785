import { isInternalTopic } from '../../common/topic';
import { MetadataRequest, MetadataResponse, MetadataResponseTopic } from '../../protocol/apis/metadata';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

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
    return {
      throttleTimeMs: 0,
      brokers: cache.aliveBrokers(listener),
      clusterId: ctx.clusterId,
      controllerId: cache.controllerId,
      topics,
    };
  };
}
