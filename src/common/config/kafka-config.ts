import { ConfigException, ConfigKey, ConfigValue, parseValue, renderValue, validate } from './config-def';
import { KAFKA_CONFIG_DEFS } from './kafka-config-defs';
import { EndPoint, parseEndPoints, parseSecurityProtocolMap } from './end-point';

const DEFS = new Map<string, ConfigKey>(KAFKA_CONFIG_DEFS.map((d) => [d.name, d]));

/**
 * The broker's configuration: parsed from server.properties plus `--override` pairs, validated as a whole,
 * then frozen. A config change at run time (dynamic configs) builds a new object rather than editing this one.
 */
export class KafkaConfig {
  readonly values: ReadonlyMap<string, ConfigValue>;
  /** The properties as supplied (file plus overrides), for parts that read Kafka's keys themselves. */
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
  readonly logRetentionMs: number;
  readonly logRollMs: number;

  private constructor(values: Map<string, ConfigValue>, unknownKeys: string[], originals: ReadonlyMap<string, string>) {
    this.values = values;
    this.originals = new Map(originals);
    this.unknownKeys = unknownKeys;
    this.brokerId = this.int('broker.id');
    this.logDirs = (this.stringOrNull('log.dirs') ?? this.string('log.dir')).split(',').map((s) => s.trim()).filter((s) => s !== '');
    this.zkConnect = this.string('zookeeper.connect');
    this.zkSessionTimeoutMs = this.int('zookeeper.session.timeout.ms');
    this.zkConnectionTimeoutMs = this.intOrNull('zookeeper.connection.timeout.ms') ?? this.zkSessionTimeoutMs;
    const protocolMap = parseSecurityProtocolMap(this.string('listener.security.protocol.map'));
    const listenersText = this.stringOrNull('listeners') ?? `PLAINTEXT://${this.string('host.name')}:${this.int('port')}`;
    this.listeners = parseEndPoints('listeners', listenersText, protocolMap);
    const advertisedText =
      this.stringOrNull('advertised.listeners') ??
      (this.stringOrNull('advertised.host.name') !== null || this.intOrNull('advertised.port') !== null
        ? `PLAINTEXT://${this.stringOrNull('advertised.host.name') ?? this.string('host.name')}:${this.intOrNull('advertised.port') ?? this.int('port')}`
        : null);
    this.advertisedListeners = advertisedText === null ? this.listeners : parseEndPoints('advertised.listeners', advertisedText, protocolMap);
    this.interBrokerListenerName = this.stringOrNull('inter.broker.listener.name') ?? this.string('security.inter.broker.protocol');
    this.logRetentionMs = KafkaConfig.retentionMs(this);
    this.logRollMs = this.longOrNull('log.roll.ms') ?? this.int('log.roll.hours') * 3600000;
    this.checkRules();
    Object.freeze(this);
  }

  /** Reads, type-checks and validates every key; throws ConfigException naming the key, the value and the rule. */
  static fromProperties(props: ReadonlyMap<string, string>): KafkaConfig {
    const values = new Map<string, ConfigValue>();
    const unknown: string[] = [];
    for (const key of props.keys()) if (!DEFS.has(key)) unknown.push(key);
    for (const def of KAFKA_CONFIG_DEFS) {
      const supplied = props.get(def.name);
      const text = supplied ?? def.defaultText;
      if (text === undefined) {
        throw new ConfigException(`Missing required configuration "${def.name}" which has no default value.`);
      }
      const value = parseValue(def, text);
      if (value !== null) validate(def, value, text ?? 'null');
      values.set(def.name, value);
    }
    return new KafkaConfig(values, unknown, props);
  }

  private checkRules(): void {
    const reserved = this.int('reserved.broker.max.id');
    if (this.bool('broker.id.generation.enable')) {
      if (this.brokerId < -1 || this.brokerId > reserved) {
        throw new ConfigException(`Invalid value ${this.brokerId} for configuration broker.id: broker.id must be greater than or equal to -1 and not greater than reserved.broker.max.id (${reserved})`);
      }
    } else if (this.brokerId < 0) {
      throw new ConfigException(`Invalid value ${this.brokerId} for configuration broker.id: broker.id must be greater than or equal to 0`);
    }
    if (this.logDirs.length === 0) throw new ConfigException('At least one log directory must be defined via log.dirs or log.dir.');
    if (this.logRetentionMs === 0) throw new ConfigException('log.retention.ms must be unlimited (-1) or, equal or greater than 1');
    const names = new Set(this.listeners.map((l) => l.listenerName));
    if (!names.has(this.interBrokerListenerName)) {
      throw new ConfigException(
        `inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are ${[...names].join(',')}`,
      );
    }
    if (this.int('replica.fetch.wait.max.ms') > this.int('replica.socket.timeout.ms')) {
      throw new ConfigException('replica.socket.timeout.ms should always be at least replica.fetch.wait.max.ms to prevent unnecessary socket timeouts');
    }
    if (this.int('offsets.topic.replication.factor') < 1) throw new ConfigException('offsets.topic.replication.factor must be at least 1');
  }

  private static retentionMs(c: KafkaConfig): number {
    const ms = c.longOrNull('log.retention.ms');
    if (ms !== null) return ms < 0 ? -1 : ms;
    const minutes = c.intOrNull('log.retention.minutes');
    if (minutes !== null) return minutes < 0 ? -1 : minutes * 60000;
    const hours = c.int('log.retention.hours');
    return hours < 0 ? -1 : hours * 3600000;
  }

  private raw(name: string): ConfigValue {
    if (!this.values.has(name)) throw new Error(`Unknown configuration ${name}`);
    return this.values.get(name) ?? null;
  }

  int(name: string): number {
    const v = this.raw(name);
    if (typeof v !== 'number') throw new ConfigException(`Configuration ${name} has no value`);
    return v;
  }
  intOrNull(name: string): number | null {
    const v = this.raw(name);
    return typeof v === 'number' ? v : null;
  }
  long(name: string): number {
    return this.int(name);
  }
  longOrNull(name: string): number | null {
    return this.intOrNull(name);
  }
  double(name: string): number {
    return this.int(name);
  }
  bool(name: string): boolean {
    return this.raw(name) === true;
  }
  string(name: string): string {
    const v = this.raw(name);
    if (typeof v !== 'string') throw new ConfigException(`Configuration ${name} has no value`);
    return v;
  }
  stringOrNull(name: string): string | null {
    const v = this.raw(name);
    return typeof v === 'string' ? v : null;
  }
  list(name: string): string[] {
    const v = this.raw(name);
    return Array.isArray(v) ? v : [];
  }

  /** The `KafkaConfig values:` block Kafka logs at start-up: one tab-indented `key = value` line per key, sorted. */
  describe(): string {
    const lines = [...DEFS.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((d) => `\t${d.name} = ${renderValue(d, this.values.get(d.name) ?? null)}`);
    return `KafkaConfig values: \n${lines.join('\n')}\n`;
  }
}
