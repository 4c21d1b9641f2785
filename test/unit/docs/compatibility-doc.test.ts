import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { allApis, NEVER_ADVERTISED } from '../../../src/protocol/apis';
import { KAFKA_2_8_APIS } from '../../../src/protocol/kafka-api-versions';
import { createKafkaApis } from '../../../src/broker/kafka-apis';
import { ApiKey } from '../../../src/protocol/api-keys';
import type { HandlerContext } from '../../../src/broker/handlers/handler-context';

/**
 * The API keys a broker has handlers for: ApiVersions advertises only those (and itself). Building the handler
 * table touches no context, so a stand-in that answers everything does.
 */
function handledKeys(): Set<number> {
  const standIn: unknown = new Proxy(function () {}, { get: (_t, p) => (p === Symbol.toPrimitive ? () => 0 : standIn), apply: () => standIn });
  return new Set([...Object.keys(createKafkaApis(standIn as HandlerContext)).map(Number), ApiKey.API_VERSIONS]);
}

/**
 * docs/compatibility.md's API table is generated from the registry and the broker's handlers (what ApiVersions advertises), Kafka 2.8's
 * table and the golden fixtures (which versions each real client was seen to send), so it cannot drift from the
 * code. `UPDATE_DOCS=1 npx jest -c test/jest.unit.config.js test/unit/docs` rewrites it.
 */
const DOC = join(__dirname, '../../../docs/compatibility.md');
const FIXTURES = join(__dirname, '../../fixtures/protocol');
const BEGIN = '<!-- api-table:begin -->';
const END = '<!-- api-table:end -->';

function range(versions: number[]): string {
  if (versions.length === 0) return '';
  const sorted = [...new Set(versions)].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0] as number;
  let prev = start;
  for (const v of [...sorted.slice(1), Number.NaN]) {
    if (v === prev + 1) {
      prev = v;
      continue;
    }
    parts.push(start === prev ? `${start}` : `${start}–${prev}`);
    start = v;
    prev = v;
  }
  return parts.join(', ');
}

function clientsByApi(dirName: string): string {
  const dir = join(FIXTURES, dirName);
  if (!existsSync(dir)) return '';
  const byClient = new Map<string, number[]>();
  for (const file of readdirSync(dir)) {
    const m = /^v(\d+)-request\.([a-z-]+)\.hex$/.exec(file);
    if (!m) continue;
    const list = byClient.get(m[2] as string) ?? [];
    list.push(Number(m[1]));
    byClient.set(m[2] as string, list);
  }
  return [...byClient].sort(([a], [b]) => (a < b ? -1 : 1)).map(([client, vs]) => `${client} ${range(vs)}`).join('; ');
}

function table(): string {
  const handled = handledKeys();
  const ours = new Map(allApis().filter((a) => !NEVER_ADVERTISED.has(a.key) && handled.has(a.key)).map((a) => [a.key, a]));
  const rows = ['| key | API | Kafka 2.8 | kafka-ts | requests captured from real clients (versions) |', '|---|---|---|---|---|'];
  for (const k of KAFKA_2_8_APIS) {
    const api = ours.get(k.key);
    const served = api === undefined ? '—' : `${api.minVersion}–${api.maxVersion}`;
    const captured = api === undefined ? '' : clientsByApi(api.name.toLowerCase().replace(/_/g, '-'));
    rows.push(`| ${k.key} | ${k.name} | ${k.minVersion}–${k.maxVersion} | ${served} | ${captured} |`);
  }
  return rows.join('\n');
}

describe('docs/compatibility.md', () => {
  it('has the API table of this tree', () => {
    const doc = readFileSync(DOC, 'utf8');
    const start = doc.indexOf(BEGIN);
    const end = doc.indexOf(END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const expected = `${BEGIN}\n${table()}\n${END}`;
    const actual = doc.slice(start, end + END.length);
    if (actual !== expected && process.env['UPDATE_DOCS'] === '1') writeFileSync(DOC, doc.slice(0, start) + expected + doc.slice(end + END.length));
    else expect(actual).toBe(expected);
  });
});
