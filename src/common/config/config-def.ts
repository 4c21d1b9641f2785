/**
 * Typed configuration definitions in the manner of Kafka's ConfigDef: each key has a type, a default and an
 * optional validator, and a bad value is reported as Kafka reports it:
 * `Invalid value abc for configuration num.partitions: Not a number of type INT`.
 *
 * A definition table (`KAFKA_CONFIG_DEFS` for the broker, `LOG_CONFIG_DEFS` for topics) is a `const` tuple of
 * `defineKey(...)` results, so the key names form a union type and each key's TypeScript value type follows from
 * its ConfigType and default: a misspelt key, or reading a LONG as a boolean, does not compile.
 */
export type ConfigType = 'int' | 'long' | 'short' | 'double' | 'boolean' | 'string' | 'list' | 'password' | 'class';

export type ConfigValue = number | boolean | string | string[] | null;

/** The value type of each ConfigType once parsed. */
export interface ConfigTypeValues {
  int: number;
  long: number;
  short: number;
  double: number;
  boolean: boolean;
  string: string;
  list: string[];
  password: string;
  class: string;
}

export interface Validator {
  /** Returns a reason when the value breaks the rule. */
  check(value: ConfigValue): string | undefined;
}

/** The default's text: as Kafka documents it; `null` for "no value"; `undefined` for "required". */
export type DefaultText = string | null | undefined;

export interface ConfigKey<N extends string = string, T extends ConfigType = ConfigType, D extends DefaultText = DefaultText> {
  readonly name: N;
  readonly type: T;
  readonly defaultText: D;
  readonly validator?: Validator;
}

/** A key's parsed value: its type's, or null where the default is "no value" and nothing was set. */
export type KeyValue<K extends ConfigKey> = ConfigTypeValues[K['type']] | (null extends K['defaultText'] ? null : never);

/** Name -> parsed value type for a definition table. */
export type ConfigValues<Defs extends readonly ConfigKey[]> = { [K in Defs[number] as K['name']]: KeyValue<K> };

export function defineKey<N extends string, T extends ConfigType, D extends DefaultText>(name: N, type: T, defaultText: D, validator?: Validator): ConfigKey<N, T, D> {
  return validator === undefined ? { name, type, defaultText } : { name, type, defaultText, validator };
}

export class ConfigException extends Error {
  /** `cause`: the exception a wrapping one (DynamicBrokerConfig's "Invalid dynamic configuration") stands for. */
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'ConfigException';
  }
}

/**
 * Java's Long.MAX_VALUE ("never" in Kafka's configuration) does not fit a double exactly; it is kept as this
 * sentinel and printed as Kafka prints it.
 */
export const LONG_MAX = Number.MAX_SAFE_INTEGER;
export const LONG_MAX_TEXT = '9223372036854775807';
const JAVA_LONG_MIN = -(2n ** 63n);
const JAVA_LONG_MAX = 2n ** 63n - 1n;

const TYPE_NAMES: Record<ConfigType, string> = {
  int: 'INT',
  long: 'LONG',
  short: 'SHORT',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  string: 'STRING',
  list: 'LIST',
  password: 'PASSWORD',
  class: 'CLASS',
};

function invalid(name: string, text: string, reason: string): ConfigException {
  return new ConfigException(`Invalid value ${text} for configuration ${name}: ${reason}`);
}

function parseInteger(key: ConfigKey, text: string, min: number, max: number): number {
  const trimmed = text.trim();
  if (!/^[+-]?\d+$/.test(trimmed)) throw invalid(key.name, text, `Not a number of type ${TYPE_NAMES[key.type]}`);
  if (key.type === 'long') {
    // Any Java long is legal; beyond 2^53 it becomes the nearest "never" sentinel, which is what such values mean.
    const big = BigInt(trimmed);
    if (big < JAVA_LONG_MIN || big > JAVA_LONG_MAX) throw invalid(key.name, text, 'Not a number of type LONG');
    if (big > BigInt(LONG_MAX)) return LONG_MAX;
    if (big < -BigInt(LONG_MAX)) return -LONG_MAX;
    return Number(big);
  }
  const n = Number(trimmed);
  if (n < min || n > max) throw invalid(key.name, text, `Not a number of type ${TYPE_NAMES[key.type]}`);
  return n;
}

/** Converts the text of a property to its typed value, or throws Kafka's ConfigException. */
export function parseValue(key: ConfigKey, text: string | null): ConfigValue {
  if (text === null) return null;
  switch (key.type) {
    case 'short':
      return parseInteger(key, text, -32768, 32767);
    case 'int':
      return parseInteger(key, text, -2147483648, 2147483647);
    case 'long':
      return parseInteger(key, text, -LONG_MAX, LONG_MAX);
    case 'double': {
      const n = Number(text.trim());
      if (text.trim() === '' || Number.isNaN(n)) throw invalid(key.name, text, 'Not a number of type DOUBLE');
      return n;
    }
    case 'boolean': {
      const t = text.trim().toLowerCase();
      if (t === 'true') return true;
      if (t === 'false') return false;
      throw invalid(key.name, text, 'Expected value to be either true or false');
    }
    case 'list':
      return text.trim() === '' ? [] : text.split(',').map((s) => s.trim());
    case 'string':
    case 'password':
    case 'class':
      return text.trim();
  }
}

export function validate(key: ConfigKey, value: ConfigValue, text: string): void {
  const reason = key.validator?.check(value);
  if (reason !== undefined) throw invalid(key.name, text, reason);
}

/** Parses and validates one key's text (its default when `text` is undefined). */
export function parseKey(key: ConfigKey, text: string | null | undefined): ConfigValue {
  const effective = text === undefined ? key.defaultText : text;
  if (effective === undefined) throw new ConfigException(`Missing required configuration "${key.name}" which has no default value.`);
  const value = parseValue(key, effective);
  if (value !== null && effective !== null) validate(key, value, effective);
  return value;
}

/** Renders a typed value the way Kafka's `KafkaConfig values:` dump does. */
export function renderValue(key: ConfigKey, value: ConfigValue): string {
  if (value === null) return 'null';
  if (key.type === 'password') return '[hidden]';
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  return scalarText(key, value);
}

/** A typed value as Kafka's ConfigDef.convertToString writes it (DescribeConfigs, kafka-configs): lists comma-joined. */
export function valueText(key: ConfigKey, value: ConfigValue): string | null {
  if (value === null) return null;
  if (Array.isArray(value)) return value.join(',');
  return scalarText(key, value);
}

function scalarText(key: ConfigKey, value: number | boolean | string): string {
  if (key.type === 'long' && value === LONG_MAX) return LONG_MAX_TEXT;
  // Java's Double.toString: 1.0, not 1.
  if (key.type === 'double' && typeof value === 'number' && Number.isInteger(value)) return value.toFixed(1);
  return String(value);
}

export const atLeast = (min: number): Validator => ({
  check: (v) => (typeof v === 'number' && v < min ? `Value must be at least ${min}` : undefined),
});

export const between = (min: number, max: number): Validator => ({
  check: (v) =>
    typeof v === 'number' && (v < min || v > max) ? `Value must be no less than ${min} and no more than ${max}` : undefined,
});

/** Kafka's ValidString / ValidList.in: the value, or every element of a list, is one of `allowed`. */
export const oneOf = (...allowed: string[]): Validator => ({
  check: (v) => {
    const values = Array.isArray(v) ? v : typeof v === 'string' ? [v] : [];
    const bad = values.find((x) => !allowed.includes(x));
    return bad === undefined ? undefined : `String must be one of: ${allowed.join(', ')}`;
  },
});

export const nonEmptyList: Validator = {
  check: (v) => (Array.isArray(v) && v.length === 0 ? 'Empty list' : undefined),
};

/** A string matching `pattern`, with `reason` as the complaint otherwise. */
export const matching = (pattern: RegExp, reason: string): Validator => ({
  check: (v) => (typeof v === 'string' && !pattern.test(v) ? reason : undefined),
});

/** Every validator in turn; the first complaint wins. */
export const allOf = (...validators: Validator[]): Validator => ({
  check: (v) => {
    for (const validator of validators) {
      const reason = validator.check(v);
      if (reason !== undefined) return reason;
    }
    return undefined;
  },
});
