import { getLogger, Logger } from '../common/logging/logging';
import { SampledRate } from '../common/sampled-rate';
import { Clock } from '../common/time';
import { sanitize } from '../zk/sanitizer';

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
 * A quota entity as Kafka's KafkaQuotaEntity: a user and/or a client id, each a sanitized name or `<default>`;
 * a component left out is not part of the entity (`/config/users/alice` has no client id).
 */
export interface QuotaEntity {
  /** The sanitized user principal name (Kafka's Sanitizer), or `<default>`. */
  readonly user?: string;
  /** The client id (not sanitized: quotas and sensors use the id itself), or `<default>`. */
  readonly clientId?: string;
}

/** The (user, client id) a sensor and its quota are keyed by; '' for a component the quota does not use. */
interface MetricTags {
  readonly user: string;
  readonly clientId: string;
}

function entityKey(user: string | undefined, clientId: string | undefined): string {
  return `${user === undefined ? '\u0001' : user}\u0000${clientId === undefined ? '\u0001' : clientId}`;
}

/**
 * Kafka's ClientQuotaManager with the DefaultQuotaCallback: byte-rate quotas (producer_byte_rate or
 * consumer_byte_rate) set on users, users' client ids and client ids, in ZooKeeper under `/config/users/<user>`,
 * `/config/users/<user>/clients/<client-id>` and `/config/clients/<client-id>`, each with its `<default>`. The
 * most specific entity that has a quota decides, in KIP-55's order:
 *
 *   1. /config/users/<user>/clients/<client-id>   5. /config/users/<default>/clients/<default>
 *   2. /config/users/<user>/clients/<default>     6. /config/users/<default>
 *   3. /config/users/<user>                       7. /config/clients/<client-id>
 *   4. /config/users/<default>/clients/<client-id> 8. /config/clients/<default>
 *
 * and it also decides who shares the rate: a user quota (3, 6) is one rate for all of that user's clients, a
 * client-id quota (7, 8) one per client id whoever the user, the others one per (user, client id). Each
 * request's bytes are recorded in that rate; once it is above its quota the client is throttled for the time
 * that brings it back, X = (O - T) / T * W (observed rate O, target T, window W). The response carries
 * throttle_time_ms and the channel stays muted that long (KIP-219). While no quota exists nothing is measured.
 */
export class ClientQuotaManager {
  /** Overridden quotas by entity key (entityKey), bytes per second. */
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

  /**
   * Sets or (with undefined) removes the quota of an entity, in bytes per second: a client id (or `<default>`)
   * alone as a string, or a user / user and client id as a QuotaEntity.
   */
  updateQuota(entity: string | QuotaEntity, bytesPerSecond: number | undefined): void {
    const e: QuotaEntity = typeof entity === 'string' ? { clientId: entity } : entity;
    const key = entityKey(e.user, e.clientId);
    if (bytesPerSecond === undefined) this.quotas.delete(key);
    else this.quotas.set(key, bytesPerSecond);
    const userInfo = e.user === undefined ? '' : e.user === DEFAULT_ENTITY_NAME ? 'default user ' : `user ${e.user} `;
    const clientInfo = e.clientId === undefined ? '' : e.clientId === DEFAULT_ENTITY_NAME ? 'default client-id' : `client-id ${e.clientId}`;
    const what = `${userInfo}${clientInfo}`.trim();
    if (bytesPerSecond === undefined) this.log.info(`Removing ${this.quotaType} quota for ${what}`);
    else this.log.info(`Changing ${this.quotaType} quota for ${what} to ${bytesPerSecond}`);
  }

  /**
   * DefaultQuotaCallback.quotaMetricTags: which (user, client id) the request's bytes are counted under, from
   * the most specific entity with a quota. `user` is the principal's name (sanitized here, as Kafka).
   */
  private metricTags(userName: string, clientId: string): MetricTags {
    const user = sanitize(userName);
    const has = (u: string | undefined, c: string | undefined): boolean => this.quotas.has(entityKey(u, c));
    const D = DEFAULT_ENTITY_NAME;
    if (has(user, clientId) || has(user, D)) return { user, clientId };
    if (has(user, undefined)) return { user, clientId: '' };
    if (has(D, clientId) || has(D, D)) return { user, clientId };
    if (has(D, undefined)) return { user, clientId: '' };
    return { user: '', clientId };
  }

  /** DefaultQuotaCallback.quotaLimit: the quota of those tags, undefined for none. */
  private quotaLimit(tags: MetricTags): number | undefined {
    const get = (u: string | undefined, c: string | undefined): number | undefined => this.quotas.get(entityKey(u, c));
    const D = DEFAULT_ENTITY_NAME;
    if (tags.user !== '' && tags.clientId !== '') return get(tags.user, tags.clientId) ?? get(tags.user, D) ?? get(D, tags.clientId) ?? get(D, D);
    if (tags.user !== '') return get(tags.user, undefined) ?? get(D, undefined);
    if (tags.clientId !== '') return get(undefined, tags.clientId) ?? get(undefined, D);
    return undefined;
  }

  /** The quota that applies to a client of this user (principal name; '' for none) and client id; undefined for none. */
  quotaFor(clientId: string, userName = ''): number | undefined {
    if (this.quotas.size === 0) return undefined;
    return this.quotaLimit(this.metricTags(userName, clientId));
  }

  /** Records `bytes` for the client at `nowMs` and returns the throttle time it earned (0 within its quota). */
  recordAndGetThrottleTimeMs(clientId: string, bytes: number, nowMs = this.clock.nowMs(), userName = ''): number {
    if (this.quotas.size === 0) return 0;
    const tags = this.metricTags(userName, clientId);
    const quota = this.quotaLimit(tags);
    if (quota === undefined) return 0;
    const sensorName = `${this.quotaType}-${tags.user}:${tags.clientId}`;
    const sensor = this.sensorFor(sensorName, nowMs);
    sensor.rate.record(bytes, nowMs);
    const observed = sensor.rate.rate(nowMs);
    if (observed <= quota) return 0;
    const throttleMs = Math.round(((observed - quota) / quota) * sensor.rate.windowSize(nowMs));
    if (this.log.isDebugEnabled()) this.log.debug(`Quota violated for sensor (${sensorName}). Delay time: (${throttleMs})`);
    return throttleMs;
  }

  /** Takes back bytes that were recorded but not sent (a throttled fetch answers empty: Kafka's unrecord). */
  unrecord(clientId: string, bytes: number, nowMs = this.clock.nowMs(), userName = ''): void {
    if (this.quotas.size === 0) return;
    const tags = this.metricTags(userName, clientId);
    if (this.quotaLimit(tags) === undefined) return;
    this.sensorFor(`${this.quotaType}-${tags.user}:${tags.clientId}`, nowMs).rate.record(-bytes, nowMs);
  }

  /**
   * The most a client may get in one response without being throttled for sure: its quota over the full quota
   * window (Kafka's getMaxValueInQuotaWindow), so that a consumer's fetch size never outgrows its quota.
   */
  maxValueInQuotaWindow(clientId: string, userName = ''): number {
    const quota = this.quotaFor(clientId, userName);
    if (quota === undefined) return Number.MAX_SAFE_INTEGER;
    return quota * (this.config.numQuotaSamples - 1) * this.config.quotaWindowSizeSeconds;
  }

  private sensorFor(name: string, nowMs: number): ClientSensor {
    let sensor = this.sensors.get(name);
    if (sensor === undefined) {
      this.expireInactive(nowMs);
      sensor = { rate: new SampledRate(this.config.numQuotaSamples, this.config.quotaWindowSizeSeconds * 1000), lastRecordMs: nowMs };
      this.sensors.set(name, sensor);
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
