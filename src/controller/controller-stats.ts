import { ControllerState } from './controller-events';

/**
 * What the controller reports for Kafka's ControllerStats (kafka.controller:type=ControllerStats): how long each
 * event took, by the ControllerState it ran in, and each unclean leader election. The broker installs one only
 * when kafka.metrics.port is set; without it nothing is timed.
 */
export interface ControllerStatsObserver {
  /** An event ran to its end (or failed) after `ms` milliseconds, in `state`. */
  onEventProcessed(state: ControllerState, ms: number): void;
  /** A partition got a leader from outside its ISR (UncleanLeaderElectionsPerSec). */
  onUncleanLeaderElection(): void;
}
