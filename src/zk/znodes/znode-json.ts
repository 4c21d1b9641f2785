import { parseInt64 } from '../../common/int64';
/** A znode whose payload is not what Kafka writes there. Carries the path so the log says which node. */
export class ZnodeFormatError extends Error {
  constructor(path: string, reason: string) {
    super(`Invalid data at ${path}: ${reason}`);
    this.name = 'ZnodeFormatError';
  }
}

export type Json = Record<string, unknown>;

/** Compact JSON, as Kafka's Json.encodeAsBytes writes it. */
export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function decodeJsonObject(path: string, data: Buffer | null): Json {
  if (data === null) throw new ZnodeFormatError(path, 'no data');
  let parsed: unknown;
  try {
    parsed = JSON.parse(data.toString('utf8'));
  } catch {
    throw new ZnodeFormatError(path, `not JSON: ${data.toString('utf8').slice(0, 200)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ZnodeFormatError(path, 'not a JSON object');
  return parsed as Json;
}

/** Kafka's JSON ints are Java ints: 32-bit. */
function isInt32(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff;
}

export function intField(path: string, obj: Json, key: string): number {
  const v = obj[key];
  if (!isInt32(v)) throw new ZnodeFormatError(path, `field "${key}" is not an integer`);
  return v;
}

export function stringField(path: string, obj: Json, key: string): string {
  const v = obj[key];
  if (typeof v !== 'string') throw new ZnodeFormatError(path, `field "${key}" is not a string`);
  return v;
}

export function intArray(path: string, v: unknown, what: string): number[] {
  if (!Array.isArray(v) || !v.every(isInt32)) {
    throw new ZnodeFormatError(path, `${what} is not a list of integers`);
  }
  return v as number[];
}

/** Kafka writes epoch-millisecond timestamps as strings; older writers used numbers. */
export function timestampField(path: string, obj: Json, key: string): number {
  const v = obj[key];
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new ZnodeFormatError(path, `field "${key}" is not a timestamp`);
  return n;
}

/** A decimal long as Kafka writes one with toString (an offset), rounded to a double beyond 2^53. */
export function decodeDecimal(path: string, data: Buffer | null): number {
  const text = data?.toString('utf8').trim() ?? '';
  const n = parseInt64(text);
  if (n === undefined) throw new ZnodeFormatError(path, `not a decimal number: ${JSON.stringify(text.slice(0, 50))}`);
  return n;
}

/** A decimal that must fit a Java int (Kafka's `toInt`), e.g. /controller_epoch. */
export function decodeInt32Decimal(path: string, data: Buffer | null): number {
  const n = decodeDecimal(path, data);
  if (!isInt32(n)) throw new ZnodeFormatError(path, `not a 32-bit integer: ${n}`);
  return n;
}
