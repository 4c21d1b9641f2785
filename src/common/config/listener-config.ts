import { ConfigKey, ConfigValue, parseKey } from './config-def';
import { BrokerConfigKey, BrokerConfigValues, KAFKA_CONFIG_DEFS } from './kafka-config-defs';

const DEFS = new Map<string, ConfigKey>(KAFKA_CONFIG_DEFS.map((d) => [d.name, d]));

/** Kafka's ListenerName.configPrefix: `listener.name.<listener in lower case>.`. */
export function listenerPrefix(listenerName: string): string {
  return `listener.name.${listenerName.toLowerCase()}.`;
}

/**
 * One listener's view of the broker configuration (Kafka's `config.valuesWithPrefixOverride(listener.configPrefix)`):
 * a key set as `listener.name.<listener>.<key>` wins over the broker-wide `<key>`, which wins over the default.
 * `raw` gives the text as configured (for the ssl.* and sasl.* readers), `get` the typed value.
 */
export class ListenerConfig {
  readonly prefix: string;

  constructor(
    readonly listenerName: string,
    private readonly originals: ReadonlyMap<string, string>,
    private readonly values: ReadonlyMap<string, ConfigValue>,
  ) {
    this.prefix = listenerPrefix(listenerName);
  }

  /** The configured text of `key` for this listener, or undefined when set at neither level. */
  raw(key: string): string | undefined {
    return this.originals.get(this.prefix + key) ?? this.originals.get(key);
  }

  /** The typed value of a broker key for this listener; a bad prefixed value throws naming the prefixed key. */
  get<K extends BrokerConfigKey>(key: K): BrokerConfigValues[K] {
    const prefixed = this.originals.get(this.prefix + key);
    if (prefixed === undefined) return this.values.get(key) as BrokerConfigValues[K];
    const def = DEFS.get(key) as ConfigKey;
    return parseKey({ ...def, name: this.prefix + key }, prefixed) as BrokerConfigValues[K];
  }

  /** Whether any `listener.name.<listener>.` key is set (prefixed keys whose base key is in `keys`, when given). */
  hasOverrides(keys?: ReadonlySet<string>): boolean {
    for (const k of this.originals.keys()) if (k.startsWith(this.prefix) && (keys === undefined || keys.has(k.slice(this.prefix.length)))) return true;
    return false;
  }
}
