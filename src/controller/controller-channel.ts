import { LeaderAndIsrRequest, LeaderAndIsrResponse } from '../protocol/apis/leader-and-isr';
import { StopReplicaRequest, StopReplicaResponse } from '../protocol/apis/stop-replica';
import { UpdateMetadataRequest, UpdateMetadataResponse } from '../protocol/apis/update-metadata';
import { BrokerInfo } from '../zk/znodes/broker-info';

/**
 * How the controller reaches brokers (Kafka's ControllerChannelManager): one ordered queue per live broker,
 * requests sent over the wire (also to the controller's own broker), retried until they succeed or the broker
 * is removed. Responses come back through callbacks, which the controller turns into events.
 */
export interface ControllerChannel {
  addBroker(broker: BrokerInfo): void;
  removeBroker(brokerId: number): void;
  sendLeaderAndIsr(brokerId: number, request: LeaderAndIsrRequest, onResponse?: (response: LeaderAndIsrResponse) => void): void;
  sendUpdateMetadata(brokerId: number, request: UpdateMetadataRequest, onResponse?: (response: UpdateMetadataResponse) => void): void;
  sendStopReplica(brokerId: number, request: StopReplicaRequest, onResponse?: (response: StopReplicaResponse) => void): void;
  shutdown(): Promise<void>;
  /** The inter-broker listener the channel talks on: LeaderAndIsr's live leaders name their endpoint on it. */
  readonly listenerName?: string;
}
