import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ListPartitionReassignments (key 46, KIP-455), v0: Kafka 2.8's whole window, flexible from its first version.
 * `topics` null lists every ongoing reassignment; named partitions that are not being reassigned are left out of
 * the answer. Served by the controller only (NOT_CONTROLLER at the top elsewhere).
 */
export interface ListPartitionReassignmentsTopics {
  name: string;
  partitionIndexes: number[];
}

export interface ListPartitionReassignmentsRequest {
  timeoutMs: number;
  topics: ListPartitionReassignmentsTopics[] | null;
}

export interface OngoingPartitionReassignment {
  partitionIndex: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
}

export interface OngoingTopicReassignment {
  name: string;
  partitions: OngoingPartitionReassignment[];
}

export interface ListPartitionReassignmentsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  topics: OngoingTopicReassignment[];
}

export const ListPartitionReassignmentsApi = new ApiDefinition<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse>({
  key: ApiKey.LIST_PARTITION_REASSIGNMENTS,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  request: [
    f('timeoutMs', 'int32', '0+', { default: 60000 }),
    s('topics', '0+', [f('name', 'string', '0+'), f('partitionIndexes', '[]int32', '0+')], { nullable: '0+', default: null }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('replicas', '[]int32', '0+'),
        f('addingReplicas', '[]int32', '0+'),
        f('removingReplicas', '[]int32', '0+'),
      ]),
    ]),
  ],
});
