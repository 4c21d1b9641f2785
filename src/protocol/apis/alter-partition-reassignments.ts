import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * AlterPartitionReassignments (key 45, KIP-455), v0: Kafka 2.8's whole window, flexible from its first version.
 * Each partition names its target replicas, or null to cancel its ongoing reassignment. Served by the controller
 * only: elsewhere the top-level error is NOT_CONTROLLER and no partition is answered.
 */
export interface ReassignablePartition {
  partitionIndex: number;
  /** null: cancel the partition's reassignment (revert to its original replicas). */
  replicas: number[] | null;
}

export interface ReassignableTopic {
  name: string;
  partitions: ReassignablePartition[];
}

export interface AlterPartitionReassignmentsRequest {
  timeoutMs: number;
  topics: ReassignableTopic[];
}

export interface ReassignablePartitionResponse {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ReassignableTopicResponse {
  name: string;
  partitions: ReassignablePartitionResponse[];
}

export interface AlterPartitionReassignmentsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  responses: ReassignableTopicResponse[];
}

export const AlterPartitionReassignmentsApi = new ApiDefinition<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse>({
  key: ApiKey.ALTER_PARTITION_REASSIGNMENTS,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  request: [
    f('timeoutMs', 'int32', '0+', { default: 60000 }),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('replicas', '[]int32', '0+', { nullable: '0+', default: null })]),
    ]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('responses', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      ]),
    ]),
  ],
  // Kafka's AlterPartitionReassignmentsRequest.getErrorResponse: the error for every partition and at the top.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage: null,
    responses: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, errorMessage: null })) })),
  }),
});
