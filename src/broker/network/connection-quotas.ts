import { getLogger } from '../../common/logging/logging';
import { SampledRate } from '../../common/sampled-rate';
import { Clock } from '../../common/time';

/** DynamicConfig.Ip.DefaultConnectionCreationRate: no quota. */
export const NO_IP_CONNECTION_RATE_QUOTA = 2147483647;

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
  /**
   * `listener.name.<l>.max.connections` / `.max.connection.creation.rate` by listener name (Kafka's
   * ListenerConnectionQuota, KIP-402/612): a listener's own limits, on top of the broker-wide ones, applied to
   * every listener, the inter-broker one too.
   */
  readonly listenerLimits?: ReadonlyMap<string, ListenerLimits>;
  /** quota.window.num and quota.window.size.seconds: the windows an ip's connection_creation_rate is measured over. */
  readonly quotaWindow?: { readonly numQuotaSamples: number; readonly quotaWindowSizeSeconds: number };
}

/** One listener's own connection limits (absent: only the broker-wide ones apply). */
export interface ListenerLimits {
  readonly maxConnections?: number;
  readonly maxConnectionCreationRate?: number;
}

/** A sliding second of accept times, oldest first: whether one more fits `rate`, and recording it. */
class CreationWindow {
  private readonly recent: number[] = [];

  full(now: number, rate: number): boolean {
    while (this.recent.length > 0 && (this.recent[0] as number) <= now - 1000) this.recent.shift();
    return this.recent.length >= rate;
  }

  record(now: number, rate: number): void {
    // The window only needs to remember as many accepts as the rate allows.
    if (rate < 2147483647) this.recent.push(now);
  }
}

/** Why a new connection was refused. */
export type ConnectionRefusal =
  | { readonly reason: 'per-ip'; readonly limit: number }
  | { readonly reason: 'broker'; readonly limit: number }
  | { readonly reason: 'rate'; readonly limit: number }
  | { readonly reason: 'listener'; readonly listener: string; readonly limit: number }
  | { readonly reason: 'listener-rate'; readonly listener: string; readonly limit: number }
  /** Over the ip's connection_creation_rate (KIP-612): Kafka holds the socket unread this long, then closes it. */
  | { readonly reason: 'ip-rate'; readonly limit: number; readonly throttleMs: number };

/**
 * Kafka's ConnectionQuotas: counts of open connections per client address and over the broker, and the rate of
 * new ones. A connection that would break a limit is refused at accept. The creation rate is measured over a
 * sliding second (Kafka's connection-creation-rate sensor, reduced to the one window that decides). The
 * connection_creation_rate quotas of ips (`/config/ips/<ip>` and `/config/ips/<default>`, KIP-612) are measured
 * as Kafka's per-ip sensors over the client quota windows; a connection over its ip's quota is not counted and
 * its socket is closed after the throttle time.
 */
export class ConnectionQuotas {
  private readonly logger = getLogger('kafka.network.ConnectionQuotas');
  private readonly perIp = new Map<string, number>();
  /** connection_creation_rate overrides by ip address. */
  private readonly ipRates = new Map<string, number>();
  private defaultIpRate = NO_IP_CONNECTION_RATE_QUOTA;
  private readonly ipSensors = new Map<string, SampledRate>();
  private total = 0;
  private readonly perListener = new Map<string, number>();
  private readonly brokerWindow = new CreationWindow();
  private readonly listenerWindows = new Map<string, CreationWindow>();

  constructor(
    private config: ConnectionQuotaConfig,
    private readonly clock: Clock,
  ) {}

  /**
   * Dynamic max.connections / max.connections.per.ip / overrides / max.connection.creation.rate and the
   * listeners' own limits (Kafka's updateMaxConnectionsPerIp, updateBrokerMaxConnectionRate and the
   * ListenerConnectionQuota reconfigure): new connections are judged on the new limits; open ones are kept,
   * even above them.
   */
  updateLimits(limits: Partial<Pick<ConnectionQuotaConfig, 'maxConnections' | 'maxConnectionsPerIp' | 'maxConnectionsPerIpOverrides' | 'maxConnectionCreationRate' | 'listenerLimits'>>): void {
    this.config = { ...this.config, ...limits };
  }

  /**
   * ConnectionQuotas.updateIpConnectionRateQuota: an ip's connection_creation_rate (undefined removes it), or with
   * `ip` undefined the default of every ip without its own. Sensors restart with the new quota.
   */
  updateIpConnectionRateQuota(ip: string | undefined, rate: number | undefined): void {
    if (ip === undefined) {
      this.defaultIpRate = rate ?? NO_IP_CONNECTION_RATE_QUOTA;
      this.logger.info(`Updating default connection rate quota to ${this.defaultIpRate}`);
      this.ipSensors.clear();
      return;
    }
    if (rate === undefined) {
      this.logger.info(`Removing max connection rate override for /${ip}`);
      this.ipRates.delete(ip);
    } else {
      this.logger.info(`Updating max connection rate override for /${ip} to ${rate}`);
      this.ipRates.set(ip, rate);
    }
    this.ipSensors.delete(ip);
  }

  /** The connection_creation_rate that applies to `ip` (NO_IP_CONNECTION_RATE_QUOTA for none). */
  connectionRateForIp(ip: string): number {
    return this.ipRates.get(ip) ?? this.defaultIpRate;
  }

  /** recordIpConnectionMaybeThrottle: the throttle time this new connection earns, 0 within the quota (then recorded). */
  private ipThrottleMs(ip: string): number {
    const quota = this.connectionRateForIp(ip);
    if (quota === NO_IP_CONNECTION_RATE_QUOTA) return 0;
    const now = this.clock.nowMs();
    let sensor = this.ipSensors.get(ip);
    if (sensor === undefined) {
      const w = this.config.quotaWindow ?? { numQuotaSamples: 11, quotaWindowSizeSeconds: 1 };
      sensor = new SampledRate(w.numQuotaSamples, w.quotaWindowSizeSeconds * 1000);
      this.ipSensors.set(ip, sensor);
    }
    sensor.record(1, now);
    const observed = sensor.rate(now);
    if (observed <= quota) return 0;
    // Kafka unrecords the refused connection: only accepted connections count towards the rate.
    sensor.record(-1, now);
    return Math.max(1, Math.round(((observed - quota) / quota) * sensor.windowSize(now)));
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
    const throttleMs = this.ipThrottleMs(ip);
    if (throttleMs > 0) return { reason: 'ip-rate', limit: this.connectionRateForIp(ip), throttleMs };
    const now = this.clock.nowMs();
    const own = this.config.listenerLimits?.get(listener);
    const ownMax = own?.maxConnections ?? Number.MAX_SAFE_INTEGER;
    if ((this.perListener.get(listener) ?? 0) >= ownMax) return { reason: 'listener', listener, limit: ownMax };
    const ownRate = own?.maxConnectionCreationRate ?? 2147483647;
    let window = this.listenerWindows.get(listener);
    if (window === undefined) {
      window = new CreationWindow();
      this.listenerWindows.set(listener, window);
    }
    if (window.full(now, ownRate)) return { reason: 'listener-rate', listener, limit: ownRate };
    if (listener !== this.config.protectedListener) {
      if (this.total >= this.config.maxConnections) return { reason: 'broker', limit: this.config.maxConnections };
      if (this.brokerWindow.full(now, this.config.maxConnectionCreationRate)) return { reason: 'rate', limit: this.config.maxConnectionCreationRate };
      this.brokerWindow.record(now, this.config.maxConnectionCreationRate);
    }
    window.record(now, ownRate);
    this.perIp.set(ip, this.count(ip) + 1);
    this.perListener.set(listener, (this.perListener.get(listener) ?? 0) + 1);
    this.total++;
    return undefined;
  }

  /** Open connections of a listener. */
  listenerCount(listener: string): number {
    return this.perListener.get(listener) ?? 0;
  }

  /** A counted connection (of `listener`) closed. */
  release(ip: string, listener?: string): void {
    const n = this.count(ip) - 1;
    if (n <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, n);
    if (listener !== undefined) {
      const l = (this.perListener.get(listener) ?? 0) - 1;
      if (l <= 0) this.perListener.delete(listener);
      else this.perListener.set(listener, l);
    }
    this.total = Math.max(0, this.total - 1);
  }
}
