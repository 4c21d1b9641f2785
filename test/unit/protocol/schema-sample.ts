import { FieldSpec, inRange, parseVersions } from '../../../src/protocol/schema/field';

/**
 * Deterministic sample bodies for a schema at one version: every present field gets a non-default value (strings
 * with a non-ASCII character, two-element arrays, nulls where nullable on odd depths), absent fields are omitted.
 */
export function sampleBody(fields: readonly FieldSpec[], version: number, seed = 1): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let n = seed;
  for (const f of fields) {
    if (!inRange(version, parseVersions(f.versions))) continue;
    n++;
    const nullable = inRange(version, parseVersions(f.nullableVersions));
    if (nullable && n % 5 === 0) {
      out[f.name] = null;
      continue;
    }
    out[f.name] = sampleValue(f, version, n);
  }
  return out;
}

function sampleValue(f: FieldSpec, version: number, n: number): unknown {
  if (f.type === '[]') return [sampleBody(f.fields ?? [], version, n + 1), sampleBody(f.fields ?? [], version, n + 2)];
  if (f.type === '{}') return sampleBody(f.fields ?? [], version, n + 1);
  if (f.type.startsWith('[]')) return [primitive(f.type.slice(2), n), primitive(f.type.slice(2), n + 1)];
  return primitive(f.type, n);
}

function primitive(type: string, n: number): unknown {
  switch (type) {
    case 'int8':
      return (n % 100) - 50;
    case 'int16':
      return n * 7 - 300;
    case 'int32':
      return n * 100003 - 7;
    case 'int64':
      return n * 1700000000001;
    case 'float64':
      return n / 3;
    case 'bool':
      return n % 2 === 0;
    case 'string':
      return `s${n}-é`;
    case 'bytes':
    case 'records':
      return Buffer.from(`bytes-${n}`);
    case 'uuid':
      return Buffer.alloc(16, n);
    default:
      throw new Error(type);
  }
}

/** Compares a decoded body with the sample on the fields present at that version. */
export function presentFieldsEqual(fields: readonly FieldSpec[], version: number, expected: Record<string, unknown>, actual: Record<string, unknown>): boolean {
  for (const f of fields) {
    if (!inRange(version, parseVersions(f.versions))) continue;
    const e = expected[f.name];
    const a = actual[f.name];
    if (f.type === '[]' && Array.isArray(e)) {
      if (!Array.isArray(a) || a.length !== e.length) return false;
      for (let i = 0; i < e.length; i++) {
        if (!presentFieldsEqual(f.fields ?? [], version, e[i] as Record<string, unknown>, a[i] as Record<string, unknown>)) return false;
      }
    } else if (f.type === '{}' && e !== null && typeof e === 'object') {
      if (a === null || typeof a !== 'object') return false;
      if (!presentFieldsEqual(f.fields ?? [], version, e as Record<string, unknown>, a as Record<string, unknown>)) return false;
    } else if (JSON.stringify(e) !== JSON.stringify(a)) {
      return false;
    }
  }
  return true;
}
