import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ElectLeaders (key 43), v0-2: Kafka 2.8's whole window. v1 adds the election type (KIP-460: 0 preferred,
 * 1 unclean; v0 is always preferred) and the top-level error code; v2 is the first flexible version.
 * `topicPartitions` null means every partition. Served by the controller only.
 */
export interface ElectLeadersTopicPartitions {
  topic: string;
  partitions: number[];
}

export interface ElectLeadersRequest {
  electionType: number;
  topicPartitions: ElectLeadersTopicPartitions[] | null;
  timeoutMs: number;
}

export interface ElectLeadersPartitionResult {
  partitionId: number;
  errorCode: number;
  errorMessage: string | null;
}

export interface ElectLeadersReplicaElectionResult {
  topic: string;
  partitionResult: ElectLeadersPartitionResult[];
}

export interface ElectLeadersResponse {
  throttleTimeMs: number;
  errorCode: number;
  replicaElectionResults: ElectLeadersReplicaElectionResult[];
}

/** Kafka's ElectionType. */
export const ElectionType = { PREFERRED: 0, UNCLEAN: 1 } as const;

export const ElectLeadersApi = new ApiDefinition<ElectLeadersRequest, ElectLeadersResponse>({
  key: ApiKey.ELECT_LEADERS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [
    f('electionType', 'int8', '1+'),
    s('topicPartitions', '0+', [f('topic', 'string', '0+'), f('partitions', '[]int32', '0+')], { nullable: '0+', default: null }),
    f('timeoutMs', 'int32', '0+', { default: 60000 }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '1+'),
    s('replicaElectionResults', '0+', [
      f('topic', 'string', '0+'),
      s('partitionResult', '0+', [
        f('partitionId', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      ]),
    ]),
  ],
  // Kafka's ElectLeadersRequest.getErrorResponse: the error for every requested partition (and at the top, v1+).
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    errorCode,
    replicaElectionResults: (request.topicPartitions ?? []).map((t) => ({
      topic: t.topic,
      partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode, errorMessage: null })),
    })),
  }),
});
