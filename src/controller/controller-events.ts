import { ErrorCode } from '../common/error-codes';
import { TopicPartition } from '../common/topic-partition';
import type { PartitionError } from './controller-request-batch';

/** The answer to a broker's ControlledShutdown request: the partitions it still leads (empty: it may stop). */
export interface ControlledShutdownResult {
  errorCode: number;
  remaining: TopicPartition[];
}

/**
 * Everything the controller does happens in one of these events, processed one at a time on the controller's
 * event queue (Kafka's sealed ControllerEvent family, KafkaController.scala). ZooKeeper watches, session
 * changes, broker responses, the scheduler and request handlers only put events.
 */
export type ControllerEvent =
  | { readonly kind: 'Startup' }
  | { readonly kind: 'Expire' }
  | { readonly kind: 'RegisterBrokerAndReelect' }
  | { readonly kind: 'Reelect' }
  | { readonly kind: 'ControllerChange' }
  | { readonly kind: 'BrokerChange' }
  | { readonly kind: 'TopicChange' }
  | { readonly kind: 'PartitionModifications'; readonly topic: string }
  | { readonly kind: 'TopicDeletion' }
  | { readonly kind: 'TopicDeletionStopReplicaResponseReceived'; readonly brokerId: number; readonly partitionErrors: readonly PartitionError[] }
  | { readonly kind: 'IsrChangeNotification' }
  | { readonly kind: 'LogDirEventNotification' }
  | { readonly kind: 'LeaderAndIsrResponseReceived'; readonly brokerId: number; readonly errorCode: number; readonly partitionErrors: readonly PartitionError[] }
  | { readonly kind: 'ZkPartitionReassignment' }
  | { readonly kind: 'ReplicaLeaderElection' }
  | { readonly kind: 'AutoPreferredReplicaLeaderElection' }
  | { readonly kind: 'ControlledShutdown'; readonly brokerId: number; readonly brokerEpoch: number; readonly callback: (result: ControlledShutdownResult) => void };

export type ControllerEventKind = ControllerEvent['kind'];

/**
 * What the controller is busy with (Kafka's ControllerState): the event thread reports the state of the event it
 * runs, Idle between events.
 */
export type ControllerState =
  | 'Idle'
  | 'ControllerChange'
  | 'BrokerChange'
  | 'TopicChange'
  | 'TopicDeletion'
  | 'AlterPartitionReassignment'
  | 'AutoLeaderBalance'
  | 'ManualLeaderBalance'
  | 'ControlledShutdown'
  | 'IsrChange'
  | 'LogDirChange'
  | 'LeaderAndIsrResponseReceived';

const STATES: Record<ControllerEventKind, ControllerState> = {
  Startup: 'ControllerChange',
  Expire: 'ControllerChange',
  RegisterBrokerAndReelect: 'ControllerChange',
  Reelect: 'ControllerChange',
  ControllerChange: 'ControllerChange',
  BrokerChange: 'BrokerChange',
  TopicChange: 'TopicChange',
  PartitionModifications: 'TopicChange',
  TopicDeletion: 'TopicDeletion',
  TopicDeletionStopReplicaResponseReceived: 'TopicDeletion',
  IsrChangeNotification: 'IsrChange',
  LogDirEventNotification: 'LogDirChange',
  LeaderAndIsrResponseReceived: 'LeaderAndIsrResponseReceived',
  ZkPartitionReassignment: 'AlterPartitionReassignment',
  ReplicaLeaderElection: 'ManualLeaderBalance',
  AutoPreferredReplicaLeaderElection: 'AutoLeaderBalance',
  ControlledShutdown: 'ControlledShutdown',
};

export function controllerStateOf(event: ControllerEvent): ControllerState {
  return STATES[event.kind];
}

/** Kafka's `event.toString`: the event's name with its arguments, for log lines. */
export function describeEvent(event: ControllerEvent): string {
  switch (event.kind) {
    case 'PartitionModifications':
      return `PartitionModifications(${event.topic})`;
    case 'TopicDeletionStopReplicaResponseReceived':
      return `TopicDeletionStopReplicaResponseReceived(${event.brokerId})`;
    case 'LeaderAndIsrResponseReceived':
      return `LeaderAndIsrResponseReceived(${event.brokerId})`;
    case 'ControlledShutdown':
      return `ControlledShutdown(${event.brokerId},${event.brokerEpoch})`;
    default:
      return event.kind;
  }
}

/**
 * Kafka's ControllerEvent.preempt: an event dropped from the queue (session expiry, resignation, shutdown) still
 * answers whoever waits for it. A ControlledShutdown hears NOT_CONTROLLER (Kafka's ControllerMovedException), so
 * the broker asks the new controller; the other events have nobody waiting.
 */
export function preempt(event: ControllerEvent): void {
  if (event.kind === 'ControlledShutdown') event.callback({ errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] });
}
