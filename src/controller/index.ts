// The controller as the broker sees it: the rest of src/controller is the controller's own business.
export { KafkaController } from './kafka-controller';
export type { ControllerConfig } from './kafka-controller';
export type { ControllerStatsObserver } from './controller-stats';
export type { ControllerState } from './controller-events';
export { ControllerChannelManager } from './controller-channel-manager';
export { assignReplicasToBrokers, assignAddedPartitions, InvalidPartitionsError, InvalidReplicationFactorError } from './replica-assignment';
