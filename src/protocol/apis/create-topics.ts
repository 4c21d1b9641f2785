import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * CreateTopics (key 19), v0-7: Kafka 2.8's maximum. v1: ValidateOnly; response ErrorMessage. v2: ThrottleTimeMs.
 * v4: NumPartitions/ReplicationFactor -1 mean broker defaults (KIP-464; Kafka accepts -1 at every version).
 * v5: flexible; the response gives each created topic's NumPartitions, ReplicationFactor and Configs (KIP-525),
 * and TopicConfigErrorCode as tagged field 0 (written only when not NONE: this broker never fails to describe the
 * configs of a topic it created, so it is never written). v6 = v5 (quota violations answer
 * THROTTLING_QUOTA_EXCEEDED; no quota applies here). v7 (KIP-516): TopicId in the response.
 */
export interface CreatableReplicaAssignment {
  partitionIndex: number;
  brokerIds: number[];
}

export interface CreateableTopicConfig {
  name: string;
  value: string | null;
}

export interface CreatableTopic {
  name: string;
  numPartitions: number;
  replicationFactor: number;
  assignments: CreatableReplicaAssignment[];
  configs: CreateableTopicConfig[];
}

export interface CreateTopicsRequest {
  topics: CreatableTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreatableTopicConfigs {
  name: string;
  value: string | null;
  readOnly: boolean;
  configSource: number;
  isSensitive: boolean;
}

export interface CreatableTopicResult {
  name: string;
  /** v7+ (zero Uuid when not created). */
  topicId?: Buffer;
  errorCode: number;
  errorMessage: string | null;
  /** v5+ tagged (tag 0): TOPIC_AUTHORIZATION_FAILED when the caller may not describe the topic's configs. */
  topicConfigErrorCode?: number;
  /** v5+: -1 when the creation failed. */
  numPartitions?: number;
  replicationFactor?: number;
  /** v5+ (null: not described). */
  configs?: CreatableTopicConfigs[] | null;
}

export interface CreateTopicsResponse {
  throttleTimeMs: number;
  topics: CreatableTopicResult[];
}

export const CreateTopicsApi = new ApiDefinition<CreateTopicsRequest, CreateTopicsResponse>({
  key: ApiKey.CREATE_TOPICS,
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 5,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, errorCode, errorMessage: null })),
  }),
  request: [
    s('topics', '0+', [
      f('name', 'string', '0+'),
      f('numPartitions', 'int32', '0+'),
      f('replicationFactor', 'int16', '0+'),
      s('assignments', '0+', [f('partitionIndex', 'int32', '0+'), f('brokerIds', '[]int32', '0+')]),
      s('configs', '0+', [f('name', 'string', '0+'), f('value', 'string', '0+', { nullable: '0+' })]),
    ]),
    f('timeoutMs', 'int32', '0+', { default: 60000 }),
    f('validateOnly', 'bool', '1+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '2+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      f('topicId', 'uuid', '7+'),
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '1+', { nullable: '0+', default: null }),
      f('topicConfigErrorCode', 'int16', '5+', { default: 0, tag: 0 }),
      f('numPartitions', 'int32', '5+', { default: -1 }),
      f('replicationFactor', 'int16', '5+', { default: -1 }),
      s(
        'configs',
        '5+',
        [
          f('name', 'string', '5+'),
          f('value', 'string', '5+', { nullable: '5+' }),
          f('readOnly', 'bool', '5+'),
          f('configSource', 'int8', '5+', { default: -1 }),
          f('isSensitive', 'bool', '5+'),
        ],
        { nullable: '5+' },
      ),
    ]),
  ],
});
