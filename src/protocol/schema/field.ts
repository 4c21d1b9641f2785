/**
 * Declarative message schemas in the spirit of Kafka's clients/src/main/resources/common/message/*.json:
 * each field names its type and the versions it exists in ("0+", "3-4", "none"); nullable forms and defaults are
 * declared, and struct arrays carry their own field list. One generic codec (codec.ts) interprets them.
 *
 * Types: int8 int16 int32 int64 float64 bool string bytes records uuid, "[]T" for arrays of a primitive T,
 * "[]" (with `fields`) for arrays of structs, "{}" (with `fields`) for one struct. A field with a `tag` is a tagged
 * field (KIP-482) in the flexible versions it exists in: written in the struct's tag section only when it differs
 * from its default (null for a struct: absent), read from there whatever its place in the list. `records` is NULLABLE_BYTES carrying a message set or record batches:
 * it is decoded as a Buffer slice and encoded from a Buffer or a list of Buffers, never parsed here.
 */
export type PrimitiveType = 'int8' | 'int16' | 'int32' | 'int64' | 'float64' | 'bool' | 'string' | 'bytes' | 'records' | 'uuid';

export type FieldType = PrimitiveType | `[]${PrimitiveType}` | '[]' | '{}';

export interface FieldSpec {
  readonly name: string;
  readonly type: FieldType;
  /** Versions the field is present in: "0+", "1-4", "3", "none". */
  readonly versions: string;
  /** Versions in which null is legal (strings, bytes, records, arrays). */
  readonly nullableVersions?: string;
  /** Value used when the field is absent from the version being decoded or missing when encoding. */
  readonly default?: unknown;
  /** Fields of each element for "[]" (struct array), or of the struct for "{}". */
  readonly fields?: readonly FieldSpec[];
  /** Tag of a tagged field (Kafka's "tag" with "taggedVersions" = the field's flexible versions). */
  readonly tag?: number;
}

export interface FieldOptions {
  nullable?: string;
  default?: unknown;
  tag?: number;
}

/** Shorthand used by the API files: f('throttleTimeMs', 'int32', '1+'). */
export function f(name: string, type: Exclude<FieldType, '[]' | '{}'>, versions: string, options: FieldOptions = {}): FieldSpec {
  return { name, type, versions, nullableVersions: options.nullable, default: options.default, tag: options.tag };
}

/** A struct array: s('topics', '0+', [...fields]). */
export function s(name: string, versions: string, fields: readonly FieldSpec[], options: FieldOptions = {}): FieldSpec {
  return { name, type: '[]', versions, fields, nullableVersions: options.nullable, default: options.default, tag: options.tag };
}

/** One struct (Kafka's struct-typed field), so far only as a tagged field: st('divergingEpoch', '12+', [...], { tag: 0 }). */
export function st(name: string, versions: string, fields: readonly FieldSpec[], options: FieldOptions = {}): FieldSpec {
  return { name, type: '{}', versions, fields, nullableVersions: options.nullable, default: options.default ?? null, tag: options.tag };
}

export interface VersionRange {
  readonly lo: number;
  readonly hi: number;
}

const NONE: VersionRange = { lo: 1, hi: 0 };

export function parseVersions(text: string | undefined): VersionRange {
  if (text === undefined || text === 'none') return NONE;
  const plus = /^(\d+)\+$/.exec(text);
  if (plus) return { lo: Number(plus[1]), hi: Number.MAX_SAFE_INTEGER };
  const range = /^(\d+)-(\d+)$/.exec(text);
  if (range) return { lo: Number(range[1]), hi: Number(range[2]) };
  if (/^\d+$/.test(text)) return { lo: Number(text), hi: Number(text) };
  throw new Error(`Invalid version range "${text}"`);
}

export function inRange(version: number, range: VersionRange): boolean {
  return version >= range.lo && version <= range.hi;
}
