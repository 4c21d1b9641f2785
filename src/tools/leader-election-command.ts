import * as fs from 'node:fs';
import { NetworkClient } from '../client/network-client';
import { KafkaError } from '../common/kafka-error';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ElectionType, ElectLeadersApi, ElectLeadersResponse } from '../protocol/apis/elect-leaders';
import { adminClientOptions } from './admin-client-config';
import { CliError } from './cli';
import { ErrorCode } from '../common/error-codes';
import { defaultErrorMessage, exceptionClassFor, scalaHashMapOrder, topicPartitionHash } from './java-rendering';

export interface LeaderElectionOptions {
  bootstrapServer?: string;
  adminConfig?: string;
  electionType?: string;
  topic?: string;
  partition?: string;
  allTopicPartitions?: boolean;
  pathToJsonFile?: string;
}

/** Kafka's tools let an uncaught exception end the JVM: its first line, and exit status 1. */
function uncaught(exceptionClass: string, message: string): CliError {
  return new CliError(`Exception in thread "main" ${exceptionClass}: ${message}`);
}

const ADMIN_COMMAND_FAILED = 'kafka.common.AdminCommandFailedException';
const ADMIN_OPERATION = 'kafka.admin.AdminOperationException';

/** ElectionTypeConverter: PREFERRED or UNCLEAN, any case. */
export function parseElectionType(value: string): 'PREFERRED' | 'UNCLEAN' {
  const upper = value.toUpperCase();
  if (upper === 'PREFERRED' || upper === 'UNCLEAN') return upper;
  throw uncaught('joptsimple.OptionArgumentConversionException', `Cannot parse argument '${value}' of option election-type`);
}

/** LeaderElectionCommand.validate, with its messages and order of checks. */
export function checkLeaderElectionArgs(o: LeaderElectionOptions): void {
  const missing: string[] = [];
  if (o.bootstrapServer === undefined) missing.unshift('bootstrap-server');
  if (o.electionType === undefined) missing.unshift('election-type');
  if (missing.length > 0) throw uncaught(ADMIN_COMMAND_FAILED, `Missing required option(s): ${missing.join(', ')}`);
  const exclusive = [o.topic !== undefined, o.allTopicPartitions === true, o.pathToJsonFile !== undefined].filter(Boolean).length;
  if (exclusive !== 1) throw uncaught(ADMIN_COMMAND_FAILED, 'One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file');
  if (o.topic !== undefined && o.partition === undefined) throw uncaught(ADMIN_COMMAND_FAILED, 'Missing required option(s): partition');
  if (o.topic === undefined && o.partition !== undefined) throw uncaught(ADMIN_COMMAND_FAILED, 'Option partition is only allowed if topic is used');
}

/** parseReplicaElectionData: {"partitions":[{"topic":"foo","partition":1},...]}, duplicates refused. */
export function parseReplicaElectionData(text: string): TopicPartition[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw uncaught(ADMIN_OPERATION, 'Replica election data is empty');
  }
  if (typeof json !== 'object' || json === null || !('partitions' in json)) throw uncaught(ADMIN_OPERATION, 'Replica election data is missing "partitions" field');
  const list = (json as { partitions: unknown }).partitions;
  if (!Array.isArray(list)) throw uncaught(ADMIN_OPERATION, 'Replica election data is missing "partitions" field');
  const partitions = list.map((p: unknown): TopicPartition => {
    const o = p as { topic?: unknown; partition?: unknown } | null;
    if (o === null || typeof o !== 'object' || typeof o.topic !== 'string' || typeof o.partition !== 'number' || !Number.isInteger(o.partition)) {
      throw uncaught('kafka.utils.json.DecodeJson$DecodeJsonException', `Expected {"topic": string, "partition": int}, found ${JSON.stringify(p)}`);
    }
    return { topic: o.topic, partition: o.partition };
  });
  const keys = partitions.map(tpString);
  const dups = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
  if (dups.length > 0) throw uncaught(ADMIN_OPERATION, `Replica election data contains duplicate partitions: ${dups.join(',')}`);
  return partitions;
}

/** The partitions to elect: from the JSON file, the one --topic/--partition, or null for all. */
export function electionPartitions(o: LeaderElectionOptions): TopicPartition[] | null {
  if (o.pathToJsonFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(o.pathToJsonFile, 'utf8');
    } catch (e) {
      throw uncaught('java.nio.file.NoSuchFileException', `${o.pathToJsonFile} (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
    }
    return parseReplicaElectionData(text);
  }
  if (o.topic !== undefined && o.partition !== undefined) {
    if (!/^[+-]?\d+$/.test(o.partition) || Math.abs(Number(o.partition)) > 2147483647) {
      throw uncaught('joptsimple.OptionArgumentConversionException', `Cannot parse argument '${o.partition}' of option partition`);
    }
    return [{ topic: o.topic, partition: Number(o.partition) }];
  }
  return null;
}

/**
 * LeaderElectionCommand.electLeaders' report: the succeeded partitions, those that needed no election, and one
 * line per failure; returns the lines and, when some failed, the exception that ends the tool.
 */
export function renderElectionResults(electionType: string, response: ElectLeadersResponse): { lines: string[]; failure: CliError | undefined } {
  const succeeded: TopicPartition[] = [];
  const noop: TopicPartition[] = [];
  const failed: { tp: TopicPartition; error: string }[] = [];
  for (const t of response.replicaElectionResults) {
    for (const p of t.partitionResult) {
      const tp = { topic: t.topic, partition: p.partitionId };
      if (p.errorCode === ErrorCode.NONE.code) succeeded.push(tp);
      else if (p.errorCode === ErrorCode.ELECTION_NOT_NEEDED.code) noop.push(tp);
      else failed.push({ tp, error: `${exceptionClassFor(p.errorCode)}: ${p.errorMessage ?? defaultErrorMessage(p.errorCode)}` });
    }
  }
  const order = <T>(items: readonly T[], tpOf: (item: T) => TopicPartition): T[] => scalaHashMapOrder(items, (i) => topicPartitionHash(tpOf(i).topic, tpOf(i).partition));
  const lines: string[] = [];
  if (succeeded.length > 0) lines.push(`Successfully completed leader election (${electionType}) for partitions ${order(succeeded, (x) => x).map(tpString).join(', ')}`);
  if (noop.length > 0) lines.push(`Valid replica already elected for partitions ${order(noop, (x) => x).map(tpString).join(', ')}`);
  for (const f of order(failed, (x) => x.tp)) lines.push(`Error completing leader election (${electionType}) for partition: ${tpString(f.tp)}: ${f.error}`);
  return { lines, failure: failed.length > 0 ? uncaught(ADMIN_COMMAND_FAILED, `${failed.length} replica(s) could not be elected`) : undefined };
}

/** The tool's overall timeout (LeaderElectionCommand.run's 30 seconds): the request's timeoutMs. */
const TIMEOUT_MS = 30000;

/**
 * Kafka's LeaderElectionCommand (`kafka-leader-election`): ElectLeaders to the controller for the partitions
 * named (or all of them), with Kafka's report; exit status 1 when a partition could not be elected.
 */
export async function runLeaderElection(o: LeaderElectionOptions, out: (line: string) => void): Promise<number> {
  checkLeaderElectionArgs(o);
  const electionType = parseElectionType(o.electionType as string);
  const partitions = electionPartitions(o);
  const client = new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.adminConfig, '--admin.config', { clientId: 'leader-election', requestTimeoutMs: TIMEOUT_MS / 2 + TIMEOUT_MS }));
  try {
    const topicPartitions = partitions === null ? null : groupByTopic(partitions);
    let response: ElectLeadersResponse;
    try {
      response = await client.request('controller', ElectLeadersApi, { electionType: ElectionType[electionType], topicPartitions, timeoutMs: TIMEOUT_MS });
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'REQUEST_TIMED_OUT') {
        out('Timeout waiting for election results');
        throw uncaught(ADMIN_COMMAND_FAILED, 'Timeout waiting for election results');
      }
      out('Error while making request');
      throw uncaught(exceptionClassFor(err instanceof KafkaError ? err.code : -1), (err as Error).message);
    }
    if (response.errorCode !== ErrorCode.NONE.code) {
      if (response.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code) {
        out('Not authorized to perform leader election');
        throw uncaught(ADMIN_COMMAND_FAILED, 'Not authorized to perform leader election');
      }
      throw uncaught('java.util.concurrent.ExecutionException', `${exceptionClassFor(response.errorCode)}: ${defaultErrorMessage(response.errorCode)}`);
    }
    const { lines, failure } = renderElectionResults(electionType, response);
    for (const line of lines) out(line);
    if (failure !== undefined) throw failure;
    return 0;
  } finally {
    client.close();
  }
}

function groupByTopic(partitions: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of partitions) {
    let list = byTopic.get(tp.topic);
    if (!list) byTopic.set(tp.topic, (list = []));
    list.push(tp.partition);
  }
  return [...byTopic].map(([topic, ps]) => ({ topic, partitions: ps }));
}
