import { compressionTypeForConfig } from '../records/compression-type';

/**
 * A log's configuration: Kafka's topic-level keys (kafka.log.LogConfig, 2.8) with Kafka's defaults. Broker-wide
 * `log.*` settings supply the defaults of a broker (`brokerLogConfigDefaults`), topic overrides from
 * /config/topics/<topic> go on top (`createLogConfig`). A LogConfig is immutable: a config change builds a new
 * one and hands it to `Log.updateConfig`. "Never" values that Kafka writes as Long.MAX become
 * Number.MAX_SAFE_INTEGER here; `originals` keeps the effective values as strings (for DescribeConfigs).
 */
export type CleanupPolicy = 'delete' | 'compact';

export interface LogConfig {
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly segmentJitterMs: number;
  readonly segmentIndexBytes: number;
  readonly flushMessages: number;
  readonly flushMs: number;
  readonly retentionBytes: number;
  readonly retentionMs: number;
  readonly maxMessageBytes: number;
  readonly indexIntervalBytes: number;
  readonly fileDeleteDelayMs: number;
  readonly deleteRetentionMs: number;
  readonly minCompactionLagMs: number;
  readonly maxCompactionLagMs: number;
  readonly minCleanableDirtyRatio: number;
  readonly cleanupPolicy: readonly CleanupPolicy[];
  readonly uncleanLeaderElectionEnable: boolean;
  readonly minInSyncReplicas: number;
  readonly compressionType: string;
  readonly preallocate: boolean;
  readonly messageFormatVersion: string;
  readonly messageTimestampType: 'CreateTime' | 'LogAppendTime';
  readonly messageTimestampDifferenceMaxMs: number;
  readonly messageDownconversionEnable: boolean;
  /** Effective value of every key, as strings (defaults merged with overrides). */
  readonly originals: Readonly<Record<string, string>>;
  /** The keys that were set as topic overrides. */
  readonly overriddenKeys: readonly string[];
}

const LONG_MAX = '9223372036854775807';

type Parser = (key: string, value: string) => unknown;

interface KeyDef {
  readonly field: keyof Omit<LogConfig, 'originals' | 'overriddenKeys'>;
  readonly defaultValue: string;
  readonly parse: Parser;
}

function fail(key: string, value: string, rule: string): never {
  throw new Error(`Invalid value ${value} for configuration ${key}: ${rule}`);
}

function longAtLeast(min: number): Parser {
  return (key, value) => {
    if (!/^-?\d+$/.test(value.trim())) fail(key, value, 'Not a number of type LONG');
    const n = Math.min(Number(value.trim()), Number.MAX_SAFE_INTEGER);
    if (n < min) fail(key, value, `Value must be at least ${min}`);
    return n;
  };
}

function intAtLeast(min: number): Parser {
  return (key, value) => {
    const n = longAtLeast(min)(key, value) as number;
    if (n > 2147483647) fail(key, value, 'Not a number of type INT');
    return n;
  };
}

function doubleBetween(min: number, max: number): Parser {
  return (key, value) => {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isFinite(n)) fail(key, value, 'Not a number of type DOUBLE');
    if (n < min || n > max) fail(key, value, `Value must be in [${min},...,${max}]`);
    return n;
  };
}

function bool(key: string, value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'true') return true;
  if (v === 'false') return false;
  return fail(key, value, 'Expected value to be either true or false');
}

function oneOf(...allowed: string[]): Parser {
  return (key, value) => {
    const v = value.trim();
    if (!allowed.includes(v)) fail(key, value, `String must be one of: ${allowed.join(', ')}`);
    return v;
  };
}

function cleanupPolicy(key: string, value: string): CleanupPolicy[] {
  const items = value.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (items.length === 0) fail(key, value, 'Must contain at least one of: [delete, compact]');
  for (const item of items) if (item !== 'delete' && item !== 'compact') fail(key, value, 'Invalid value; allowed: [delete, compact]');
  return [...new Set(items)] as CleanupPolicy[];
}

function compressionType(key: string, value: string): string {
  const v = value.trim();
  if (v !== 'producer' && compressionTypeForConfig(v) === undefined) {
    fail(key, value, 'String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer');
  }
  return v;
}

function messageFormatVersion(key: string, value: string): string {
  if (!/^\d+\.\d+(\.\d+)?(-IV\d+)?$/.test(value.trim())) fail(key, value, 'Not a valid message format version');
  return value.trim();
}

/** Topic-level keys, Kafka's defaults, and their validation rules. */
export const LOG_CONFIG_KEYS: Readonly<Record<string, KeyDef>> = {
  'segment.bytes': { field: 'segmentBytes', defaultValue: '1073741824', parse: intAtLeast(14) },
  'segment.ms': { field: 'segmentMs', defaultValue: '604800000', parse: longAtLeast(1) },
  'segment.jitter.ms': { field: 'segmentJitterMs', defaultValue: '0', parse: longAtLeast(0) },
  // Kafka allows 0 here; a segment index needs room for one time-index entry (12 bytes) or every append rolls.
  'segment.index.bytes': { field: 'segmentIndexBytes', defaultValue: '10485760', parse: intAtLeast(12) },
  'flush.messages': { field: 'flushMessages', defaultValue: LONG_MAX, parse: longAtLeast(0) },
  'flush.ms': { field: 'flushMs', defaultValue: LONG_MAX, parse: longAtLeast(0) },
  'retention.bytes': { field: 'retentionBytes', defaultValue: '-1', parse: longAtLeast(Number.MIN_SAFE_INTEGER) },
  'retention.ms': { field: 'retentionMs', defaultValue: '604800000', parse: longAtLeast(-1) },
  'max.message.bytes': { field: 'maxMessageBytes', defaultValue: '1048588', parse: intAtLeast(0) },
  'index.interval.bytes': { field: 'indexIntervalBytes', defaultValue: '4096', parse: intAtLeast(0) },
  'file.delete.delay.ms': { field: 'fileDeleteDelayMs', defaultValue: '60000', parse: longAtLeast(0) },
  'delete.retention.ms': { field: 'deleteRetentionMs', defaultValue: '86400000', parse: longAtLeast(0) },
  'min.compaction.lag.ms': { field: 'minCompactionLagMs', defaultValue: '0', parse: longAtLeast(0) },
  'max.compaction.lag.ms': { field: 'maxCompactionLagMs', defaultValue: LONG_MAX, parse: longAtLeast(1) },
  'min.cleanable.dirty.ratio': { field: 'minCleanableDirtyRatio', defaultValue: '0.5', parse: doubleBetween(0, 1) },
  'cleanup.policy': { field: 'cleanupPolicy', defaultValue: 'delete', parse: cleanupPolicy },
  'unclean.leader.election.enable': { field: 'uncleanLeaderElectionEnable', defaultValue: 'false', parse: bool },
  'min.insync.replicas': { field: 'minInSyncReplicas', defaultValue: '1', parse: intAtLeast(1) },
  'compression.type': { field: 'compressionType', defaultValue: 'producer', parse: compressionType },
  preallocate: { field: 'preallocate', defaultValue: 'false', parse: bool },
  'message.format.version': { field: 'messageFormatVersion', defaultValue: '2.8-IV1', parse: messageFormatVersion },
  'message.timestamp.type': { field: 'messageTimestampType', defaultValue: 'CreateTime', parse: oneOf('CreateTime', 'LogAppendTime') },
  'message.timestamp.difference.max.ms': { field: 'messageTimestampDifferenceMaxMs', defaultValue: LONG_MAX, parse: longAtLeast(0) },
  'message.downconversion.enable': { field: 'messageDownconversionEnable', defaultValue: 'true', parse: bool },
};

/**
 * The broker setting behind each topic key (Kafka's LogConfig.TopicConfigSynonyms); a list gives precedence,
 * with a multiplier to milliseconds (log.retention.ms > log.retention.minutes > log.retention.hours).
 */
const BROKER_SYNONYMS: Readonly<Record<string, ReadonlyArray<readonly [string, number]>>> = {
  'segment.bytes': [['log.segment.bytes', 1]],
  'segment.ms': [['log.roll.ms', 1], ['log.roll.hours', 3600000]],
  'segment.jitter.ms': [['log.roll.jitter.ms', 1], ['log.roll.jitter.hours', 3600000]],
  'segment.index.bytes': [['log.index.size.max.bytes', 1]],
  'flush.messages': [['log.flush.interval.messages', 1]],
  'flush.ms': [['log.flush.interval.ms', 1], ['log.flush.scheduler.interval.ms', 1]],
  'retention.bytes': [['log.retention.bytes', 1]],
  'retention.ms': [['log.retention.ms', 1], ['log.retention.minutes', 60000], ['log.retention.hours', 3600000]],
  'max.message.bytes': [['message.max.bytes', 1]],
  'index.interval.bytes': [['log.index.interval.bytes', 1]],
  'file.delete.delay.ms': [['log.segment.delete.delay.ms', 1]],
  'delete.retention.ms': [['log.cleaner.delete.retention.ms', 1]],
  'min.compaction.lag.ms': [['log.cleaner.min.compaction.lag.ms', 1]],
  'max.compaction.lag.ms': [['log.cleaner.max.compaction.lag.ms', 1]],
  'min.cleanable.dirty.ratio': [['log.cleaner.min.cleanable.ratio', 1]],
  'cleanup.policy': [['log.cleanup.policy', 1]],
  'unclean.leader.election.enable': [['unclean.leader.election.enable', 1]],
  'min.insync.replicas': [['min.insync.replicas', 1]],
  'compression.type': [['compression.type', 1]],
  preallocate: [['log.preallocate', 1]],
  'message.format.version': [['log.message.format.version', 1]],
  'message.timestamp.type': [['log.message.timestamp.type', 1]],
  'message.timestamp.difference.max.ms': [['log.message.timestamp.difference.max.ms', 1]],
  'message.downconversion.enable': [['log.message.downconversion.enable', 1]],
};

function lookup(props: ReadonlyMap<string, string> | Readonly<Record<string, string>>, key: string): string | undefined {
  return props instanceof Map ? props.get(key) : (props as Record<string, string>)[key];
}

/**
 * Topic-key defaults taken from broker properties (server.properties keys such as log.retention.hours), for
 * passing to `createLogConfig`. Keys the broker does not set keep Kafka's defaults.
 */
export function brokerLogConfigDefaults(brokerProps: ReadonlyMap<string, string> | Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [topicKey, synonyms] of Object.entries(BROKER_SYNONYMS)) {
    for (const [brokerKey, multiplier] of synonyms) {
      const raw = lookup(brokerProps, brokerKey);
      if (raw === undefined || raw.trim() === '') continue;
      if (multiplier === 1) out[topicKey] = raw.trim();
      else {
        const n = longAtLeast(Number.MIN_SAFE_INTEGER)(brokerKey, raw) as number;
        out[topicKey] = String(n < 0 ? n : n * multiplier);
      }
      break;
    }
  }
  return out;
}

/**
 * Builds a LogConfig from `defaults` (typically `brokerLogConfigDefaults(serverProps)`) and topic `overrides`.
 * Unknown keys are ignored (the topic-config layer decides whether to reject them); a bad value throws an Error
 * naming the key, the value and the rule.
 */
export function createLogConfig(
  defaults: Readonly<Record<string, string>> = {},
  overrides: Readonly<Record<string, string>> = {},
): LogConfig {
  const originals: Record<string, string> = {};
  const fields: Record<string, unknown> = {};
  const overriddenKeys: string[] = [];
  for (const [key, def] of Object.entries(LOG_CONFIG_KEYS)) {
    let value = def.defaultValue;
    if (defaults[key] !== undefined) value = defaults[key] as string;
    if (overrides[key] !== undefined) {
      value = overrides[key] as string;
      overriddenKeys.push(key);
    }
    fields[def.field] = def.parse(key, value);
    originals[key] = value;
  }
  const config = { ...fields, originals: Object.freeze(originals), overriddenKeys: Object.freeze(overriddenKeys) } as unknown as LogConfig;
  if (config.segmentBytes < 14) fail('segment.bytes', String(config.segmentBytes), 'Value must be at least 14');
  return Object.freeze(config);
}

export const DEFAULT_LOG_CONFIG: LogConfig = createLogConfig();

export function isDeletePolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('delete');
}

export function isCompactPolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('compact');
}
