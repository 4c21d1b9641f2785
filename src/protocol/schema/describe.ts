import { FieldSpec, inRange, parseVersions } from './field';

/**
 * Kafka-style `{field=value,...}` rendering of a message at one version, listing only the fields that exist in
 * that version; byte fields show their size, deep or long structures are elided. For log lines, not for parsing.
 */
export function describeMessage(fields: readonly FieldSpec[], version: number, value: unknown, limit = 2000): string {
  const text = renderStruct(fields, version, value, 0);
  return text.length > limit ? `${text.slice(0, limit)}...` : text;
}

function renderStruct(fields: readonly FieldSpec[], version: number, value: unknown, depth: number): string {
  if (value === null || typeof value !== 'object') return String(value);
  if (depth > 5) return '{...}';
  const v = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const f of fields) {
    if (!inRange(version, parseVersions(f.versions))) continue;
    parts.push(`${f.name}=${renderValue(f, version, v[f.name], depth)}`);
  }
  return `{${parts.join(',')}}`;
}

function renderValue(f: FieldSpec, version: number, x: unknown, depth: number): string {
  if (x === null || x === undefined) return 'null';
  if (Buffer.isBuffer(x)) return `<${x.length} bytes>`;
  if (Array.isArray(x)) {
    if (f.type === 'records' || f.type === 'bytes') return `<${x.reduce((n: number, b: Buffer) => n + b.length, 0)} bytes>`;
    if (x.length > 50) return `[${x.length} items]`;
    if (f.type === '[]') return `[${x.map((e) => renderStruct(f.fields ?? [], version, e, depth + 1)).join(',')}]`;
    return `[${x.map(String).join(',')}]`;
  }
  return String(x);
}
