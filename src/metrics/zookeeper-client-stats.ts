import { Reservoir } from './reservoir';

/**
 * The meters Kafka's ZooKeeperClient marks on session events (kafka.server:type=SessionExpireListener,
 * name=ZooKeeper<event>PerSec), all six registered as Kafka does; this client never sees ReadOnlyConnects or
 * SaslAuthentications (the broker connects read-write with digest credentials), so those stay at 0.
 */
export const ZOOKEEPER_SESSION_EVENTS = ['Disconnects', 'SyncConnects', 'AuthFailures', 'ReadOnlyConnects', 'SaslAuthentications', 'Expires'] as const;

/** ZooKeeperClientMetrics' request latency histogram and the session event counts, as plain numbers. */
export class ZooKeeperClientStats {
  readonly requestLatencyMs = new Reservoir();
  readonly sessionEvents = new Map<string, number>(ZOOKEEPER_SESSION_EVENTS.map((e) => [e, 0]));

  sessionEvent(event: string): void {
    this.sessionEvents.set(event, (this.sessionEvents.get(event) ?? 0) + 1);
  }
}
