import { atLeast, ConfigException, ConfigKey, defineKey, LONG_MAX, LONG_MAX_TEXT, parseKey } from './config-def';
import { KafkaConfig } from './kafka-config';
import { KAFKA_CONFIG_DEFS } from './kafka-config-defs';
import { brokerLogConfigDefaults, createLogConfig, LogConfigDefaults, TopicConfigKey } from './log-config';
import { KafkaError } from '../kafka-error';
import { getLogger } from '../logging/logging';
import { PasswordEncoder } from './password-encoder';
import { isDynamicListenerSaslKey, LISTENER_CONNECTION_QUOTA_CONFIGS, listenerPrefixedKey, RELOADABLE_SSL_CONFIGS } from './listener-reconfigurable-configs';
import { listenersChanged, validateListenerReconfiguration } from './dynamic-listener-config';

export { isDynamicListenerSaslKey, LISTENER_CONNECTION_QUOTA_CONFIGS, listenerPrefixedKey, RELOADABLE_SSL_CONFIGS };

const DEFS = new Map<string, ConfigKey>(KAFKA_CONFIG_DEFS.map((d) => [d.name, d]));

/** LogConfig.TopicConfigSynonyms (2.8): each topic key's broker-level synonym (the throttled-replica lists have none). */
export const TOPIC_CONFIG_SYNONYMS: Readonly<Partial<Record<TopicConfigKey, string>>> = {
  'segment.bytes': 'log.segment.bytes',
  'segment.ms': 'log.roll.ms',
  'segment.jitter.ms': 'log.roll.jitter.ms',
  'segment.index.bytes': 'log.index.size.max.bytes',
  'flush.messages': 'log.flush.interval.messages',
  'flush.ms': 'log.flush.interval.ms',
  'retention.bytes': 'log.retention.bytes',
  'retention.ms': 'log.retention.ms',
  'max.message.bytes': 'message.max.bytes',
  'index.interval.bytes': 'log.index.interval.bytes',
  'file.delete.delay.ms': 'log.segment.delete.delay.ms',
  'delete.retention.ms': 'log.cleaner.delete.retention.ms',
  'min.compaction.lag.ms': 'log.cleaner.min.compaction.lag.ms',
  'max.compaction.lag.ms': 'log.cleaner.max.compaction.lag.ms',
  'min.cleanable.dirty.ratio': 'log.cleaner.min.cleanable.ratio',
  'cleanup.policy': 'log.cleanup.policy',
  'unclean.leader.election.enable': 'unclean.leader.election.enable',
  'min.insync.replicas': 'min.insync.replicas',
  'compression.type': 'compression.type',
  preallocate: 'log.preallocate',
  'message.format.version': 'log.message.format.version',
  'message.timestamp.type': 'log.message.timestamp.type',
  'message.timestamp.difference.max.ms': 'log.message.timestamp.difference.max.ms',
  'message.downconversion.enable': 'log.message.downconversion.enable',
};

/** DynamicLogConfig.ReconfigurableConfigs: every topic synonym but log.message.format.version. */
const DYNAMIC_LOG_CONFIGS = Object.values(TOPIC_CONFIG_SYNONYMS).filter((k): k is string => k !== undefined && k !== 'log.message.format.version');
/** SslConfigs.RECONFIGURABLE_CONFIGS (DynamicBrokerConfig.DynamicSecurityConfigs). */
const DYNAMIC_SECURITY_CONFIGS = [
  'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type',
  'ssl.truststore.location', 'ssl.truststore.password', 'ssl.keystore.key', 'ssl.keystore.certificate.chain', 'ssl.truststore.certificates',
];
/** DynamicListenerConfig.ReconfigurableConfigs (listeners, their SSL and SASL settings, connection limits). */
const DYNAMIC_LISTENER_CONFIGS = [
  'advertised.listeners', 'listeners', 'listener.security.protocol.map', 'principal.builder.class', 'ssl.protocol', 'ssl.provider',
  'ssl.cipher.suites', 'ssl.enabled.protocols', 'ssl.keymanager.algorithm', 'ssl.trustmanager.algorithm', 'ssl.endpoint.identification.algorithm',
  'ssl.secure.random.implementation', 'ssl.client.auth', 'ssl.engine.factory.class', 'sasl.mechanism.inter.broker.protocol', 'sasl.jaas.config',
  'sasl.enabled.mechanisms', 'sasl.kerberos.service.name', 'sasl.kerberos.kinit.cmd', 'sasl.kerberos.ticket.renew.window.factor',
  'sasl.kerberos.ticket.renew.jitter', 'sasl.kerberos.min.time.before.relogin', 'sasl.kerberos.principal.to.local.rules',
  'sasl.login.refresh.window.factor', 'sasl.login.refresh.window.jitter', 'sasl.login.refresh.min.period.seconds',
  'sasl.login.refresh.buffer.seconds', 'max.connections', 'max.connection.creation.rate',
];
/** DynamicThreadPool.ReconfigurableConfigs, with SocketServer's num.network.threads (validated the same way). */
export const THREAD_POOL_CONFIGS = ['num.io.threads', 'num.network.threads', 'num.replica.fetchers', 'num.recovery.threads.per.data.dir', 'background.threads'] as const;
/** LogCleaner.ReconfigurableConfigs. */
export const LOG_CLEANER_CONFIGS = [
  'log.cleaner.threads', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.load.factor', 'log.cleaner.io.buffer.size',
  'log.cleaner.io.max.bytes.per.second', 'log.cleaner.backoff.ms',
] as const;
/** The socket server's connection limits (SocketServer / DynamicConnectionQuota reconfigurable configs). */
export const CONNECTION_QUOTA_CONFIGS = ['max.connections', 'max.connections.per.ip', 'max.connections.per.ip.overrides', 'max.connection.creation.rate'] as const;

/** DynamicBrokerConfig.AllDynamicConfigs (2.8): the KafkaConfig keys a broker may take at run time. */
export const ALL_DYNAMIC_CONFIGS: ReadonlySet<string> = new Set([
  ...DYNAMIC_SECURITY_CONFIGS,
  // LogCleaner.ReconfigurableConfigs
  ...LOG_CLEANER_CONFIGS,
  ...DYNAMIC_LOG_CONFIGS,
  // DynamicThreadPool.ReconfigurableConfigs (and SocketServer's num.network.threads)
  ...THREAD_POOL_CONFIGS,
  ...DYNAMIC_LISTENER_CONFIGS,
  // SocketServer.ReconfigurableConfigs and DynamicMetricsReporters
  'max.connections.per.ip', 'max.connections.per.ip.overrides', 'metric.reporters',
]);
/** DynamicBrokerConfig.ClusterLevelListenerConfigs: listener keys that may also be set at the cluster default. */
const CLUSTER_LEVEL_LISTENER_CONFIGS: ReadonlySet<string> = new Set(['max.connections', 'max.connection.creation.rate', 'num.network.threads']);
/** DynamicBrokerConfig.PerBrokerConfigs: only settable for one broker id, never at the cluster default. */
const PER_BROKER_CONFIGS: ReadonlySet<string> = new Set([...DYNAMIC_SECURITY_CONFIGS, ...DYNAMIC_LISTENER_CONFIGS].filter((k) => !CLUSTER_LEVEL_LISTENER_CONFIGS.has(k)));
/** DynamicBrokerConfig.DynamicPasswordConfigs: the dynamic keys of type PASSWORD, stored encoded. */
const DYNAMIC_PASSWORD_CONFIGS = [...ALL_DYNAMIC_CONFIGS].filter((k) => DEFS.get(k)?.type === 'password');
/** DynamicBrokerConfig.isPasswordConfig: a password key, prefixed (`listener.name.<l>.<mech>.sasl.jaas.config`) or not. */
export function isPasswordConfig(name: string): boolean {
  return DYNAMIC_PASSWORD_CONFIGS.some((k) => name.endsWith(k));
}
/** DynamicConfig.Broker's own keys (not KafkaConfig keys): the replication throttles, LONG at least 0. */
export const LEADER_REPLICATION_THROTTLED_RATE = 'leader.replication.throttled.rate';
export const FOLLOWER_REPLICATION_THROTTLED_RATE = 'follower.replication.throttled.rate';
export const REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND = 'replica.alter.log.dirs.io.max.bytes.per.second';
const BROKER_QUOTA_DEFS = new Map<string, ConfigKey>(
  [LEADER_REPLICATION_THROTTLED_RATE, FOLLOWER_REPLICATION_THROTTLED_RATE, REPLICA_ALTER_LOG_DIRS_IO_MAX_BYTES_PER_SECOND].map((n) => [n, defineKey(n, 'long', LONG_MAX_TEXT, atLeast(0))]),
);

/**
 * The dynamic keys this broker applies at run time: the cluster-wide log defaults (every log without its own
 * override takes them at once; the controller reads unclean.leader.election.enable from them), the replication
 * throttle rates (which, as Kafka's BrokerConfigHandler, take effect from `/config/brokers/<id>` only), the
 * connection limits (new connections see them at once, open ones stay), num.replica.fetchers (the fetchers are
 * re-partitioned) and the log cleaner's keys (the cleaner restarts with them). num.io.threads,
 * num.network.threads, num.recovery.threads.per.data.dir and background.threads size no pool here (Node runs one
 * event loop): they are validated as Kafka's thread pools are, stored and reported by DescribeConfigs.
 * max.connection.creation.rate and, per listener, `listener.name.<l>.max.connections` and
 * `listener.name.<l>.max.connection.creation.rate` apply to new connections at once. metric.reporters is
 * accepted only empty: any class named fails the reconfiguration check as a class Kafka cannot load does
 * (validateReconfiguration). The listeners themselves (listeners, advertised.listeners,
 * listener.security.protocol.map) are applied as Kafka's DynamicListenerConfig applies them: listeners added
 * start accepting, listeners removed stop, and the broker's registration is rewritten (see
 * listener-reconfiguration.ts). The other unprefixed SSL/SASL keys are refused rather than stored unapplied.
 */
export const APPLIED_DYNAMIC_CONFIGS: ReadonlySet<string> = new Set([
  ...DYNAMIC_LOG_CONFIGS,
  ...BROKER_QUOTA_DEFS.keys(),
  ...THREAD_POOL_CONFIGS,
  ...LOG_CLEANER_CONFIGS,
  ...CONNECTION_QUOTA_CONFIGS,
  'metric.reporters',
  'sasl.enabled.mechanisms',
  'listeners', 'advertised.listeners', 'listener.security.protocol.map',
]);

/**
 * The listener settings read when a listener is created (its TLS context): settable as `listener.name.<l>.<key>`
 * together with the dynamic `listeners` that adds the listener; on a listener that exists already they cannot
 * change (DynamicListenerConfig's "Configs cannot be updated dynamically for existing listener").
 */
export const NEW_LISTENER_SSL_CONFIGS: ReadonlySet<string> = new Set([
  ...DYNAMIC_SECURITY_CONFIGS, 'ssl.client.auth', 'ssl.protocol', 'ssl.enabled.protocols', 'ssl.cipher.suites', 'ssl.endpoint.identification.algorithm',
]);
/** DynamicBrokerConfig.DynamicSecurityConfigs (SslConfigs.RECONFIGURABLE_CONFIGS): per listener only. */
export const SECURITY_CONFIGS_PER_LISTENER: ReadonlySet<string> = new Set(DYNAMIC_SECURITY_CONFIGS);


/** Whether this broker applies a dynamic key (a listener-prefixed key counts as its base key). */
export function isAppliedDynamicConfig(name: string): boolean {
  const prefixed = listenerPrefixedKey(name);
  if (prefixed !== undefined) return NEW_LISTENER_SSL_CONFIGS.has(prefixed.key) || LISTENER_CONNECTION_QUOTA_CONFIGS.has(prefixed.key) || isDynamicListenerSaslKey(prefixed.key);
  return APPLIED_DYNAMIC_CONFIGS.has(name);
}

/** The change of a thread count Kafka allows (DynamicThreadPool / SocketServer.validateReconfiguration). */
function validateThreadCount(name: string, oldValue: number, newValue: number): void {
  if (newValue === oldValue) return;
  const errorMsg = `Dynamic thread count update validation failed for ${name}=${newValue}`;
  if (newValue <= 0) throw new ConfigException(`${errorMsg}, value should be at least 1`);
  // Scala's Int division.
  if (newValue < Math.trunc(oldValue / 2)) throw new ConfigException(`${errorMsg}, value should be at least half the current value ${oldValue}`);
  if (newValue > oldValue * 2) throw new ConfigException(`${errorMsg}, value should not be greater than double the current value ${oldValue}`);
}

/**
 * The reconfigurables' validateReconfiguration of DynamicBrokerConfig.processReconfiguration, from the current
 * config to the new one: thread counts within half and double of the current value (at least 1), and, when a
 * cleaner key changes and the cleaner runs, log.cleaner.threads the same way (LogCleaner's messages). As Kafka
 * does, the failure reaches the client as ConfigException("Invalid dynamic configuration"), its cause logged.
 */
export function validateReconfiguration(current: KafkaConfig, next: KafkaConfig): void {
  try {
    for (const name of THREAD_POOL_CONFIGS) validateThreadCount(name, current.get(name), next.get(name));
    const cleanerChanged = LOG_CLEANER_CONFIGS.some((k) => String(current.get(k)) !== String(next.get(k)));
    if (cleanerChanged && current.get('log.cleaner.enable')) {
      const numThreads = next.get('log.cleaner.threads');
      const currentThreads = current.get('log.cleaner.threads');
      if (numThreads < 1) throw new ConfigException('Log cleaner threads should be at least 1');
      if (numThreads < Math.trunc(currentThreads / 2)) throw new ConfigException(`Log cleaner threads cannot be reduced to less than half the current value ${currentThreads}`);
      if (numThreads > currentThreads * 2) throw new ConfigException(`Log cleaner threads cannot be increased to more than double the current value ${currentThreads}`);
    }
    // DynamicListenerConfig runs when a listener key changed (Kafka's needsReconfiguration); here a changed
    // `listener.name.` key counts too, so that a create-time setting of a kept listener is refused.
    if (listenersChanged(current, next)) validateListenerReconfiguration(current, next);
    // DynamicMetricsReporters loads every class named; there are no Java classes here, so none loads, and
    // processReconfigurable reports the failure as Kafka does for a class that is not found.
    const reporters = next.get('metric.reporters');
    if (reporters.join(',') !== current.get('metric.reporters').join(',') && reporters.length > 0) {
      throw new ConfigException('Validation of dynamic config update of Set(metric.reporters) failed with class class kafka.server.DynamicMetricsReporters', new Error(`java.lang.ClassNotFoundException: ${reporters[0] ?? ''}`));
    }
  } catch (e) {
    throw new ConfigException('Invalid dynamic configuration', e);
  }
}

/**
 * A replication throttle rate of a broker's dynamic config (Kafka's BrokerConfigHandler.getOrDefault): its
 * value in bytes per second, undefined (Long.MAX_VALUE, no throttle) when absent or unusable.
 */
export function replicationThrottleRate(props: ReadonlyMap<string, string>, name: string): number | undefined {
  const text = props.get(name);
  if (text === undefined) return undefined;
  const n = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(n) && n >= 0 && n < LONG_MAX ? n : undefined;
}

/** DynamicBrokerConfig.brokerConfigSynonyms: a key and the lower-precedence keys that set the same value. */
export function brokerConfigSynonyms(name: string): string[] {
  switch (name) {
    case 'log.roll.ms':
      return ['log.roll.ms', 'log.roll.hours'];
    case 'log.roll.jitter.ms':
      return ['log.roll.jitter.ms', 'log.roll.jitter.hours'];
    case 'log.flush.interval.ms':
      return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
    case 'log.retention.ms':
      return ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'];
    default: {
      // matchListenerOverride: a listener key's base key (a mechanism's JAAS entry's sasl.jaas.config) follows it.
      const prefixed = listenerPrefixedKey(name);
      if (prefixed === undefined) return [name];
      return [name, prefixed.key.endsWith('.sasl.jaas.config') ? 'sasl.jaas.config' : prefixed.key];
    }
  }
}

/** Scala's Set.toString, as Kafka's messages print a key set. */
function scalaSet(keys: readonly string[]): string {
  return `Set(${keys.join(', ')})`;
}

/**
 * DynamicBrokerConfig.validateConfigs on a set of keys alone: a non-dynamic key, a value of the wrong type or a
 * per-broker key at the default throw ConfigException with Kafka's message; a key this broker does not apply
 * is INVALID_CONFIG (refused rather than stored unapplied).
 */
export function validateDynamicBrokerKeys(props: ReadonlyMap<string, string>, perBrokerConfig: boolean): void {
  const keys = [...props.keys()];
  // A listener-prefixed key is judged by its base key (DynamicBrokerConfig.validateConfigs).
  const base = (k: string): string => listenerPrefixedKey(k)?.key ?? k;
  const nonDynamic = keys.filter((k) => DEFS.has(base(k)) && !ALL_DYNAMIC_CONFIGS.has(base(k)));
  if (nonDynamic.length > 0) throw new ConfigException(`Cannot update these configs dynamically: ${scalaSet(nonDynamic)}`);
  // securityConfigsWithoutListenerPrefix: a keystore or truststore is one listener's, never the broker's at run
  // time (server.properties may still set them unprefixed, for every listener without its own).
  const unprefixedSecurity = keys.filter((k) => SECURITY_CONFIGS_PER_LISTENER.has(k));
  if (unprefixedSecurity.length > 0) throw new ConfigException(`These security configs can be dynamically updated only per-listener using the listener prefix: ${scalaSet(unprefixedSecurity)}`);
  for (const k of keys) {
    const def = DEFS.get(base(k)) ?? BROKER_QUOTA_DEFS.get(k);
    if (def !== undefined) parseKey({ ...def, name: k }, props.get(k));
  }
  if (!perBrokerConfig) {
    const perBroker = keys.filter((k) => PER_BROKER_CONFIGS.has(k) || (listenerPrefixedKey(k) !== undefined && !CLUSTER_LEVEL_LISTENER_CONFIGS.has(base(k))));
    if (perBroker.length > 0) throw new ConfigException(`Cannot update these configs at default cluster level, broker id must be specified: ${scalaSet(perBroker)}`);
  }
  const unapplied = keys.filter((k) => !isAppliedDynamicConfig(k));
  if (unapplied.length > 0) {
    const what = unapplied.every((k) => DEFS.has(base(k))) ? 'These dynamic broker configs are not supported by this broker' : 'Unknown dynamic broker configs are not supported by this broker';
    throw new KafkaError('INVALID_CONFIG', `${what}: ${unapplied.join(',')}`);
  }
}

/** DescribeConfigsResponse.ConfigSource ids. */
export const CONFIG_SOURCE = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

export interface ConfigSynonym {
  name: string;
  value: string | null;
  source: number;
}

/**
 * A broker's dynamic configuration (Kafka's DynamicBrokerConfig): the static server.properties, the cluster-wide
 * `/config/brokers/<default>` and this broker's `/config/brokers/<id>` on top, in that precedence. `current` is
 * the merged KafkaConfig; `logDefaults` is one object, updated in place, that the log manager, the dynamic config
 * manager and the controller all read, so a change reaches every reader at once. Listeners hear every change.
 */
export class DynamicBrokerConfig {
  private dynamicDefault = new Map<string, string>();
  private dynamicBroker = new Map<string, string>();
  private currentConfig: KafkaConfig;
  readonly logDefaults: LogConfigDefaults;
  private readonly listeners: ((config: KafkaConfig) => void)[] = [];
  /** The broker's reconfigurables' own checks (a new keystore must load and keep the subject, say). */
  private readonly validators: ((current: KafkaConfig, next: KafkaConfig) => void)[] = [];
  /** Kafka's staticDefaultConfigs: every key's default that is a value (null defaults are left out). */
  private readonly staticDefaults: ReadonlyMap<string, string>;
  /** password.encoder.secret's encoder (and password.encoder.old.secret's, to read what it stored). */
  private readonly encoder: PasswordEncoder | undefined;
  private readonly oldEncoder: PasswordEncoder | undefined;
  private readonly log = getLogger('kafka.server.DynamicBrokerConfig');

  constructor(readonly staticConfig: KafkaConfig) {
    this.currentConfig = staticConfig;
    this.encoder = passwordEncoder(staticConfig, 'password.encoder.secret');
    this.oldEncoder = passwordEncoder(staticConfig, 'password.encoder.old.secret');
    this.logDefaults = { ...brokerLogConfigDefaults(staticConfig) };
    this.staticDefaults = new Map(KAFKA_CONFIG_DEFS.filter((d) => typeof d.defaultText === 'string').map((d) => [d.name, d.defaultText as string]));
  }

  get current(): KafkaConfig {
    return this.currentConfig;
  }

  get currentDynamicDefaultConfigs(): ReadonlyMap<string, string> {
    return this.dynamicDefault;
  }

  get currentDynamicBrokerConfigs(): ReadonlyMap<string, string> {
    return this.dynamicBroker;
  }

  onChange(listener: (config: KafkaConfig) => void): void {
    this.listeners.push(listener);
  }

  /**
   * A reconfigurable's validateReconfiguration: run on every proposed change; throwing refuses it (the client
   * sees ConfigException("Invalid dynamic configuration"), as validateReconfiguration's other checks).
   */
  addReconfigurationValidator(validator: (current: KafkaConfig, next: KafkaConfig) => void): void {
    this.validators.push(validator);
  }

  /**
   * DynamicBrokerConfig.validate: a non-dynamic key, a value of the wrong type or a per-broker key at the
   * default throw ConfigException (the handlers' INVALID_REQUEST, Kafka's messages); a key this broker does not
   * apply is INVALID_CONFIG; finally the merged configuration must build as a whole and pass the reconfigurables'
   * checks (thread counts, cleaner threads).
   */
  validate(props: ReadonlyMap<string, string>, perBrokerConfig: boolean): void {
    validateDynamicBrokerKeys(props, perBrokerConfig);
    const merged = perBrokerConfig ? this.merge(this.dynamicDefault, props) : this.merge(props, this.dynamicBroker);
    createLogConfig(brokerLogConfigDefaults(merged));
    validateReconfiguration(this.currentConfig, merged);
    for (const v of this.validators) {
      try {
        v(this.currentConfig, merged);
      } catch (e) {
        throw new ConfigException('Invalid dynamic configuration', e);
      }
    }
  }

  /** `/config/brokers/<default>` changed (or was read at start-up). */
  updateDefaultConfig(props: ReadonlyMap<string, string>): void {
    this.update(this.usable(props), this.dynamicBroker);
  }

  /** `/config/brokers/<this broker's id>` changed (or was read at start-up). */
  updateBrokerConfig(props: ReadonlyMap<string, string>): void {
    this.update(this.dynamicDefault, this.usable(props));
  }

  /**
   * DescribeConfigs' synonyms of a broker key (ZkAdminManager.configSynonyms): the key and its lower-precedence
   * synonyms, from this broker's dynamic config, the dynamic default, server.properties and Kafka's defaults in
   * that order, the leading entries of other names dropped (as Kafka's dropWhile does).
   */
  configSynonyms(name: string, isSensitive: boolean): ConfigSynonym[] {
    const names = brokerConfigSynonyms(name);
    const all: ConfigSynonym[] = [];
    const add = (map: ReadonlyMap<string, string>, source: number): void => {
      for (const n of names) {
        const value = map.get(n);
        if (value !== undefined) all.push({ name: n, value: isSensitive ? null : value, source });
      }
    };
    add(this.dynamicBroker, CONFIG_SOURCE.DYNAMIC_BROKER_CONFIG);
    add(this.dynamicDefault, CONFIG_SOURCE.DYNAMIC_DEFAULT_BROKER_CONFIG);
    add(this.staticConfig.originals, CONFIG_SOURCE.STATIC_BROKER_CONFIG);
    add(this.staticDefaults, CONFIG_SOURCE.DEFAULT_CONFIG);
    const first = all.findIndex((s) => s.name === name);
    return first < 0 ? [] : all.slice(first);
  }

  /**
   * DynamicBrokerConfig.toPersistentProps: the set as written to ZooKeeper, each password encoded with
   * password.encoder.secret (a password at the cluster default, or without a secret, is refused).
   */
  toPersistentProps(props: ReadonlyMap<string, string>, perBrokerConfig: boolean): Map<string, string> {
    const out = new Map(props);
    for (const [name, value] of props) {
      if (!isPasswordConfig(name)) continue;
      if (!perBrokerConfig) throw new ConfigException('Password config can be defined only at broker level');
      if (this.encoder === undefined) throw new ConfigException('Password encoder secret not configured');
      out.set(name, this.encoder.encode(value));
    }
    return out;
  }

  /**
   * DynamicBrokerConfig.fromPersistentProps' password decoding: a stored password is decoded with
   * password.encoder.secret (or the old secret); one that does not decode is logged and left out, as Kafka does.
   */
  fromPersistentProps(props: ReadonlyMap<string, string>): Map<string, string> {
    const out = new Map(props);
    for (const [name, value] of props) {
      if (!isPasswordConfig(name)) continue;
      const decoded = [this.encoder, this.oldEncoder].map((e) => tryDecode(e, value)).find((v) => v !== undefined);
      if (decoded === undefined) {
        this.log.error(`Dynamic password config ${name} could not be decoded, ignoring.`);
        out.delete(name);
      } else {
        out.set(name, decoded);
      }
    }
    return out;
  }

  /** Stored entries this broker does not apply (written by another tool, say) are left out; passwords decoded. */
  private usable(props: ReadonlyMap<string, string>): Map<string, string> {
    // DynamicBrokerConfig.fromPersistentProps' removeInvalidProps for unprefixed key material.
    const unprefixed = [...props.keys()].filter((k) => SECURITY_CONFIGS_PER_LISTENER.has(k));
    if (unprefixed.length > 0) this.log.error(`Security configs can be dynamically updated only using listener prefix, base configs will be ignored: ${scalaSet(unprefixed)}`);
    return this.fromPersistentProps(new Map([...props].filter(([k]) => isAppliedDynamicConfig(k))));
  }

  private merge(dynamicDefault: ReadonlyMap<string, string>, dynamicBroker: ReadonlyMap<string, string>): KafkaConfig {
    const props = new Map(this.staticConfig.originals);
    for (const [k, v] of dynamicDefault) props.set(k, v);
    for (const [k, v] of dynamicBroker) props.set(k, v);
    return KafkaConfig.fromProperties(props);
  }

  private update(dynamicDefault: Map<string, string>, dynamicBroker: Map<string, string>): void {
    // An invalid stored set throws here and changes nothing (Kafka logs it and keeps the old config).
    const config = this.merge(dynamicDefault, dynamicBroker);
    const defaults = brokerLogConfigDefaults(config);
    createLogConfig(defaults);
    this.dynamicDefault = dynamicDefault;
    this.dynamicBroker = dynamicBroker;
    this.currentConfig = config;
    Object.assign(this.logDefaults, defaults);
    for (const l of this.listeners) l(config);
  }
}

/** The encoder of a password.encoder secret key with the password.encoder.* settings, none without the secret. */
function passwordEncoder(config: KafkaConfig, secretKey: 'password.encoder.secret' | 'password.encoder.old.secret'): PasswordEncoder | undefined {
  const secret = config.get(secretKey);
  if (secret === null || secret === undefined) return undefined;
  return new PasswordEncoder({
    secret: String(secret),
    keyFactoryAlgorithm: config.get('password.encoder.keyfactory.algorithm'),
    cipherAlgorithm: config.get('password.encoder.cipher.algorithm'),
    keyLength: config.get('password.encoder.key.length'),
    iterations: config.get('password.encoder.iterations'),
  });
}

function tryDecode(encoder: PasswordEncoder | undefined, value: string): string | undefined {
  if (encoder === undefined) return undefined;
  try {
    return encoder.decode(value);
  } catch {
    return undefined;
  }
}
