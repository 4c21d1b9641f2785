import { ConfigException, ConfigKey, ConfigValue, parseKey, renderValue } from './config-def';
import { BrokerConfigKey, BrokerConfigValues, KAFKA_CONFIG_DEFS } from './kafka-config-defs';
import { EndPoint, parseEndPoints, parseSecurityProtocolMap } from './end-point';
import { ListenerConfig } from './listener-config';

const DEFS = new Map<string, ConfigKey>(KAFKA_CONFIG_DEFS.map((d) => [d.name, d]));

/**
 * The broker's configuration: parsed from server.properties plus `--override` pairs, validated as a whole,
 * then frozen; every part of the broker reads its typed values through `get` (a key union: a misspelt key does
 * not compile) and the values Kafka derives (log dirs, retention, roll time, listeners, ZooKeeper timeouts). A
 * config change at run time (dynamic configs) builds a new object rather than editing this one.
 */
/**
 * Kafka's two class names for its ZooKeeper-backed ACL authorizer (the 2.x one and its deprecated predecessor);
 * kafka-ts has that authorizer (src/security/acl-authorizer.ts) and no other.
 */
export const ACL_AUTHORIZER_CLASS_NAMES: readonly string[] = ['kafka.security.authorizer.AclAuthorizer', 'kafka.security.auth.SimpleAclAuthorizer'];

export class KafkaConfig {
  readonly values: ReadonlyMap<string, ConfigValue>;
  /** The properties as supplied (file plus overrides): which keys were set, for DescribeConfigs. */
  readonly originals: ReadonlyMap<string, string>;
  /** Supplied keys that no definition knows: Kafka warns about them and starts anyway. */
  readonly unknownKeys: readonly string[];

  readonly brokerId: number;
  readonly logDirs: readonly string[];
  readonly zkConnect: string;
  readonly zkSessionTimeoutMs: number;
  readonly zkConnectionTimeoutMs: number;
  readonly listeners: readonly EndPoint[];
  readonly advertisedListeners: readonly EndPoint[];
  readonly interBrokerListenerName: string;
  /** control.plane.listener.name (KIP-291): the listener controller requests use, when set. */
  readonly controlPlaneListenerName: string | null;
  /** log.retention.ms, else .minutes, else .hours, in ms; -1 is forever (Kafka's logRetentionTimeMillis). */
  readonly logRetentionMs: number;
  /** log.roll.ms, else log.roll.hours, in ms (Kafka's logRollTimeMillis). */
  readonly logRollMs: number;
  /** log.roll.jitter.ms, else log.roll.jitter.hours, in ms (Kafka's logRollTimeJitterMillis). */
  readonly logRollJitterMs: number;
  /** log.flush.interval.ms, else log.flush.scheduler.interval.ms (Kafka's logFlushIntervalMs). */
  readonly logFlushIntervalMs: number;
  /** max.connections.per.ip.overrides: host or address -> limit. */
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;

  private constructor(values: Map<string, ConfigValue>, unknownKeys: string[], originals: ReadonlyMap<string, string>) {
    this.values = values;
    this.originals = new Map(originals);
    this.unknownKeys = unknownKeys;
    this.brokerId = this.get('broker.id');
    this.logDirs = (this.get('log.dirs') ?? this.get('log.dir')).split(',').map((s) => s.trim()).filter((s) => s !== '');
    this.zkConnect = this.get('zookeeper.connect');
    this.zkSessionTimeoutMs = this.get('zookeeper.session.timeout.ms');
    this.zkConnectionTimeoutMs = this.get('zookeeper.connection.timeout.ms') ?? this.zkSessionTimeoutMs;
    const protocolMap = parseSecurityProtocolMap(this.get('listener.security.protocol.map'));
    const listenersText = this.get('listeners') ?? `PLAINTEXT://${this.get('host.name')}:${this.get('port')}`;
    this.listeners = parseEndPoints('listeners', listenersText, protocolMap);
    const advertisedHost = this.get('advertised.host.name');
    const advertisedPort = this.get('advertised.port');
    const advertisedText =
      this.get('advertised.listeners') ??
      (advertisedHost !== null || advertisedPort !== null ? `PLAINTEXT://${advertisedHost ?? this.get('host.name')}:${advertisedPort ?? this.get('port')}` : null);
    this.advertisedListeners = advertisedText === null ? this.listeners : parseEndPoints('advertised.listeners', advertisedText, protocolMap);
    this.interBrokerListenerName = (this.get('inter.broker.listener.name') ?? this.get('security.inter.broker.protocol')).toUpperCase();
    this.controlPlaneListenerName = this.get('control.plane.listener.name')?.toUpperCase() ?? null;
    this.logRetentionMs = this.retentionMs();
    this.logRollMs = this.get('log.roll.ms') ?? this.get('log.roll.hours') * 3600000;
    this.logRollJitterMs = this.get('log.roll.jitter.ms') ?? this.get('log.roll.jitter.hours') * 3600000;
    this.logFlushIntervalMs = this.get('log.flush.interval.ms') ?? this.get('log.flush.scheduler.interval.ms');
    this.maxConnectionsPerIpOverrides = parseConnectionOverrides(this.get('max.connections.per.ip.overrides'));
    this.checkRules();
    Object.freeze(this);
  }

  /** Reads, type-checks and validates every key; throws ConfigException naming the key, the value and the rule. */
  static fromProperties(props: ReadonlyMap<string, string>): KafkaConfig {
    const values = new Map<string, ConfigValue>();
    const unknown: string[] = [];
    // listener.name.<listener>.<key> overrides are read per listener (ListenerConfig), not unknown.
    for (const key of props.keys()) if (!DEFS.has(key) && !key.startsWith('listener.name.')) unknown.push(key);
    for (const def of KAFKA_CONFIG_DEFS) values.set(def.name, parseKey(def, props.get(def.name)));
    return new KafkaConfig(values, unknown, props);
  }

  /** A key's default value, from the definition table. */
  static defaultOf<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] {
    return parseKey(DEFS.get(key) as ConfigKey, undefined) as BrokerConfigValues[K];
  }

  /** A key's typed value (null only for keys whose default is "no value" and that were not set). */
  get<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] {
    return this.values.get(key) as BrokerConfigValues[K];
  }

  /** One listener's values: `listener.name.<listener>.<key>` over `<key>` (Kafka's valuesWithPrefixOverride). */
  listenerConfig(listenerName: string): ListenerConfig {
    return new ListenerConfig(listenerName.toUpperCase(), this.originals, this.values);
  }

  /** The listener the controller's requests go over: control.plane.listener.name, else the inter-broker one. */
  get controllerListenerName(): string {
    return this.controlPlaneListenerName ?? this.interBrokerListenerName;
  }

  /** A listener's security protocol, from the listeners (listener.security.protocol.map resolved). */
  securityProtocolOf(listenerName: string): string | undefined {
    return this.listeners.find((l) => l.listenerName === listenerName.toUpperCase())?.securityProtocol;
  }

  /**
   * Settings that promise protection kafka-ts does not give yet stop the start-up instead of being ignored:
   * an authorizer other than Kafka's AclAuthorizer, SASL callback handler and login classes (Java classes), and SSL
   * settings Node's TLS cannot honour (a JSSE provider, key or trust manager algorithms, an engine factory). A
   * broker that took them and served everyone unauthenticated would be worse than one that refuses to start.
   */
  private refuseUnprotectedPromises(): void {
    const refuse = (key: string, value: string): never => {
      throw new ConfigException(`${key}=${value} is not supported by kafka-ts yet: remove it rather than run without the protection it promises`);
    };
    const authorizer = this.get('authorizer.class.name');
    if (authorizer !== '' && !ACL_AUTHORIZER_CLASS_NAMES.includes(authorizer)) {
      throw new ConfigException(`authorizer.class.name=${authorizer} is not supported by kafka-ts: the authorizers it has are ${ACL_AUTHORIZER_CLASS_NAMES.join(' and ')} (ACLs in ZooKeeper)`);
    }
    const allowEveryone = this.originals.get('allow.everyone.if.no.acl.found');
    if (allowEveryone !== undefined && !/^(true|false)$/i.test(allowEveryone.trim())) {
      throw new ConfigException(`Invalid value ${allowEveryone} for configuration allow.everyone.if.no.acl.found: Expected value to be either true or false`);
    }
    const jsseOnly: Readonly<Record<string, string | null>> = {
      'ssl.provider': null,
      'ssl.keymanager.algorithm': 'SunX509',
      'ssl.trustmanager.algorithm': 'PKIX',
      'ssl.secure.random.implementation': null,
      'ssl.engine.factory.class': null,
    };
    for (const [key, value] of this.originals) {
      const base = /^listener\.name\.[^.]+\.(.*)$/.exec(key)?.[1] ?? key;
      // SASL is implemented (src/security); custom callback handler and login classes cannot be loaded.
      if (/^(listener\.name\.[^.]+\.([^.]+\.)?)?sasl\.(server\.callback\.handler\.class|login\.class|login\.callback\.handler\.class)$/.test(key)) refuse(key, value);
      if (base in jsseOnly && value.trim() !== (jsseOnly[base] ?? '')) refuse(key, value);
    }
  }

  /** KafkaConfig.validateValues on the listeners (its messages). */
  private checkListeners(): void {
    if (this.originals.has('inter.broker.listener.name') && this.originals.has('security.inter.broker.protocol')) {
      throw new ConfigException('Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.');
    }
    const listenerNames = new Set(this.listeners.map((l) => l.listenerName));
    const advertisedNames = new Set(this.advertisedListeners.map((l) => l.listenerName));
    if (![...advertisedNames].every((n) => listenerNames.has(n))) {
      throw new ConfigException(
        `advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found ${[...advertisedNames].join(',')}. The valid options based on the current configuration are ${[...listenerNames].join(',')}`,
      );
    }
    if (!advertisedNames.has(this.interBrokerListenerName)) {
      throw new ConfigException(
        `inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are ${[...advertisedNames].join(',')}`,
      );
    }
    const controlPlane = this.controlPlaneListenerName;
    if (controlPlane !== null) {
      if (!advertisedNames.has(controlPlane)) {
        throw new ConfigException(
          `control.plane.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are ${[...advertisedNames].join(',')}`,
        );
      }
      if (controlPlane === this.interBrokerListenerName) {
        throw new ConfigException(`control.plane.listener.name, when defined, should have a different value from the inter broker listener name. Currently they both have the value ${controlPlane}`);
      }
    }
  }

  private checkRules(): void {
    this.refuseUnprotectedPromises();
    const reserved = this.get('reserved.broker.max.id');
    if (this.get('broker.id.generation.enable')) {
      if (this.brokerId < -1 || this.brokerId > reserved) {
        throw new ConfigException(`Invalid value ${this.brokerId} for configuration broker.id: broker.id must be greater than or equal to -1 and not greater than reserved.broker.max.id (${reserved})`);
      }
    } else if (this.brokerId < 0) {
      throw new ConfigException(`Invalid value ${this.brokerId} for configuration broker.id: broker.id must be greater than or equal to 0`);
    }
    if (this.logDirs.length === 0) throw new ConfigException('At least one log directory must be defined via log.dirs or log.dir.');
    if (this.logRetentionMs === 0) throw new ConfigException('log.retention.ms must be unlimited (-1) or, equal or greater than 1');
    this.checkListeners();
    if (this.get('replica.fetch.wait.max.ms') > this.get('replica.socket.timeout.ms')) {
      throw new ConfigException('replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts');
    }
    if (this.get('max.connections.per.ip') === 0 && this.maxConnectionsPerIpOverrides.size === 0) {
      throw new ConfigException('max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.');
    }
    if (this.get('offsets.topic.replication.factor') < 1) throw new ConfigException('offsets.topic.replication.factor must be at least 1');
  }

  private retentionMs(): number {
    const ms = this.get('log.retention.ms');
    if (ms !== null) return ms < 0 ? -1 : ms;
    const minutes = this.get('log.retention.minutes');
    if (minutes !== null) return minutes < 0 ? -1 : minutes * 60000;
    const hours = this.get('log.retention.hours');
    return hours < 0 ? -1 : hours * 3600000;
  }

  /** The `KafkaConfig values:` block Kafka logs at start-up: one tab-indented `key = value` line per key, sorted. */
  describe(): string {
    const lines = [...DEFS.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((d) => `\t${d.name} = ${renderValue(d, this.values.get(d.name) ?? null)}`);
    return `KafkaConfig values: \n${lines.join('\n')}\n`;
  }
}

/** `host:limit,host:limit` (Kafka's max.connections.per.ip.overrides, a map of host or address to limit). */
function parseConnectionOverrides(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const entry of text.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const colon = entry.lastIndexOf(':');
    const host = entry.slice(0, colon).trim();
    const limit = colon <= 0 ? NaN : Number(entry.slice(colon + 1).trim());
    if (host === '' || !Number.isInteger(limit) || limit < 0) {
      throw new ConfigException(`Invalid value ${text} for configuration max.connections.per.ip.overrides: Map entry '${entry}' is not a valid host:limit pair`);
    }
    out.set(host, limit);
  }
  return out;
}
