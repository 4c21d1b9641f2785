import { Clock } from '../../common/time';

export interface ConnectionQuotaConfig {
  /** max.connections: connections of the whole broker. */
  readonly maxConnections: number;
  /** max.connections.per.ip. */
  readonly maxConnectionsPerIp: number;
  /** max.connections.per.ip.overrides, resolved to addresses. */
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** max.connection.creation.rate: new connections per second, over the broker. */
  readonly maxConnectionCreationRate: number;
  /**
   * The inter-broker listener when the broker has several listeners (Kafka's protectedListener, KIP-402/612):
   * the broker-wide limits do not apply to it, so that clients cannot lock the brokers out of each other.
   */
  readonly protectedListener?: string;
}

/** Why a new connection was refused. */
export type ConnectionRefusal =
  | { readonly reason: 'per-ip'; readonly limit: number }
  | { readonly reason: 'broker'; readonly limit: number }
  | { readonly reason: 'rate'; readonly limit: number };

/**
 * Kafka's ConnectionQuotas: counts of open connections per client address and over the broker, and the rate of
 * new ones. A connection that would break a limit is refused at accept. The creation rate is measured over a
 * sliding second (Kafka's connection-creation-rate sensor, reduced to the one window that decides).
 */
export class ConnectionQuotas {
  private readonly perIp = new Map<string, number>();
  private total = 0;
  /** Accept times of the last second, oldest first. */
  private readonly recent: number[] = [];

  constructor(
    private config: ConnectionQuotaConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Dynamic max.connections / max.connections.per.ip / overrides (Kafka's updateMaxConnectionsPerIp and friends):
   * new connections are judged on the new limits; open ones are kept, even above them.
   */
  updateLimits(limits: Pick<ConnectionQuotaConfig, 'maxConnections' | 'maxConnectionsPerIp' | 'maxConnectionsPerIpOverrides'>): void {
    this.config = { ...this.config, ...limits };
  }

  get connectionCount(): number {
    return this.total;
  }

  count(ip: string): number {
    return this.perIp.get(ip) ?? 0;
  }

  /** Counts a new connection from `ip` on `listener`, or says which limit refuses it (and counts nothing). */
  tryAccept(ip: string, listener: string): ConnectionRefusal | undefined {
    const limit = this.config.maxConnectionsPerIpOverrides.get(ip) ?? this.config.maxConnectionsPerIp;
    if (this.count(ip) >= limit) return { reason: 'per-ip', limit };
    if (listener !== this.config.protectedListener) {
      if (this.total >= this.config.maxConnections) return { reason: 'broker', limit: this.config.maxConnections };
      const now = this.clock.nowMs();
      while (this.recent.length > 0 && (this.recent[0] as number) <= now - 1000) this.recent.shift();
      if (this.recent.length >= this.config.maxConnectionCreationRate) return { reason: 'rate', limit: this.config.maxConnectionCreationRate };
      // The window only needs to remember as many accepts as the rate allows.
      if (this.config.maxConnectionCreationRate < 2147483647) this.recent.push(now);
    }
    this.perIp.set(ip, this.count(ip) + 1);
    this.total++;
    return undefined;
  }

  /** A counted connection closed. */
  release(ip: string): void {
    const n = this.count(ip) - 1;
    if (n <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, n);
    this.total = Math.max(0, this.total - 1);
  }
}
