import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * LeaderAndIsr (key 4), controller -> broker, v0-5: Kafka 2.8's maximum (the controller sends v5 at
 * inter.broker.protocol.version 2.8).
 * v1: IsNew (IBP 1.0). v2 (IBP 2.2): BrokerEpoch, partitions grouped by topic (TopicStates replaces
 * UngroupedPartitionStates, whose elements carry TopicName only in v0-1). v3 (KIP-455): AddingReplicas and
 * RemovingReplicas. v4: flexible. v5 (KIP-516): Type (0 = incremental, 1 = full), TopicId per topic state; the
 * response lists its errors per topic by id (Topics) instead of per partition by name (PartitionErrors, v0-4).
 */
const partitionState = (topicNameVersions: string) => [
  f('topicName', 'string', topicNameVersions),
  f('partitionIndex', 'int32', '0+'),
  f('controllerEpoch', 'int32', '0+'),
  f('leader', 'int32', '0+'),
  f('leaderEpoch', 'int32', '0+'),
  f('isr', '[]int32', '0+'),
  f('zkVersion', 'int32', '0+'),
  f('replicas', '[]int32', '0+'),
  f('addingReplicas', '[]int32', '3+'),
  f('removingReplicas', '[]int32', '3+'),
  f('isNew', 'bool', '1+'),
];

export interface LeaderAndIsrPartitionState {
  /** Set in v0-1 (ungrouped); in v2+ the name comes from the enclosing topic state. */
  topicName: string;
  partitionIndex: number;
  controllerEpoch: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  replicas: number[];
  addingReplicas: number[];
  removingReplicas: number[];
  isNew: boolean;
}

export interface LeaderAndIsrTopicState {
  topicName: string;
  /** v5+: the topic's id (16 bytes; zero when it has none). */
  topicId?: Buffer;
  partitionStates: LeaderAndIsrPartitionState[];
}

export interface LeaderAndIsrLiveLeader {
  brokerId: number;
  hostName: string;
  port: number;
}

export interface LeaderAndIsrRequest {
  controllerId: number;
  controllerEpoch: number;
  brokerEpoch: number;
  /** v5+: 0 = incremental, 1 = full (Kafka's LeaderAndIsrRequest.Type); Kafka 2.8's controller always sends 0. */
  type?: number;
  ungroupedPartitionStates: LeaderAndIsrPartitionState[];
  topicStates: LeaderAndIsrTopicState[];
  liveLeaders: LeaderAndIsrLiveLeader[];
}

export interface LeaderAndIsrPartitionError {
  /** v0-4 only; in v5 the topic is the enclosing LeaderAndIsrTopicError's id. */
  topicName: string;
  partitionIndex: number;
  errorCode: number;
}

export interface LeaderAndIsrTopicError {
  topicId: Buffer;
  partitionErrors: LeaderAndIsrPartitionError[];
}

export interface LeaderAndIsrResponse {
  errorCode: number;
  /** v0-4. */
  partitionErrors: LeaderAndIsrPartitionError[];
  /** v5+. */
  topics?: LeaderAndIsrTopicError[];
}

export const LeaderAndIsrApi = new ApiDefinition<LeaderAndIsrRequest, LeaderAndIsrResponse>({
  key: ApiKey.LEADER_AND_ISR,
  minVersion: 0,
  maxVersion: 5,
  flexibleFrom: 4,
  interBroker: true,
  request: [
    f('controllerId', 'int32', '0+'),
    f('controllerEpoch', 'int32', '0+'),
    f('brokerEpoch', 'int64', '2+', { default: -1 }),
    f('type', 'int8', '5+'),
    s('ungroupedPartitionStates', '0-1', partitionState('0-1')),
    s('topicStates', '2+', [f('topicName', 'string', '2+'), f('topicId', 'uuid', '5+'), s('partitionStates', '2+', partitionState('0-1'))]),
    s('liveLeaders', '0+', [f('brokerId', 'int32', '0+'), f('hostName', 'string', '0+'), f('port', 'int32', '0+')]),
  ],
  response: [
    f('errorCode', 'int16', '0+'),
    s('partitionErrors', '0-4', [
      f('topicName', 'string', '0-4'),
      f('partitionIndex', 'int32', '0+'),
      f('errorCode', 'int16', '0+'),
    ]),
    s('topics', '5+', [
      f('topicId', 'uuid', '5+'),
      s('partitionErrors', '5+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')]),
    ]),
  ],
});
