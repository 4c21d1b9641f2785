import { KafkaError } from '../kafka-error';
import { ConfigKey } from './config-def';
import { LOG_CONFIG_DEFS } from './log-config';

/** IncrementalAlterConfigs' operations (AlterConfigOp.OpType), by wire id. */
export const OP_SET = 0;
export const OP_DELETE = 1;
export const OP_APPEND = 2;
export const OP_SUBTRACT = 3;

const OP_NAMES: Readonly<Record<number, string>> = { [OP_SET]: 'SET', [OP_DELETE]: 'DELETE', [OP_APPEND]: 'APPEND', [OP_SUBTRACT]: 'SUBTRACT' };

export interface ConfigOp {
  readonly name: string;
  readonly op: number;
  readonly value: string | null;
}

/** AlterConfigOp.OpType's name for a wire id ("SET"), as Kafka's messages print it. */
export function opTypeName(op: number): string {
  return OP_NAMES[op] ?? String(op);
}

/** Java's String.split(","): trailing empty strings are dropped, except that "" splits into [""]. */
function javaSplit(text: string): string[] {
  const parts = text.split(',');
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.length === 1 && parts[0] === '' && text !== '' ? [] : parts;
}

/** Scala's List.diff: each element of `remove` takes away one occurrence. */
function multisetDiff(from: readonly string[], remove: readonly string[]): string[] {
  const left = [...remove];
  return from.filter((x) => {
    const i = left.indexOf(x);
    if (i < 0) return true;
    left.splice(i, 1);
    return false;
  });
}

/**
 * The checks Kafka's ZkAdminManager.incrementalAlterConfigs makes on a resource's operations before it reads the
 * stored configs: one operation per key ("Error due to duplicate config keys : a,b") and a value for every
 * operation but DELETE ("Null value not supported for : SET:a,APPEND:b"), both INVALID_REQUEST. An operation
 * id Kafka does not know is refused here too (INVALID_REQUEST).
 */
export function checkConfigOps(ops: readonly ConfigOp[]): void {
  const counts = new Map<string, number>();
  for (const o of ops) counts.set(o.name, (counts.get(o.name) ?? 0) + 1);
  const duplicates = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  if (duplicates.length > 0) throw new KafkaError('INVALID_REQUEST', `Error due to duplicate config keys : ${duplicates.join(',')}`);
  const unknown = ops.filter((o) => OP_NAMES[o.op] === undefined);
  if (unknown.length > 0) throw new KafkaError('INVALID_REQUEST', `Unknown config operation type ${unknown[0]?.op} for config key: ${unknown[0]?.name}`);
  const nulls = ops.filter((o) => o.value === null && o.op !== OP_DELETE).map((o) => `${opTypeName(o.op)}:${o.name}`);
  if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for : ${nulls.join(',')}`);
}

/**
 * Kafka's prepareIncrementalConfigs (a topic's keys, or the broker's `defs`): the operations applied in order to the stored overrides. SET
 * sets, DELETE removes, APPEND and SUBTRACT edit a list-type key's comma-separated value (the stored one, else
 * the key's default): unknown keys are INVALID_CONFIG ("Unknown topic config name: x"), other keys
 * INVALID_REQUEST ("Config value append is not allowed for config key: x"). The result is not validated here
 * (validateLogConfig does that).
 */
export function applyIncrementalConfigOps(stored: ReadonlyMap<string, string>, ops: readonly ConfigOp[], defs: readonly ConfigKey[] = LOG_CONFIG_DEFS): Map<string, string> {
  const config = new Map(stored);
  for (const o of ops) {
    if (o.op === OP_SET) config.set(o.name, o.value ?? '');
    else if (o.op === OP_DELETE) config.delete(o.name);
    else {
      const verb = o.op === OP_APPEND ? 'append' : 'subtract';
      const def = defs.find((d) => d.name === o.name);
      if (def === undefined) throw new KafkaError('INVALID_CONFIG', `Unknown topic config name: ${o.name}`);
      if (def.type !== 'list') throw new KafkaError('INVALID_REQUEST', `Config value ${verb} is not allowed for config key: ${o.name}`);
      const old = javaSplit(config.get(o.name) ?? def.defaultText ?? '');
      const given = javaSplit(o.value ?? '');
      config.set(o.name, (o.op === OP_APPEND ? [...old, ...given] : multisetDiff(old, given)).join(','));
    }
  }
  return config;
}
