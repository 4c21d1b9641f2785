import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * StopReplica (key 5), controller -> broker, v0-3, Kafka 2.8's maximum; v2 is flexible.
 * v0: one DeletePartitions flag and ungrouped (topic, partition) pairs. v1: BrokerEpoch, partitions grouped by topic.
 * v3 (KIP-570): TopicStates, each partition with its LeaderEpoch (-1 unknown, -2 the topic is being deleted) and its
 * own DeletePartition flag; the request-level flag and the topic lists are gone. The response is the same in all.
 */
export interface StopReplicaPartitionV0 {
  topicName: string;
  partitionIndex: number;
}

export interface StopReplicaTopicV1 {
  name: string;
  partitionIndexes: number[];
}

export interface StopReplicaPartitionState {
  partitionIndex: number;
  leaderEpoch: number;
  deletePartition: boolean;
}

export interface StopReplicaTopicState {
  topicName: string;
  partitionStates: StopReplicaPartitionState[];
}

/** Kafka's LeaderAndIsr.NoEpoch and EpochDuringDelete: the epochs that bypass the broker's fencing. */
export const NO_LEADER_EPOCH = -1;
export const EPOCH_DURING_DELETE = -2;

/** Every layout is filled by the controller; the codec writes the fields of the negotiated version. */
export interface StopReplicaRequest {
  controllerId: number;
  controllerEpoch: number;
  brokerEpoch: number;
  deletePartitions: boolean;
  ungroupedPartitions: StopReplicaPartitionV0[];
  topics: StopReplicaTopicV1[];
  topicStates: StopReplicaTopicState[];
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
  maxVersion: 3,
  flexibleFrom: 2,
  interBroker: true,
  request: [
    f('controllerId', 'int32', '0+'),
    f('controllerEpoch', 'int32', '0+'),
    f('brokerEpoch', 'int64', '1+', { default: -1 }),
    f('deletePartitions', 'bool', '0-2'),
    s('ungroupedPartitions', '0', [f('topicName', 'string', '0'), f('partitionIndex', 'int32', '0')]),
    s('topics', '1-2', [f('name', 'string', '1-2'), f('partitionIndexes', '[]int32', '1-2')]),
    s('topicStates', '3+', [
      f('topicName', 'string', '3+'),
      s('partitionStates', '3+', [f('partitionIndex', 'int32', '3+'), f('leaderEpoch', 'int32', '3+', { default: -1 }), f('deletePartition', 'bool', '3+')]),
    ]),
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
