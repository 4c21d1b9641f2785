import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ControlledShutdown (key 7), broker -> controller, v0-3, Kafka 2.8's maximum; v3 = v2, flexible. v0 uses request
 * header v0 (no client id). v2: BrokerEpoch (KIP-380). The response lists the partitions the broker still leads.
 */
export interface ControlledShutdownRequest {
  brokerId: number;
  brokerEpoch: number;
}

export interface RemainingPartition {
  topicName: string;
  partitionIndex: number;
}

export interface ControlledShutdownResponse {
  errorCode: number;
  remainingPartitions: RemainingPartition[];
}

export const ControlledShutdownApi = new ApiDefinition<ControlledShutdownRequest, ControlledShutdownResponse>({
  key: ApiKey.CONTROLLED_SHUTDOWN,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  interBroker: true,
  request: [f('brokerId', 'int32', '0+'), f('brokerEpoch', 'int64', '2+', { default: -1 })],
  response: [
    f('errorCode', 'int16', '0+'),
    s('remainingPartitions', '0+', [f('topicName', 'string', '0+'), f('partitionIndex', 'int32', '0+')]),
  ],
});
