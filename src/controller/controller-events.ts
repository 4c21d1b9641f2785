import { ErrorCode } from '../common/error-codes';
import { TopicPartition, tpString } from '../common/topic-partition';
import type { PartitionError } from './controller-request-batch';

/** The answer to a broker's ControlledShutdown request: the partitions it still leads (empty: it may stop). */
export interface ControlledShutdownResult {
  errorCode: number;
  remaining: TopicPartition[];
}

/** Kafka's ElectionType. */
export type ElectionType = 'PREFERRED' | 'UNCLEAN';

/**
 * One partition's outcome of an election an admin client asked for (Kafka's Either[ApiError, Int]): the new
 * leader with NONE, or an error (leader -1) with Kafka's message (null where Kafka's ApiError has none).
 */
export interface ElectionOutcome {
  readonly tp: TopicPartition;
  readonly leader: number;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** The admin client's side of a ReplicaLeaderElection event (AdminClientTriggered): what to elect, whom to answer. */
export interface AdminLeaderElection {
  readonly partitions: readonly TopicPartition[];
  readonly electionType: ElectionType;
  readonly callback: (results: ElectionOutcome[]) => void;
}

/** Every partition of an admin election answered with one error (the controller moved, or the event failed). */
export function failAdminElection(admin: AdminLeaderElection, errorCode: number): void {
  admin.callback(admin.partitions.map((tp) => ({ tp, leader: -1, errorCode, errorMessage: null })));
}

/** One partition of an AlterPartitionReassignments request: its target replicas, or null to cancel. */
export interface ApiReassignment {
  readonly tp: TopicPartition;
  readonly replicas: readonly number[] | null;
}

/** One partition's answer (Kafka's ApiError): NONE, or an error with Kafka's message (null where it has none). */
export interface PartitionApiError {
  readonly tp: TopicPartition;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

/** Kafka's Either[Map[TopicPartition, ApiError], ApiError]: per-partition answers, or one top-level error. */
export type AlterReassignmentsResult = { readonly errorCode: number; readonly partitions: readonly PartitionApiError[] };

/** A partition being reassigned, as ListPartitionReassignments reports it (RS, AR, RR). */
export interface OngoingReassignment {
  readonly tp: TopicPartition;
  readonly replicas: number[];
  readonly addingReplicas: number[];
  readonly removingReplicas: number[];
}

export type ListReassignmentsResult = { readonly errorCode: number; readonly reassignments: readonly OngoingReassignment[] };

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
  | { readonly kind: 'BrokerModifications'; readonly brokerId: number }
  | { readonly kind: 'TopicChange' }
  | { readonly kind: 'PartitionModifications'; readonly topic: string }
  | { readonly kind: 'TopicDeletion' }
  | { readonly kind: 'TopicDeletionStopReplicaResponseReceived'; readonly brokerId: number; readonly partitionErrors: readonly PartitionError[] }
  | { readonly kind: 'IsrChangeNotification' }
  | { readonly kind: 'LogDirEventNotification' }
  | { readonly kind: 'LeaderAndIsrResponseReceived'; readonly brokerId: number; readonly errorCode: number; readonly partitionErrors: readonly PartitionError[] }
  | { readonly kind: 'ZkPartitionReassignment' }
  | { readonly kind: 'ApiPartitionReassignment'; readonly reassignments: readonly ApiReassignment[]; readonly callback: (result: AlterReassignmentsResult) => void }
  | { readonly kind: 'ListPartitionReassignments'; readonly partitions: readonly TopicPartition[] | null; readonly callback: (result: ListReassignmentsResult) => void }
  // Without `admin`: ZkTriggered (/admin/preferred_replica_election); with it: AdminClientTriggered (ElectLeaders).
  | { readonly kind: 'ReplicaLeaderElection'; readonly admin?: AdminLeaderElection }
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
  | 'ListPartitionReassignment'
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
  BrokerModifications: 'BrokerChange',
  TopicChange: 'TopicChange',
  PartitionModifications: 'TopicChange',
  TopicDeletion: 'TopicDeletion',
  TopicDeletionStopReplicaResponseReceived: 'TopicDeletion',
  IsrChangeNotification: 'IsrChange',
  LogDirEventNotification: 'LogDirChange',
  LeaderAndIsrResponseReceived: 'LeaderAndIsrResponseReceived',
  ZkPartitionReassignment: 'AlterPartitionReassignment',
  ApiPartitionReassignment: 'AlterPartitionReassignment',
  ListPartitionReassignments: 'ListPartitionReassignment',
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
    case 'BrokerModifications':
      return `BrokerModifications(${event.brokerId})`;
    case 'ControlledShutdown':
      return `ControlledShutdown(${event.brokerId},${event.brokerEpoch})`;
    case 'ApiPartitionReassignment':
      return `ApiPartitionReassignment(HashMap(${event.reassignments.map((r) => `${tpString(r.tp)} -> ${r.replicas === null ? 'None' : `Some(ArrayBuffer(${r.replicas.join(', ')}))`}`).join(', ')}),<function1>)`;
    case 'ListPartitionReassignments':
      return `ListPartitionReassignments(${event.partitions === null ? 'None' : `Some(Set(${event.partitions.map(tpString).join(', ')}))`},<function1>)`;
    case 'ReplicaLeaderElection':
      return event.admin === undefined ? 'ReplicaLeaderElection' : `ReplicaLeaderElection(Some(Set(${event.admin.partitions.map(tpString).join(', ')})),${event.admin.electionType},AdminClientTriggered)`;
    default:
      return event.kind;
  }
}

/**
 * Kafka's ControllerEvent.preempt: an event dropped from the queue (session expiry, resignation, shutdown) still
 * answers whoever waits for it. A ControlledShutdown hears NOT_CONTROLLER (Kafka's ControllerMovedException), so
 * the broker asks the new controller, and so does every partition of an admin-triggered ReplicaLeaderElection;
 * so do the reassignment APIs' events (top-level); the other events have nobody waiting.
 */
export function preempt(event: ControllerEvent): void {
  if (event.kind === 'ControlledShutdown') event.callback({ errorCode: ErrorCode.NOT_CONTROLLER.code, remaining: [] });
  if (event.kind === 'ReplicaLeaderElection' && event.admin !== undefined) failAdminElection(event.admin, ErrorCode.NOT_CONTROLLER.code);
  failAdminRequest(event, ErrorCode.NOT_CONTROLLER.code);
}

/** The reassignment APIs' events answered with one top-level error (not the controller, or the event failed). */
export function failAdminRequest(event: ControllerEvent, errorCode: number): void {
  if (event.kind === 'ApiPartitionReassignment') event.callback({ errorCode, partitions: [] });
  if (event.kind === 'ListPartitionReassignments') event.callback({ errorCode, reassignments: [] });
}
