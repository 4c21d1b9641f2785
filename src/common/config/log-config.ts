import {
  allOf,
  atLeast,
  between,
  ConfigException,
  ConfigValue,
  ConfigValues,
  defineKey as k,
  LONG_MAX_TEXT as LONG_MAX,
  matching,
  nonEmptyList,
  oneOf,
  parseKey,
  valueText,
} from './config-def';
import { COMPRESSION } from './kafka-config-defs';
import { KafkaConfig } from './kafka-config';
import { KafkaError } from '../kafka-error';
import { FOLLOWER_THROTTLED_REPLICAS, LEADER_THROTTLED_REPLICAS, throttledReplicaListValidator } from './throttled-replicas';

export type CleanupPolicy = 'delete' | 'compact';

/**
 * Kafka's topic-level keys (kafka.log.LogConfig, 2.8) with Kafka's defaults and rules, in Kafka's order. The
 * one table for topic configuration: the log layer reads the LogConfig built from it, the controller its
 * unclean.leader.election.enable, kafka-topics and CreateTopics check overrides against it.
 */
export const LOG_CONFIG_DEFS = [
  k('segment.bytes', 'int', '1073741824', atLeast(14)),
  k('segment.ms', 'long', '604800000', atLeast(1)),
  k('segment.jitter.ms', 'long', '0', atLeast(0)),
  // Kafka allows 0 here; a segment index needs room for one time-index entry (12 bytes) or every append rolls.
  k('segment.index.bytes', 'int', '10485760', atLeast(12)),
  k('flush.messages', 'long', LONG_MAX, atLeast(0)),
  k('flush.ms', 'long', LONG_MAX, atLeast(0)),
  k('retention.bytes', 'long', '-1'),
  k('retention.ms', 'long', '604800000', atLeast(-1)),
  k('max.message.bytes', 'int', '1048588', atLeast(0)),
  k('index.interval.bytes', 'int', '4096', atLeast(0)),
  k('file.delete.delay.ms', 'long', '60000', atLeast(0)),
  k('delete.retention.ms', 'long', '86400000', atLeast(0)),
  k('min.compaction.lag.ms', 'long', '0', atLeast(0)),
  k('max.compaction.lag.ms', 'long', LONG_MAX, atLeast(1)),
  k('min.cleanable.dirty.ratio', 'double', '0.5', between(0, 1)),
  k('cleanup.policy', 'list', 'delete', allOf(nonEmptyList, oneOf('delete', 'compact'))),
  k('unclean.leader.election.enable', 'boolean', 'false'),
  k('min.insync.replicas', 'int', '1', atLeast(1)),
  k('compression.type', 'string', 'producer', COMPRESSION),
  k('preallocate', 'boolean', 'false'),
  k('message.format.version', 'string', '2.8-IV1', matching(/^\d+\.\d+(\.\d+)?(-IV\d+)?$/, 'Not a valid message format version')),
  k('message.timestamp.type', 'string', 'CreateTime', oneOf('CreateTime', 'LogAppendTime')),
  k('message.timestamp.difference.max.ms', 'long', LONG_MAX, atLeast(0)),
  // KIP-73: the replicas replication throttles apply to, `*` or partition:broker pairs.
  k(LEADER_THROTTLED_REPLICAS, 'list', '', throttledReplicaListValidator(LEADER_THROTTLED_REPLICAS)),
  k(FOLLOWER_THROTTLED_REPLICAS, 'list', '', throttledReplicaListValidator(FOLLOWER_THROTTLED_REPLICAS)),
  k('message.downconversion.enable', 'boolean', 'true'),
] as const;

export type TopicConfigKey = (typeof LOG_CONFIG_DEFS)[number]['name'];
export type TopicConfigValues = ConfigValues<typeof LOG_CONFIG_DEFS>;

/** Topic-key values that stand in for Kafka's defaults: a broker's `log.*` settings (see brokerLogConfigDefaults). */
export type LogConfigDefaults = Partial<TopicConfigValues>;

const TOPIC_KEYS: ReadonlySet<string> = new Set(LOG_CONFIG_DEFS.map((d) => d.name));

export function isTopicConfigKey(name: string): name is TopicConfigKey {
  return TOPIC_KEYS.has(name);
}

/**
 * A log's configuration: Kafka's topic-level keys, immutable. A config change builds a new one and hands it to
 * `Log.updateConfig`. "Never" values that Kafka writes as Long.MAX are Number.MAX_SAFE_INTEGER here.
 */
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
  /** Effective value of every key, as Kafka writes it (defaults merged with overrides), for DescribeConfigs. */
  readonly originals: Readonly<Record<TopicConfigKey, string>>;
  /** The keys that were set as topic overrides. */
  readonly overriddenKeys: readonly TopicConfigKey[];
}

/**
 * The topic-key defaults a broker's configuration gives (Kafka's KafkaServer.copyKafkaConfigToLog): each topic
 * key takes its broker synonym's typed value, with Kafka's precedence where there are several
 * (log.retention.ms > .minutes > .hours, log.roll.ms > .hours, ...).
 */
export function brokerLogConfigDefaults(config: KafkaConfig): LogConfigDefaults {
  return {
    'segment.bytes': config.get('log.segment.bytes'),
    'segment.ms': config.logRollMs,
    'segment.jitter.ms': config.logRollJitterMs,
    'segment.index.bytes': config.get('log.index.size.max.bytes'),
    'flush.messages': config.get('log.flush.interval.messages'),
    'flush.ms': config.logFlushIntervalMs,
    'retention.bytes': config.get('log.retention.bytes'),
    'retention.ms': config.logRetentionMs,
    'max.message.bytes': config.get('message.max.bytes'),
    'index.interval.bytes': config.get('log.index.interval.bytes'),
    'file.delete.delay.ms': config.get('log.segment.delete.delay.ms'),
    'delete.retention.ms': config.get('log.cleaner.delete.retention.ms'),
    'min.compaction.lag.ms': config.get('log.cleaner.min.compaction.lag.ms'),
    'max.compaction.lag.ms': config.get('log.cleaner.max.compaction.lag.ms'),
    'min.cleanable.dirty.ratio': config.get('log.cleaner.min.cleanable.ratio'),
    'cleanup.policy': config.get('log.cleanup.policy'),
    'unclean.leader.election.enable': config.get('unclean.leader.election.enable'),
    'min.insync.replicas': config.get('min.insync.replicas'),
    'compression.type': config.get('compression.type'),
    preallocate: config.get('log.preallocate'),
    'message.format.version': config.get('log.message.format.version'),
    'message.timestamp.type': config.get('log.message.timestamp.type'),
    'message.timestamp.difference.max.ms': config.get('log.message.timestamp.difference.max.ms'),
    'message.downconversion.enable': config.get('log.message.downconversion.enable'),
  };
}

type Overrides = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

function overrideOf(overrides: Overrides, key: string): string | undefined {
  return overrides instanceof Map ? overrides.get(key) : (overrides as Readonly<Record<string, string>>)[key];
}

/**
 * Kafka's LogConfig.fromProps: `defaults` (a broker's, from brokerLogConfigDefaults; Kafka's own where absent)
 * with the topic's `overrides` (from /config/topics/<topic>) on top. Every effective value is checked against the
 * topic key's rule; a bad one throws ConfigException naming the key, the value and the rule. Keys that are not
 * topic keys are ignored here (the caller decides whether to refuse them).
 */
export function createLogConfig(defaults: LogConfigDefaults = {}, overrides: Overrides = {}): LogConfig {
  const values = new Map<TopicConfigKey, ConfigValue>();
  const originals = {} as Record<TopicConfigKey, string>;
  const overriddenKeys: TopicConfigKey[] = [];
  for (const def of LOG_CONFIG_DEFS) {
    const text = overrideOf(overrides, def.name);
    let value: ConfigValue;
    if (text !== undefined) {
      value = parseKey(def, text);
      overriddenKeys.push(def.name);
    } else {
      const inherited = defaults[def.name];
      value = inherited === undefined ? parseKey(def, undefined) : checked(def, inherited);
    }
    values.set(def.name, value);
    originals[def.name] = valueText(def, value) ?? '';
  }
  const v = <K extends TopicConfigKey>(key: K): TopicConfigValues[K] => values.get(key) as TopicConfigValues[K];
  return Object.freeze({
    segmentBytes: v('segment.bytes'),
    segmentMs: v('segment.ms'),
    segmentJitterMs: v('segment.jitter.ms'),
    segmentIndexBytes: v('segment.index.bytes'),
    flushMessages: v('flush.messages'),
    flushMs: v('flush.ms'),
    retentionBytes: v('retention.bytes'),
    retentionMs: v('retention.ms'),
    maxMessageBytes: v('max.message.bytes'),
    indexIntervalBytes: v('index.interval.bytes'),
    fileDeleteDelayMs: v('file.delete.delay.ms'),
    deleteRetentionMs: v('delete.retention.ms'),
    minCompactionLagMs: v('min.compaction.lag.ms'),
    maxCompactionLagMs: v('max.compaction.lag.ms'),
    minCleanableDirtyRatio: v('min.cleanable.dirty.ratio'),
    cleanupPolicy: Object.freeze([...new Set(v('cleanup.policy'))] as CleanupPolicy[]),
    uncleanLeaderElectionEnable: v('unclean.leader.election.enable'),
    minInSyncReplicas: v('min.insync.replicas'),
    compressionType: v('compression.type'),
    preallocate: v('preallocate'),
    messageFormatVersion: v('message.format.version'),
    messageTimestampType: v('message.timestamp.type') as LogConfig['messageTimestampType'],
    messageTimestampDifferenceMaxMs: v('message.timestamp.difference.max.ms'),
    messageDownconversionEnable: v('message.downconversion.enable'),
    originals: Object.freeze(originals),
    overriddenKeys: Object.freeze(overriddenKeys),
  });
}

/** A broker-supplied default still obeys the topic key's rule (Kafka validates the merged properties). */
function checked(def: (typeof LOG_CONFIG_DEFS)[number], value: ConfigValue): ConfigValue {
  const reason = def.validator?.check(value);
  if (reason !== undefined) throw new ConfigException(`Invalid value ${valueText(def, value) ?? 'null'} for configuration ${def.name}: ${reason}`);
  return value;
}

export const DEFAULT_LOG_CONFIG: LogConfig = createLogConfig();

export function isDeletePolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('delete');
}

export function isCompactPolicy(config: LogConfig): boolean {
  return config.cleanupPolicy.includes('compact');
}

/**
 * Kafka's LogConfig.validate on a topic's full override set: every key must be a topic key (INVALID_CONFIG
 * "Unknown topic config name: x"), every value must parse and obey its rule (ConfigException with the key's
 * message, Kafka's defaults filling the rest), and min.compaction.lag.ms must not exceed max.compaction.lag.ms.
 */
export function validateLogConfig(overrides: ReadonlyMap<string, string>): void {
  for (const name of overrides.keys()) {
    if (!isTopicConfigKey(name)) throw new KafkaError('INVALID_CONFIG', `Unknown topic config name: ${name}`);
  }
  const config = createLogConfig({}, overrides);
  if (config.minCompactionLagMs > config.maxCompactionLagMs) {
    throw new KafkaError(
      'INVALID_CONFIG',
      `conflict topic config setting min.compaction.lag.ms (${config.originals['min.compaction.lag.ms']}) > max.compaction.lag.ms (${config.originals['max.compaction.lag.ms']})`,
    );
  }
}
