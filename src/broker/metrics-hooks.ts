import type { ControllerStatsObserver } from '../controller';
import type { ControllerStats } from '../metrics/controller-stats';
import type { Reservoir } from '../metrics/reservoir';
import type { ZooKeeperClientStats } from '../metrics/zookeeper-client-stats';
import type { ZkClientObserver } from '../zk/zk-client';

// The hooks src/controller, src/log and src/zk offer (they cannot import src/metrics), bound to the stats they
// fill. KafkaServer installs them only when kafka.metrics.port is set; otherwise those parts time nothing.

/** ControllerStats: each event's time under its state's timer, and the unclean elections. */
export function controllerStatsObserver(stats: ControllerStats): ControllerStatsObserver {
  return {
    onEventProcessed: (state, ms) => stats.eventProcessed(state, ms),
    onUncleanLeaderElection: () => stats.uncleanLeaderElections++,
  };
}

/** LogFlushStats' LogFlushRateAndTimeMs: one sample per segment flush. */
export function logFlushTimer(timer: Reservoir): (ms: number) => void {
  return (ms) => timer.update(ms);
}

/** ZooKeeperClientMetrics' request latency and the SessionExpireListener meters. */
export function zooKeeperClientObserver(stats: ZooKeeperClientStats): ZkClientObserver {
  return {
    onRequest: (ms) => stats.requestLatencyMs.update(ms),
    onSessionEvent: (event) => stats.sessionEvent(event),
  };
}
