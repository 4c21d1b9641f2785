import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * CreateTopics (key 19), v0-4; v5 is flexible. v1: ValidateOnly; response ErrorMessage. v2: ThrottleTimeMs.
 * v4: NumPartitions/ReplicationFactor -1 mean broker defaults (KIP-464; Kafka accepts -1 at every version).
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

export interface CreatableTopicResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface CreateTopicsResponse {
  throttleTimeMs: number;
  topics: CreatableTopicResult[];
}

export const CreateTopicsApi = new ApiDefinition<CreateTopicsRequest, CreateTopicsResponse>({
  key: ApiKey.CREATE_TOPICS,
  minVersion: 0,
  maxVersion: 4,
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
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '1+', { nullable: '0+', default: null }),
    ]),
  ],
});
