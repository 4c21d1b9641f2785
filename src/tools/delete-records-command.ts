import { readFileSync } from 'node:fs';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { NetworkClient } from '../client/network-client';
import { DeleteRecordsApi, DeleteRecordsTopic } from '../protocol/apis/delete-records';
import { CliError } from './cli';
import { AdminClientConfig, adminNetworkClient, javaExceptionName } from './admin-client-config';

/** The offset file's only format version (DeleteRecordsCommand.EarliestVersion). */
const EARLIEST_VERSION = 1;

export interface RecordsToDelete {
  readonly tp: TopicPartition;
  readonly offset: number;
}

function field(obj: Record<string, unknown>, name: string): unknown {
  if (!(name in obj)) throw new CliError(`No such field exists: \`${name}\``);
  return obj[name];
}

/** Kafka's DecodeJson for Int/Long/String, with its message for a value of another type. */
function asInteger(value: unknown, type: 'Int' | 'Long'): number {
  const max = type === 'Int' ? 2 ** 31 - 1 : Number.MAX_SAFE_INTEGER;
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > max) throw new CliError(`Expected \`${type}\` value, received ${JSON.stringify(value)}`);
  return value;
}

function asString(value: unknown): string {
  if (typeof value !== 'string') throw new CliError(`Expected \`String\` value, received ${JSON.stringify(value)}`);
  return value;
}

/**
 * Kafka's DeleteRecordsCommand.parseOffsetJsonStringWithoutDedup, then its duplicate check:
 * `{"partitions":[{"topic":"t","partition":0,"offset":3}],"version":1}` (version optional, 1 the only one).
 */
export function parseOffsetJson(text: string): RecordsToDelete[] {
  let js: unknown;
  try {
    js = JSON.parse(text);
  } catch {
    throw new CliError('The input string is not a valid JSON');
  }
  if (typeof js !== 'object' || js === null || Array.isArray(js)) throw new CliError(`Expected \`Map\` value, received ${JSON.stringify(js)}`);
  const root = js as Record<string, unknown>;
  const version = 'version' in root ? asInteger(root['version'], 'Int') : EARLIEST_VERSION;
  if (version !== 1) throw new CliError(`Not supported version field value ${version}`);
  if (!('partitions' in root)) throw new CliError('Missing partitions field');
  const partitions = root['partitions'];
  if (!Array.isArray(partitions)) throw new CliError(`Expected \`Array\` value, received ${JSON.stringify(partitions)}`);
  const result = partitions.map((p: unknown): RecordsToDelete => {
    if (typeof p !== 'object' || p === null || Array.isArray(p)) throw new CliError(`Expected \`Map\` value, received ${JSON.stringify(p)}`);
    const o = p as Record<string, unknown>;
    const topic = asString(field(o, 'topic'));
    const partition = asInteger(field(o, 'partition'), 'Int');
    const offset = asInteger(field(o, 'offset'), 'Long');
    return { tp: { topic, partition }, offset };
  });
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const r of result) {
    const key = tpString(r.tp);
    if (seen.has(key)) duplicates.add(key);
    seen.add(key);
  }
  if (duplicates.size > 0) throw new CliError(`Offset json file contains duplicate topic partitions: ${[...duplicates].join(',')}`);
  return result;
}

/** One partition's outcome: its new low watermark, or the error as Kafka's admin client reports it. */
export type DeleteOutcome = { lowWatermark: number } | { error: string };

/** `ExecutionException.getMessage` of an admin future failed with `errorCode`. */
export function errorText(errorCode: number): string {
  const name = errorNameOf(errorCode);
  if (name === undefined) return `org.apache.kafka.common.errors.UnknownServerException: The server experienced an unexpected error when processing the request.`;
  return `${javaExceptionName(name)}: ${ErrorCode[name].message}`;
}

/** DeleteRecordsCommand's lines after "Records delete operation completed:". */
export function formatOutcome(tp: TopicPartition, outcome: DeleteOutcome): string {
  return 'lowWatermark' in outcome ? `partition: ${tpString(tp)}\tlow_watermark: ${outcome.lowWatermark}` : `partition: ${tpString(tp)}\terror: ${outcome.error}`;
}

/**
 * Kafka's KafkaAdminClient.deleteRecords: the leaders from Metadata (a topic error fails its partitions, a
 * partition without a leader is LEADER_NOT_AVAILABLE), one DeleteRecords per leader, each partition's error as
 * the broker answered it.
 */
export async function deleteRecords(client: NetworkClient, records: readonly RecordsToDelete[], timeoutMs: number): Promise<Map<string, DeleteOutcome>> {
  const outcomes = new Map<string, DeleteOutcome>();
  const topics = [...new Set(records.map((r) => r.tp.topic))];
  await client.refreshMetadata(topics);
  const byLeader = new Map<number, RecordsToDelete[]>();
  for (const r of records) {
    const key = tpKey(r.tp.topic, r.tp.partition);
    const t = client.metadata.topics.get(r.tp.topic);
    if (t !== undefined && t.errorCode !== ErrorCode.NONE.code) {
      outcomes.set(key, { error: errorText(t.errorCode) });
      continue;
    }
    const leader = client.metadata.leaderFor(r.tp.topic, r.tp.partition) ?? -1;
    if (t === undefined) outcomes.set(key, { error: errorText(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code) });
    else if (leader < 0) outcomes.set(key, { error: errorText(ErrorCode.LEADER_NOT_AVAILABLE.code) });
    else {
      let list = byLeader.get(leader);
      if (list === undefined) byLeader.set(leader, (list = []));
      list.push(r);
    }
  }
  await Promise.all(
    [...byLeader].map(async ([leader, list]) => {
      const byTopic = new Map<string, DeleteRecordsTopic>();
      for (const r of list) {
        let t = byTopic.get(r.tp.topic);
        if (t === undefined) byTopic.set(r.tp.topic, (t = { name: r.tp.topic, partitions: [] }));
        t.partitions.push({ partitionIndex: r.tp.partition, offset: r.offset });
      }
      try {
        const response = await client.request(leader, DeleteRecordsApi, { topics: [...byTopic.values()], timeoutMs }, { timeoutMs: timeoutMs + 5000, retries: 0 });
        for (const t of response.topics) {
          for (const p of t.partitions) {
            outcomes.set(tpKey(t.name, p.partitionIndex), p.errorCode === ErrorCode.NONE.code ? { lowWatermark: p.lowWatermark } : { error: errorText(p.errorCode) });
          }
        }
      } catch (err) {
        const code = err instanceof KafkaError ? err.code : ErrorCode.NETWORK_EXCEPTION.code;
        for (const r of list) outcomes.set(tpKey(r.tp.topic, r.tp.partition), { error: errorText(code) });
      }
    }),
  );
  return outcomes;
}

/** DeleteRecordsCommand.execute: read and check the file, delete, print each partition's outcome. */
export async function runDeleteRecords(config: AdminClientConfig, offsetJsonFile: string, out: (line: string) => void): Promise<number> {
  let text: string;
  try {
    text = readFileSync(offsetJsonFile, 'utf8');
  } catch (e) {
    throw new CliError(`${offsetJsonFile} (${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'No such file or directory' : String(e)})`);
  }
  const records = parseOffsetJson(text);
  const client = adminNetworkClient(config);
  try {
    out('Executing records delete operation');
    const outcomes = await deleteRecords(client, records, config.requestTimeoutMs).catch((err: Error) => {
      throw new CliError(`Unable to delete records: ${err.message}`);
    });
    out('Records delete operation completed:');
    for (const r of records) {
      const outcome = outcomes.get(tpKey(r.tp.topic, r.tp.partition)) ?? { error: errorText(ErrorCode.UNKNOWN_SERVER_ERROR.code) };
      out(formatOutcome(r.tp, outcome));
    }
    return 0;
  } finally {
    client.close();
  }
}
