import { ApiDefinition } from '../../protocol/api-definition';

type AnyBody = Record<string, unknown>;
type TopicLike = { name?: string; topic?: string; partitionData?: unknown[]; partitions?: unknown[] };

function topicsOf(body: AnyBody, field: string): TopicLike[] {
  const topics = body[field];
  return Array.isArray(topics) ? (topics as TopicLike[]) : [];
}

function partitionIds(list: unknown[] | undefined, field: string): number[] {
  return (list ?? []).map((p) => (typeof p === 'number' ? p : ((p as AnyBody)[field] as number)));
}

/**
 * Kafka's AbstractRequest.getErrorResponse: the response a request gets when its handler failed, with the error
 * in every slot the client will look at (each requested partition, or the top-level error field). Returns null
 * when the API has no shape that can carry an error, in which case the connection is closed instead.
 */
export function buildErrorResponse(api: ApiDefinition, version: number, request: unknown, errorCode: number): AnyBody | null {
  const body = request as AnyBody;
  switch (api.key) {
    case 0: // Produce
      return {
        responses: topicsOf(body, 'topicData').map((t) => ({
          name: t.name,
          partitionResponses: partitionIds(t.partitionData, 'index').map((index) => ({ index, errorCode, baseOffset: -1 })),
        })),
        throttleTimeMs: 0,
      };
    case 1: // Fetch
      return {
        errorCode: version >= 7 ? errorCode : 0,
        responses: topicsOf(body, 'topics').map((t) => ({
          topic: t.topic,
          partitionResponses: partitionIds(t.partitions, 'partition').map((partition) => ({
            partition,
            errorCode,
            highWatermark: -1,
            lastStableOffset: -1,
            logStartOffset: -1,
            abortedTransactions: null,
          })),
        })),
      };
    case 2: // ListOffsets
    case 8: // OffsetCommit
      return {
        topics: topicsOf(body, 'topics').map((t) => ({
          name: t.name,
          partitions: partitionIds(t.partitions, 'partitionIndex').map((partitionIndex) => ({ partitionIndex, errorCode })),
        })),
      };
    case 3: // Metadata: every requested topic carries the error
      return { topics: topicsOf(body, 'topics').map((t) => ({ errorCode, name: t.name, partitions: [] })) };
    case 9: // OffsetFetch
      return {
        topics: topicsOf(body, 'topics').map((t) => ({
          name: t.name,
          partitions: ((t as AnyBody)['partitionIndexes'] as number[]).map((partitionIndex) => ({
            partitionIndex,
            committedOffset: -1,
            metadata: '',
            errorCode,
          })),
        })),
        errorCode: version >= 2 ? errorCode : 0,
      };
    case 19: // CreateTopics
      return { topics: topicsOf(body, 'topics').map((t) => ({ name: t.name, errorCode })) };
    case 20: // DeleteTopics
      return { responses: ((body['topicNames'] as string[]) ?? []).map((name) => ({ name, errorCode })) };
    default:
      return api.hasResponseField('errorCode', version) ? { errorCode } : null;
  }
}
