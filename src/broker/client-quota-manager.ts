import { getLogger, Logger } from '../common/logging/logging';
import { SampledRate } from '../common/sampled-rate';
import { Clock } from '../common/time';

/** The entity name ZooKeeper uses for the defaults of an entity type (`/config/clients/<default>`). */
export const DEFAULT_ENTITY_NAME = '<default>';

export type QuotaType = 'Produce' | 'Fetch';

export interface ClientQuotaManagerConfig {
  /** quota.window.num (Kafka's default 11). */
  readonly numQuotaSamples: number;
  /** quota.window.size.seconds (Kafka's default 1). */
  readonly quotaWindowSizeSeconds: number;
}

interface ClientSensor {
  readonly rate: SampledRate;
  lastRecordMs: number;
}

/** Sensors unused this long are dropped (Kafka's InactiveSensorExpirationTimeSeconds, 1 hour). */
const INACTIVE_SENSOR_EXPIRATION_MS = 3600_000;

/** At most this many client ids are measured at once; a flood of made-up ids evicts the oldest, not the heap. */
const MAX_SENSORS = 100_000;

/**
 * Kafka's ClientQuotaManager for byte-rate quotas by client id (producer_byte_rate or consumer_byte_rate in
 * `/config/clients/<client-id>`, else `/config/clients/<default>`): each request's bytes are recorded in the
 * client's rate; once the rate is above its quota the client is throttled for the time that brings it back to the
 * quota, X = (O - T) / T * W (observed rate O, target T, window W). The response carries throttle_time_ms and the
 * channel stays muted that long (KIP-219). Clients without a quota record nothing.
 */
export class ClientQuotaManager {
  private readonly quotas = new Map<string, number>();
  private readonly sensors = new Map<string, ClientSensor>();
  private readonly log: Logger;

  constructor(
    readonly quotaType: QuotaType,
    private readonly config: ClientQuotaManagerConfig,
    private readonly clock: Clock,
  ) {
    this.log = getLogger('kafka.server.ClientQuotaManager', `[ThrottledChannelReaper-${quotaType}]: `);
  }

  /** Whether any quota was ever set: until then nothing is measured (Kafka's quotasEnabled). */
  get quotasEnabled(): boolean {
    return this.quotas.size > 0;
  }

  /** Sets or (with undefined) removes the quota of a client id or of `<default>`, in bytes per second. */
  updateQuota(clientId: string, bytesPerSecond: number | undefined): void {
    if (bytesPerSecond === undefined) this.quotas.delete(clientId);
    else this.quotas.set(clientId, bytesPerSecond);
    this.log.info(`Changing ${this.quotaType.toLowerCase()} quota of client-id ${clientId} to ${bytesPerSecond ?? 'none'}`);
  }

  /** The client's quota: its own, else the default; undefined for none. */
  quotaFor(clientId: string): number | undefined {
    return this.quotas.get(clientId) ?? this.quotas.get(DEFAULT_ENTITY_NAME);
  }

  /** Records `bytes` for the client at `nowMs` and returns the throttle time it earned (0 within its quota). */
  recordAndGetThrottleTimeMs(clientId: string, bytes: number, nowMs = this.clock.nowMs()): number {
    const quota = this.quotaFor(clientId);
    if (quota === undefined) return 0;
    const sensor = this.sensorFor(clientId, nowMs);
    sensor.rate.record(bytes, nowMs);
    const observed = sensor.rate.rate(nowMs);
    if (observed <= quota) return 0;
    const throttleMs = Math.round(((observed - quota) / quota) * sensor.rate.windowSize(nowMs));
    if (this.log.isDebugEnabled()) this.log.debug(`Quota violated for sensor (${this.quotaType}-${clientId}). Delay time: (${throttleMs})`);
    return throttleMs;
  }

  /** Takes back bytes that were recorded but not sent (a throttled fetch answers empty: Kafka's unrecord). */
  unrecord(clientId: string, bytes: number, nowMs = this.clock.nowMs()): void {
    if (this.quotaFor(clientId) === undefined) return;
    this.sensorFor(clientId, nowMs).rate.record(-bytes, nowMs);
  }

  /**
   * The most a client may get in one response without being throttled for sure: its quota over the full quota
   * window (Kafka's getMaxValueInQuotaWindow), so that a consumer's fetch size never outgrows its quota.
   */
  maxValueInQuotaWindow(clientId: string): number {
    const quota = this.quotaFor(clientId);
    if (quota === undefined) return Number.MAX_SAFE_INTEGER;
    return quota * (this.config.numQuotaSamples - 1) * this.config.quotaWindowSizeSeconds;
  }

  private sensorFor(clientId: string, nowMs: number): ClientSensor {
    let sensor = this.sensors.get(clientId);
    if (sensor === undefined) {
      this.expireInactive(nowMs);
      sensor = { rate: new SampledRate(this.config.numQuotaSamples, this.config.quotaWindowSizeSeconds * 1000), lastRecordMs: nowMs };
      this.sensors.set(clientId, sensor);
      if (this.sensors.size > MAX_SENSORS) this.sensors.delete(this.sensors.keys().next().value as string);
    }
    sensor.lastRecordMs = nowMs;
    return sensor;
  }

  /** Dropped when new sensors are made, so a stream of one-off client ids cannot grow the map without bound. */
  private expireInactive(nowMs: number): void {
    for (const [id, s] of this.sensors) if (nowMs - s.lastRecordMs > INACTIVE_SENSOR_EXPIRATION_MS) this.sensors.delete(id);
  }
}
