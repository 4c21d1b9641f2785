import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * StopReplica (key 5), controller -> broker, v0-1; v2 is flexible (and v3 moves DeletePartitions per partition).
 * v0: one DeletePartitions flag and ungrouped (topic, partition) pairs. v1: BrokerEpoch, partitions grouped by topic.
 */
export interface StopReplicaPartitionV0 {
  topicName: string;
  partitionIndex: number;
}

export interface StopReplicaTopicV1 {
  name: string;
  partitionIndexes: number[];
}

export interface StopReplicaRequest {
  controllerId: number;
  controllerEpoch: number;
  brokerEpoch: number;
  deletePartitions: boolean;
  ungroupedPartitions: StopReplicaPartitionV0[];
  topics: StopReplicaTopicV1[];
}

export interface StopReplicaPartitionError {
  topicName: string;
  partitionIndex: number;
  errorCode: number;
}

export interface StopReplicaResponse {
  errorCode: number;
  partitionErrors: StopReplicaPartitionError[];
}

export const StopReplicaApi = new ApiDefinition<StopReplicaRequest, StopReplicaResponse>({
  key: ApiKey.STOP_REPLICA,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 2,
  interBroker: true,
  request: [
    f('controllerId', 'int32', '0+'),
    f('controllerEpoch', 'int32', '0+'),
    f('brokerEpoch', 'int64', '1+', { default: -1 }),
    f('deletePartitions', 'bool', '0+'),
    s('ungroupedPartitions', '0', [f('topicName', 'string', '0'), f('partitionIndex', 'int32', '0')]),
    s('topics', '1+', [f('name', 'string', '1+'), f('partitionIndexes', '[]int32', '1+')]),
  ],
  response: [
    f('errorCode', 'int16', '0+'),
    s('partitionErrors', '0+', [
      f('topicName', 'string', '0+'),
      f('partitionIndex', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
    ]),
  ],
});
