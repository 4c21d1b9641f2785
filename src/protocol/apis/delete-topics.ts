import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DeleteTopics (key 20), v0-6: Kafka 2.8's maximum. v1: ThrottleTimeMs. v2, v3 = v1 (v3 may answer
 * TOPIC_DELETION_DISABLED). v4: flexible. v5: per-topic ErrorMessage. v6 (KIP-516): Topics, each named or given
 * by id (TopicNames is v0-5); the response names the topic (nullable) and gives its id.
 */
export interface DeleteTopicState {
  name: string | null;
  topicId: Buffer;
}

export interface DeleteTopicsRequest {
  /** v0-5. */
  topicNames: string[];
  /** v6+. */
  topics?: DeleteTopicState[];
  timeoutMs: number;
}

export interface DeletableTopicResult {
  /** Null (v6+) for an id that names no topic. */
  name: string | null;
  /** v6+. */
  topicId?: Buffer;
  errorCode: number;
  /** v5+. */
  errorMessage?: string | null;
}

export interface DeleteTopicsResponse {
  throttleTimeMs: number;
  responses: DeletableTopicResult[];
}

/** The zero Uuid: a v6 topic named, not given by id. */
const ZERO_TOPIC_ID = Buffer.alloc(16);

/**
 * A request deleting topics by name at whatever version is negotiated: v0-5 read `topicNames`, v6 `topics`
 * (each with the zero id), as the Java AdminClient fills one or the other.
 */
export function deleteTopicsByName(names: readonly string[], timeoutMs: number): DeleteTopicsRequest {
  return { topicNames: [...names], topics: names.map((name) => ({ name, topicId: ZERO_TOPIC_ID })), timeoutMs };
}

export const DeleteTopicsApi = new ApiDefinition<DeleteTopicsRequest, DeleteTopicsResponse>({
  key: ApiKey.DELETE_TOPICS,
  minVersion: 0,
  maxVersion: 6,
  flexibleFrom: 4,
  errorResponse: (request, version, errorCode) => ({
    throttleTimeMs: 0,
    responses:
      version >= 6
        ? (request.topics ?? []).map((t) => ({ name: t.name, topicId: t.topicId, errorCode }))
        : request.topicNames.map((name) => ({ name, errorCode })),
  }),
  request: [
    s('topics', '6+', [f('name', 'string', '6+', { nullable: '6+', default: null }), f('topicId', 'uuid', '6+')]),
    f('topicNames', '[]string', '0-5'),
    f('timeoutMs', 'int32', '0+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    s('responses', '0+', [
      f('name', 'string', '0+', { nullable: '6+' }),
      f('topicId', 'uuid', '6+'),
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '5+', { nullable: '5+', default: null }),
    ]),
  ],
});
