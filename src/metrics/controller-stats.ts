import { Reservoir } from './reservoir';

/**
 * Kafka 2.8's ControllerState values, in its order, with the name of the ControllerStats timer each is timed
 * under: `<state>RateAndTimeMs`, except BrokerChange (LeaderElectionRateAndTimeMs, the name it had before
 * ControllerState existed) and AlterPartitionReassignment (PartitionReassignmentRateAndTimeMs); Idle and
 * UpdateMetadataResponseReceived have none. Every timer is exported from the start, as Kafka registers them all.
 */
export const CONTROLLER_STATE_TIMERS: ReadonlyMap<string, string> = new Map(
  [
    'ControllerChange',
    'BrokerChange',
    'TopicChange',
    'TopicDeletion',
    'AlterPartitionReassignment',
    'AutoLeaderBalance',
    'ManualLeaderBalance',
    'ControlledShutdown',
    'IsrChange',
    'LeaderAndIsrResponseReceived',
    'LogDirChange',
    'ControllerShutdown',
    'UncleanLeaderElectionEnable',
    'TopicUncleanLeaderElectionEnable',
    'ListPartitionReassignment',
    'UpdateFeatures',
  ].map((state) => {
    if (state === 'BrokerChange') return [state, 'LeaderElectionRateAndTimeMs'];
    if (state === 'AlterPartitionReassignment') return [state, 'PartitionReassignmentRateAndTimeMs'];
    return [state, `${state}RateAndTimeMs`];
  }),
);

/** Kafka's ControllerStats: one timer per controller state, and the unclean leader election meter's count. */
export class ControllerStats {
  /** By timer name (LeaderElectionRateAndTimeMs, ...). */
  readonly timers = new Map<string, Reservoir>([...CONTROLLER_STATE_TIMERS.values()].map((name) => [name, new Reservoir()]));
  uncleanLeaderElections = 0;

  /** An event of `state` took `ms`; states without a timer (Idle) are not counted, as in Kafka. */
  eventProcessed(state: string, ms: number): void {
    const name = CONTROLLER_STATE_TIMERS.get(state);
    if (name !== undefined) this.timers.get(name)?.update(ms);
  }
}
