/**
 * Broker-level settings of the LogManager (not per topic), with Kafka's keys and defaults (KafkaConfig, 2.8).
 * Per-topic settings live in LogConfig.
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
}

const LONG_MAX = Number.MAX_SAFE_INTEGER;

export const DEFAULT_LOG_MANAGER_CONFIG: LogManagerConfig = Object.freeze({
  logDirs: ['/tmp/kafka-logs'],
  retentionCheckIntervalMs: 300000,
  flushCheckIntervalMs: LONG_MAX,
  flushRecoveryOffsetCheckpointIntervalMs: 60000,
  flushStartOffsetCheckpointIntervalMs: 60000,
  highWatermarkCheckpointIntervalMs: 5000,
  initialTaskDelayMs: 30000,
  fileDeleteDelayMs: 60000,
  cleanerEnable: true,
  cleanerBackoffMs: 15000,
});

function num(props: ReadonlyMap<string, string>, key: string, fallback: number, min: number): number {
  const raw = props.get(key);
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new Error(`Invalid value ${raw} for configuration ${key}: Not a number of type LONG`);
  const n = Math.min(Number(raw.trim()), LONG_MAX);
  if (n < min) throw new Error(`Invalid value ${raw} for configuration ${key}: Value must be at least ${min}`);
  return n;
}

/** Reads the LogManager settings from broker properties (server.properties keys). */
export function logManagerConfigFromProps(props: ReadonlyMap<string, string> | Readonly<Record<string, string>>): LogManagerConfig {
  const map: ReadonlyMap<string, string> = props instanceof Map ? props : new Map(Object.entries(props as Record<string, string>));
  const dirs = (map.get('log.dirs') ?? map.get('log.dir') ?? '/tmp/kafka-logs')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d.length > 0);
  if (dirs.length === 0) throw new Error('Invalid value for configuration log.dirs: at least one log directory is required');
  const d = DEFAULT_LOG_MANAGER_CONFIG;
  return Object.freeze({
    logDirs: dirs,
    retentionCheckIntervalMs: num(map, 'log.retention.check.interval.ms', d.retentionCheckIntervalMs, 1),
    flushCheckIntervalMs: num(map, 'log.flush.scheduler.interval.ms', d.flushCheckIntervalMs, 0),
    flushRecoveryOffsetCheckpointIntervalMs: num(map, 'log.flush.offset.checkpoint.interval.ms', d.flushRecoveryOffsetCheckpointIntervalMs, 0),
    flushStartOffsetCheckpointIntervalMs: num(map, 'log.flush.start.offset.checkpoint.interval.ms', d.flushStartOffsetCheckpointIntervalMs, 0),
    highWatermarkCheckpointIntervalMs: num(map, 'replica.high.watermark.checkpoint.interval.ms', d.highWatermarkCheckpointIntervalMs, 0),
    initialTaskDelayMs: d.initialTaskDelayMs,
    fileDeleteDelayMs: num(map, 'log.segment.delete.delay.ms', d.fileDeleteDelayMs, 0),
    cleanerEnable: (map.get('log.cleaner.enable') ?? 'true').trim().toLowerCase() !== 'false',
    cleanerBackoffMs: num(map, 'log.cleaner.backoff.ms', d.cleanerBackoffMs, 0),
  });
}
