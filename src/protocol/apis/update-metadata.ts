import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * UpdateMetadata (key 6), controller -> broker, v0-7: Kafka 2.8's maximum (the controller sends v7 at
 * inter.broker.protocol.version 2.8). v6: flexible. v7 (KIP-516): TopicId per topic state.
 * v0: one host/port per broker. v1: Endpoints (port, host, security protocol). v2: Rack. v3: endpoint Listener
 * name. v4: OfflineReplicas. v5: BrokerEpoch; partitions grouped by topic (TopicStates). Leader -2 marks a topic
 * being deleted (LeaderDuringDelete).
 */
const partitionState = [
  f('topicName', 'string', '0-4'),
  f('partitionIndex', 'int32', '0+'),
  f('controllerEpoch', 'int32', '0+'),
  f('leader', 'int32', '0+'),
  f('leaderEpoch', 'int32', '0+'),
  f('isr', '[]int32', '0+'),
  f('zkVersion', 'int32', '0+'),
  f('replicas', '[]int32', '0+'),
  f('offlineReplicas', '[]int32', '4+'),
];

export interface UpdateMetadataPartitionState {
  /** Set in v0-4 (ungrouped); in v5 the name comes from the enclosing topic state. */
  topicName: string;
  partitionIndex: number;
  controllerEpoch: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  replicas: number[];
  offlineReplicas: number[];
}

export interface UpdateMetadataTopicState {
  topicName: string;
  /** v7+: the topic's id (16 bytes; zero when it has none). */
  topicId?: Buffer;
  partitionStates: UpdateMetadataPartitionState[];
}

export interface UpdateMetadataEndpoint {
  port: number;
  host: string;
  listener: string;
  securityProtocol: number;
}

export interface UpdateMetadataBroker {
  id: number;
  v0Host: string;
  v0Port: number;
  endpoints: UpdateMetadataEndpoint[];
  rack: string | null;
}

export interface UpdateMetadataRequest {
  controllerId: number;
  controllerEpoch: number;
  brokerEpoch: number;
  ungroupedPartitionStates: UpdateMetadataPartitionState[];
  topicStates: UpdateMetadataTopicState[];
  liveBrokers: UpdateMetadataBroker[];
}

export interface UpdateMetadataResponse {
  errorCode: number;
}

export const UpdateMetadataApi = new ApiDefinition<UpdateMetadataRequest, UpdateMetadataResponse>({
  key: ApiKey.UPDATE_METADATA,
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 6,
  interBroker: true,
  request: [
    f('controllerId', 'int32', '0+'),
    f('controllerEpoch', 'int32', '0+'),
    f('brokerEpoch', 'int64', '5+', { default: -1 }),
    s('ungroupedPartitionStates', '0-4', partitionState),
    s('topicStates', '5+', [f('topicName', 'string', '5+'), f('topicId', 'uuid', '7+'), s('partitionStates', '5+', partitionState)]),
    s('liveBrokers', '0+', [
      f('id', 'int32', '0+'),
      f('v0Host', 'string', '0'),
      f('v0Port', 'int32', '0'),
      s('endpoints', '1+', [
        f('port', 'int32', '1+'),
        f('host', 'string', '1+'),
        f('listener', 'string', '3+'),
        f('securityProtocol', 'int16', '1+'),
      ]),
      f('rack', 'string', '2+', { nullable: '0+', default: null }),
    ]),
  ],
  response: [f('errorCode', 'int16', '0+')],
});
