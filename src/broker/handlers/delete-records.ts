import { ErrorCode } from '../../common/error-codes';
import { TopicPartition, tpKey } from '../../common/topic-partition';
import { DeleteRecordsPartitionResult, DeleteRecordsRequest, DeleteRecordsResponse } from '../../protocol/apis/delete-records';
import { ApiHandler } from '../network/api-handler';
import { filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * DeleteRecords (Kafka's KafkaApis.handleDeleteRecordsRequest): partitions the metadata cache does not know are
 * UNKNOWN_TOPIC_OR_PARTITION; the others go to the replica manager, which moves each leader's log start offset and
 * answers once the low watermarks have followed (or timeoutMs passed). A partition named twice is answered once,
 * with the last offset given for it, as Kafka's map of partitions does.
 */
export function createDeleteRecordsHandler(ctx: HandlerContext): ApiHandler<DeleteRecordsRequest, DeleteRecordsResponse> {
  return async (request, context) => {
    const order: { key: string; tp: TopicPartition }[] = [];
    const known = new Map<string, { tp: TopicPartition; offset: number }>();
    const unknown = new Set<string>();
    // Kafka's handleDeleteRecordsRequest: Delete on each topic.
    const authorized = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'DELETE', 'TOPIC', request.topics.map((t) => t.name));
    const refused = new Set<string>();
    for (const t of request.topics) {
      for (const p of t.partitions) {
        const key = tpKey(t.name, p.partitionIndex);
        const tp = { topic: t.name, partition: p.partitionIndex };
        if (!known.has(key) && !unknown.has(key)) order.push({ key, tp });
        if (authorized !== undefined && !authorized.has(t.name)) refused.add(key);
        else if (ctx.metadataCache.partitionState(tp) === undefined) unknown.add(key);
        else known.set(key, { tp, offset: p.offset });
      }
    }
    const results = await ctx.replicaManager.deleteRecords(request.timeoutMs, known);
    const byTopic = new Map<string, DeleteRecordsPartitionResult[]>();
    for (const { key, tp } of order) {
      const r = results.get(key) ?? { lowWatermark: -1, errorCode: refused.has(key) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED.code : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code };
      let list = byTopic.get(tp.topic);
      if (list === undefined) byTopic.set(tp.topic, (list = []));
      list.push({ partitionIndex: tp.partition, lowWatermark: r.lowWatermark, errorCode: r.errorCode });
    }
    return { throttleTimeMs: 0, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) };
  };
}
