import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * CreatePartitions (key 37), v0-3, Kafka 2.8's maximum: v0-1 identical layouts; v2 is flexible; v3 = v2 (KIP-599:
 * a client that sees v3 knows the broker may answer THROTTLING_QUOTA_EXCEEDED). Count is the new total.
 */
export interface CreatePartitionsAssignment {
  brokerIds: number[];
}

export interface CreatePartitionsTopic {
  name: string;
  count: number;
  assignments: CreatePartitionsAssignment[] | null;
}

export interface CreatePartitionsRequest {
  topics: CreatePartitionsTopic[];
  timeoutMs: number;
  validateOnly: boolean;
}

export interface CreatePartitionsTopicResult {
  name: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface CreatePartitionsResponse {
  throttleTimeMs: number;
  results: CreatePartitionsTopicResult[];
}

export const CreatePartitionsApi = new ApiDefinition<CreatePartitionsRequest, CreatePartitionsResponse>({
  key: ApiKey.CREATE_PARTITIONS,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 2,
  request: [
    s('topics', '0+', [
      f('name', 'string', '0+'),
      f('count', 'int32', '0+'),
      s('assignments', '0+', [f('brokerIds', '[]int32', '0+')], { nullable: '0+', default: null }),
    ]),
    f('timeoutMs', 'int32', '0+'),
    f('validateOnly', 'bool', '0+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [
      f('name', 'string', '0+'),
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    ]),
  ],
});
