/*
 * Broker crashes the fuzzer has found and that are not fixed yet (docs/reliability.md, "Findings"). A fuzz run
 * against a cluster would otherwise stop at the first of them every time; instead `knownFinding(frame)` decodes the
 * frame as the broker would (same registry, same codec) and names the finding it would trigger, and the runner
 * skips such frames and counts them. With ABUSE_PENDING=1 nothing is skipped, so the run shows whether the fix landed.
 * Remove an entry when its fix is merged.
 */
import { ApiDefinition } from '../../src/protocol/api-definition';
import { ApiKey } from '../../src/protocol/api-keys';
import { apiByKey } from '../../src/protocol/apis';
import { CreatePartitionsRequest } from '../../src/protocol/apis/create-partitions';
import { CreateTopicsRequest } from '../../src/protocol/apis/create-topics';
import { readRequestHeaderPrefix, readRequestHeaderRest } from '../../src/protocol/headers';
import { ByteReader } from '../../src/protocol/primitives/byte-reader';

/**
 * Above this an assignment no longer fits a znode (jute.maxbuffer) even at RF 1, so the broker refuses it at
 * once: such frames are sent (F1, the whole assignment built in memory for ~2^31 partitions, is fixed).
 */
const REFUSED_PARTITIONS = 100_000;
/** Topics bigger than this are legitimate but cost the cluster minutes (100,000 partitions: 22 s to create). */
const C1_PARTITIONS = 1_000;

function partitionsAsked(apiKey: number, body: unknown): number {
  if (apiKey === ApiKey.CREATE_TOPICS) return Math.max(0, ...(body as CreateTopicsRequest).topics.map((t) => Math.max(t.numPartitions, t.assignments.length)));
  if (apiKey === ApiKey.CREATE_PARTITIONS) return Math.max(0, ...(body as CreatePartitionsRequest).topics.map((t) => t.count));
  return 0;
}

export interface KnownFinding {
  /** F<n>: a crash to fix; C<n>: legitimate but so costly that a fuzz run should not spend its time on it. */
  id: string;
  summary: string;
  /** API keys it concerns (frames of other keys are not decoded). */
  keys: readonly number[];
  matches(apiKey: number, version: number, body: unknown): boolean;
}

export const KNOWN_FINDINGS: readonly KnownFinding[] = [
  {
    id: 'C1',
    summary:
      'CreateTopics/CreatePartitions asking for 1,001 to 100,000 partitions: valid (Kafka 2.8 has no limit either), and the cluster spends seconds to minutes creating them; not a bug, skipped so runs stay comparable',
    keys: [ApiKey.CREATE_TOPICS, ApiKey.CREATE_PARTITIONS],
    matches: (apiKey, _version, body) => {
      const n = partitionsAsked(apiKey, body);
      return n > C1_PARTITIONS && n <= REFUSED_PARTITIONS;
    },
  },
];

const KNOWN_KEYS: ReadonlySet<number> = new Set(KNOWN_FINDINGS.flatMap((f) => f.keys));

/** Whether known findings (and costly cases) are skipped: yes unless ABUSE_PENDING=1. */
export function skipKnownFindings(): boolean {
  return process.env['ABUSE_PENDING'] !== '1';
}

/** The known finding this request frame (header + body) would trigger, if any. */
export function knownFinding(frame: Buffer): KnownFinding | undefined {
  if (frame.length < 2 || !KNOWN_KEYS.has(frame.readInt16BE(0))) return undefined;
  let apiKey: number;
  let version: number;
  let body: unknown;
  try {
    const r = new ByteReader(frame);
    const prefix = readRequestHeaderPrefix(r);
    const api = apiByKey(prefix.apiKey) as ApiDefinition | undefined;
    if (api === undefined || !api.isSupported(prefix.apiVersion)) return undefined;
    readRequestHeaderRest(r, api.requestHeaderVersion(prefix.apiVersion));
    body = api.decodeRequest(prefix.apiVersion, r);
    apiKey = prefix.apiKey;
    version = prefix.apiVersion;
  } catch {
    return undefined; // the broker refuses it before any handler runs
  }
  return KNOWN_FINDINGS.find((f) => f.matches(apiKey, version, body));
}
