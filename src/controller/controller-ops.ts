import { Logger } from '../common/logging/logging';
import { TopicPartition } from '../common/topic-partition';
import { ControllerChannel } from './controller-channel';
import { ControllerContext } from './controller-context';
import { PartitionStateMachine } from './partition-state-machine';
import { ReplicaStateMachine } from './replica-state-machine';
import { TopicDeletionManager } from './topic-deletion-manager';

/**
 * What the controller's flows (broker changes, leader balancing, reassignment) use of an active controller:
 * its context, state machines, deletion manager and channel, and the two request shortcuts. KafkaController
 * builds one at failover and drops it at resignation, so a flow can only ever run against a live failover.
 */
export interface ControllerOps {
  readonly context: ControllerContext;
  readonly partitionStateMachine: PartitionStateMachine;
  readonly replicaStateMachine: ReplicaStateMachine;
  readonly topicDeletionManager: TopicDeletionManager;
  readonly channel: ControllerChannel;
  /** The controller's side of state-change.log, with the current epoch in its prefix. */
  stateChangeLogger(): Logger;
  /** UpdateMetadata for `partitions` (and the live brokers) to `brokers`, as one batch. */
  sendUpdateMetadataRequest(brokers: readonly number[], partitions: readonly TopicPartition[]): void;
  /** LeaderAndIsr with the current leadership of `tp` to `brokers`, as one batch. */
  sendLeaderAndIsr(brokers: readonly number[], tp: TopicPartition): void;
}
