/**
 * Typed configuration definitions in the manner of Kafka's ConfigDef: each key has a type, a default and an
 * optional validator, and a bad value is reported as Kafka reports it:
 * `Invalid value abc for configuration num.partitions: Not a number of type INT`.
 */
export type ConfigType = 'int' | 'long' | 'short' | 'double' | 'boolean' | 'string' | 'list' | 'password' | 'class';

export type ConfigValue = number | boolean | string | string[] | null;

export interface Validator {
  /** Returns a reason when the value breaks the rule. */
  check(value: ConfigValue): string | undefined;
}

export interface ConfigKey {
  readonly name: string;
  readonly type: ConfigType;
  /** The default as Kafka documents it, in text; `null` for "no value"; `undefined` for "required". */
  readonly defaultText: string | null | undefined;
  readonly validator?: Validator;
  readonly doc?: string;
}

export class ConfigException extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigException';
  }
}

/** Java's Long.MAX_VALUE does not fit a double exactly; it is kept as this sentinel and printed as Kafka does. */
export const LONG_MAX = Number.MAX_SAFE_INTEGER;
const LONG_MAX_TEXT = '9223372036854775807';

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
  if (key.type === 'long' && trimmed === LONG_MAX_TEXT) return LONG_MAX;
  if (!/^[+-]?\d+$/.test(trimmed)) throw invalid(key.name, text, `Not a number of type ${TYPE_NAMES[key.type]}`);
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
      return parseInteger(key, text, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
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

/** Renders a typed value the way Kafka's `KafkaConfig values:` dump does. */
export function renderValue(key: ConfigKey, value: ConfigValue): string {
  if (value === null) return 'null';
  if (key.type === 'password') return '[hidden]';
  if (Array.isArray(value)) return `[${value.join(', ')}]`;
  if (key.type === 'long' && value === LONG_MAX) return LONG_MAX_TEXT;
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
