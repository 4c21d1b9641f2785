import { getLogger } from '../common/logging/logging';
import { SampledRate } from '../common/sampled-rate';
import { Clock } from '../common/time';
import { TopicPartition } from '../common/topic-partition';
import { ALL_REPLICAS } from '../common/config/throttled-replicas';

/** Kafka's QuotaType for replication: which side of replication a manager throttles. */
export type ReplicationQuotaType = 'LeaderReplication' | 'FollowerReplication' | 'AlterLogDirsReplication';

export interface ReplicationQuotaManagerConfig {
  /** replication.quota.window.num (11). */
  readonly numQuotaSamples: number;
  /** replication.quota.window.size.seconds (1). */
  readonly quotaWindowSizeSeconds: number;
}

/** What the replication paths ask of a quota (Kafka's ReplicaQuota). */
export interface ReplicaQuota {
  readonly isActive: boolean;
  isThrottled(tp: TopicPartition): boolean;
  isQuotaExceeded(): boolean;
  record(bytes: number): void;
}

/**
 * Kafka's ReplicationQuotaManager: one byte rate for a side of replication (leader, follower, log-dir mover),
 * a SimpleRate over `replication.quota.window.num` windows of `replication.quota.window.size.seconds`, and the
 * partitions it applies to (from the topics' `*.replication.throttled.replicas`). The bound is the broker's
 * `*.replication.throttled.rate` (Long.MAX_VALUE, i.e. none, by default). Until a bound is set nothing is measured:
 * `isQuotaExceeded` and `record` are one comparison, so unthrottled replication pays nothing more.
 */
export class ReplicationQuotaManager implements ReplicaQuota {
  private bound: number | undefined;
  private rate: SampledRate | undefined;
  private readonly throttled = new Map<string, readonly number[] | typeof ALL_REPLICAS>();
  private readonly log = getLogger('kafka.server.ReplicationQuotaManager');

  constructor(
    readonly quotaType: ReplicationQuotaType,
    private readonly config: ReplicationQuotaManagerConfig,
    private readonly clock: Clock,
  ) {}

  /** Sets the byte-rate bound, or (undefined, or Long.MAX_VALUE) removes it. */
  updateQuota(bytesPerSecond: number | undefined): void {
    const bound = bytesPerSecond === undefined || bytesPerSecond >= Number.MAX_SAFE_INTEGER ? undefined : bytesPerSecond;
    if (bound === this.bound) return;
    this.log.info(`Changing ${this.quotaType} quota to ${bound ?? 'none'} bytes/s`);
    this.bound = bound;
    // The measurement starts afresh with a bound (Kafka's sensor is re-created with the new quota config).
    this.rate = bound === undefined ? undefined : new SampledRate(this.config.numQuotaSamples, this.config.quotaWindowSizeSeconds * 1000, true);
  }

  /** The bound in bytes per second, Long.MAX_VALUE's stand-in when none (Kafka's upperBound). */
  get upperBound(): number {
    return this.bound ?? Number.MAX_SAFE_INTEGER;
  }

  /** Whether the measured rate is above the bound (Sensor.checkQuotas throwing QuotaViolationException). */
  isQuotaExceeded(nowMs = this.clock.nowMs()): boolean {
    if (this.rate === undefined || this.bound === undefined) return false;
    return this.rate.rate(nowMs) > this.bound;
  }

  /** Counts replicated bytes of throttled partitions. */
  record(bytes: number, nowMs = this.clock.nowMs()): void {
    this.rate?.record(bytes, nowMs);
  }

  /** The measured rate, bytes per second (0 without a bound). */
  measuredRate(nowMs = this.clock.nowMs()): number {
    return this.rate?.rate(nowMs) ?? 0;
  }

  /** Whether the partition's replica here is throttled: its topic is `*` or names its partition. */
  isThrottled(tp: TopicPartition): boolean {
    if (this.throttled.size === 0) return false;
    const partitions = this.throttled.get(tp.topic);
    return partitions !== undefined && (partitions === ALL_REPLICAS || partitions.includes(tp.partition));
  }

  /** Whether any partition at all is throttled. */
  get hasThrottledPartitions(): boolean {
    return this.throttled.size > 0;
  }

  /** A bound and throttled partitions both: only then do the hot paths look at partitions or count bytes. */
  get isActive(): boolean {
    return this.bound !== undefined && this.throttled.size > 0;
  }

  markThrottled(topic: string, partitions: readonly number[] | typeof ALL_REPLICAS): void {
    this.throttled.set(topic, partitions);
  }

  removeThrottle(topic: string): void {
    this.throttled.delete(topic);
  }
}

/** The broker's three replication quotas (Kafka's QuotaManagers.leader, .follower, .alterLogDirs). */
export interface ReplicationQuotaManagers {
  readonly leader: ReplicationQuotaManager;
  readonly follower: ReplicationQuotaManager;
  readonly alterLogDirs: ReplicationQuotaManager;
}

export function createReplicationQuotaManagers(config: ReplicationQuotaManagerConfig, clock: Clock): ReplicationQuotaManagers {
  return {
    leader: new ReplicationQuotaManager('LeaderReplication', config, clock),
    follower: new ReplicationQuotaManager('FollowerReplication', config, clock),
    alterLogDirs: new ReplicationQuotaManager('AlterLogDirsReplication', config, clock),
  };
}
