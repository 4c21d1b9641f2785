import { KafkaConfig } from '../common/config/kafka-config';

/** Kafka's LogManager.InitialTaskDelayMs: not a configuration key. */
const INITIAL_TASK_DELAY_MS = 30000;

/**
 * Broker-level settings of the LogManager (not per topic), with Kafka's keys and defaults (KafkaConfig, 2.8).
 * Per-topic settings live in LogConfig (src/common/config/log-config.ts).
 */
export interface LogManagerConfig {
  /** log.dirs (or log.dir): absolute or relative paths, comma separated in the properties. */
  readonly logDirs: readonly string[];
  /** log.retention.check.interval.ms */
  readonly retentionCheckIntervalMs: number;
  /** log.flush.scheduler.interval.ms: how often to look for logs whose flush.ms elapsed. */
  readonly flushCheckIntervalMs: number;
  /** log.flush.offset.checkpoint.interval.ms */
  readonly flushRecoveryOffsetCheckpointIntervalMs: number;
  /** log.flush.start.offset.checkpoint.interval.ms */
  readonly flushStartOffsetCheckpointIntervalMs: number;
  /** replica.high.watermark.checkpoint.interval.ms (the broker's ReplicaManager may take this over). */
  readonly highWatermarkCheckpointIntervalMs: number;
  /** Delay before the first run of each periodic task (Kafka's LogManager.InitialTaskDelayMs). */
  readonly initialTaskDelayMs: number;
  /** log.segment.delete.delay.ms: also used for whole `-delete` partition directories. */
  readonly fileDeleteDelayMs: number;
  /** log.cleaner.enable: compact cleanup.policy=compact logs. */
  readonly cleanerEnable: boolean;
  /** log.cleaner.backoff.ms: how often the cleaner looks for a log to clean. */
  readonly cleanerBackoffMs: number;
  /** transactional.id.expiration.ms: Kafka 2.8 expires idle producers' state in each log after it. */
  readonly producerIdExpirationMs?: number;
}

const d = KafkaConfig.defaultOf;

/** Kafka's defaults (the broker key table's), for tests and tools that run a LogManager without a broker. */
export const DEFAULT_LOG_MANAGER_CONFIG: LogManagerConfig = Object.freeze({
  logDirs: [d('log.dir')],
  retentionCheckIntervalMs: d('log.retention.check.interval.ms'),
  flushCheckIntervalMs: d('log.flush.scheduler.interval.ms'),
  flushRecoveryOffsetCheckpointIntervalMs: d('log.flush.offset.checkpoint.interval.ms'),
  flushStartOffsetCheckpointIntervalMs: d('log.flush.start.offset.checkpoint.interval.ms'),
  highWatermarkCheckpointIntervalMs: d('replica.high.watermark.checkpoint.interval.ms'),
  initialTaskDelayMs: INITIAL_TASK_DELAY_MS,
  fileDeleteDelayMs: d('log.segment.delete.delay.ms'),
  cleanerEnable: d('log.cleaner.enable'),
  cleanerBackoffMs: d('log.cleaner.backoff.ms'),
  producerIdExpirationMs: d('transactional.id.expiration.ms'),
});

/** The LogManager settings of a broker's configuration (Kafka's LogManager.apply reads the same KafkaConfig values). */
export function logManagerConfigFrom(config: KafkaConfig): LogManagerConfig {
  return Object.freeze({
    logDirs: config.logDirs,
    retentionCheckIntervalMs: config.get('log.retention.check.interval.ms'),
    flushCheckIntervalMs: config.get('log.flush.scheduler.interval.ms'),
    flushRecoveryOffsetCheckpointIntervalMs: config.get('log.flush.offset.checkpoint.interval.ms'),
    flushStartOffsetCheckpointIntervalMs: config.get('log.flush.start.offset.checkpoint.interval.ms'),
    highWatermarkCheckpointIntervalMs: config.get('replica.high.watermark.checkpoint.interval.ms'),
    initialTaskDelayMs: INITIAL_TASK_DELAY_MS,
    fileDeleteDelayMs: config.get('log.segment.delete.delay.ms'),
    cleanerEnable: config.get('log.cleaner.enable'),
    cleanerBackoffMs: config.get('log.cleaner.backoff.ms'),
    producerIdExpirationMs: config.get('transactional.id.expiration.ms'),
  });
}
