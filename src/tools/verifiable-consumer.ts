import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { SYSTEM_CLOCK } from '../common/time';
import { javaExceptionName } from './admin-client-config';
import { TopicPartition, tpString } from '../common/topic-partition';
import { NetworkClient } from '../client/network-client';
import { ConsumedRecord } from '../client/partition-consumer';
import { GroupConsumer } from '../rebalance/group-consumer';
import { CliError } from './cli';
import { Argparse4j } from './argparse4j';
import { intOption, parseBrokerList } from './tool-properties';
import { toolClientConnection } from './tool-client-connection';

const ARGS = new Argparse4j('verifiable-consumer');

/** What bin/kafka-verifiable-consumer.ts hands over (commander's option names). */
export interface VerifiableConsumerOptions {
  topic?: string;
  bootstrapServer?: string;
  brokerList?: string;
  groupId?: string;
  groupInstanceId?: string;
  maxMessages?: string;
  sessionTimeout?: string;
  verbose?: boolean;
  enableAutocommit?: boolean;
  resetPolicy?: string;
  assignmentStrategy?: string;
  consumerConfig?: string;
}

export interface PartitionSummary {
  topic: string;
  partition: number;
  count: number;
  minOffset: number;
  maxOffset: number;
}

/*
 * The JSON events, with the field order of Kafka's Jackson beans (@JsonPropertyOrder({"timestamp", "name"}), then
 * fields in declaration order); TopicPartition is written {"topic","partition"} by the tool's own serializer.
 */

const partitionList = (partitions: readonly TopicPartition[]): { topic: string; partition: number }[] => partitions.map((p) => ({ topic: p.topic, partition: p.partition }));

export function consumerEvent(timestamp: number, name: 'startup_complete' | 'shutdown_complete'): string {
  return JSON.stringify({ timestamp, name });
}

export function partitionsEvent(timestamp: number, name: 'partitions_revoked' | 'partitions_assigned', partitions: readonly TopicPartition[]): string {
  return JSON.stringify({ timestamp, name, partitions: partitionList(partitions) });
}

export function recordsConsumed(timestamp: number, count: number, partitions: readonly PartitionSummary[]): string {
  return JSON.stringify({ timestamp, name: 'records_consumed', count, partitions: partitions.map((p) => ({ topic: p.topic, partition: p.partition, count: p.count, minOffset: p.minOffset, maxOffset: p.maxOffset })) });
}

export function recordData(timestamp: number, key: string | null, value: string | null, topic: string, partition: number, offset: number): string {
  return JSON.stringify({ timestamp, name: 'record_data', key, value, topic, partition, offset });
}

/** `error` is left out when null (@JsonInclude(NON_NULL)). */
export function offsetsCommitted(timestamp: number, offsets: readonly { topic: string; partition: number; offset: number }[], error: string | null): string {
  const event: Record<string, unknown> = { timestamp, name: 'offsets_committed', offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })) };
  if (error !== null) event['error'] = error;
  event['success'] = error === null;
  return JSON.stringify(event);
}

const ASSIGNORS: Record<string, 'range' | 'roundrobin'> = {
  'org.apache.kafka.clients.consumer.RangeAssignor': 'range',
  'org.apache.kafka.clients.consumer.RoundRobinAssignor': 'roundrobin',
};

/**
 * The records of one poll by partition, in the order the partitions first appear (ConsumerRecords' order), cut
 * at `remaining` records as Kafka's onRecordsReceived cuts them.
 */
export function summarize(records: readonly ConsumedRecord[], remaining: number): { summaries: PartitionSummary[]; taken: ConsumedRecord[] } {
  const byPartition = new Map<string, ConsumedRecord[]>();
  for (const r of records) {
    const key = tpString(r);
    let list = byPartition.get(key);
    if (!list) byPartition.set(key, (list = []));
    list.push(r);
  }
  const summaries: PartitionSummary[] = [];
  const taken: ConsumedRecord[] = [];
  for (const list of byPartition.values()) {
    const part = list.slice(0, Math.max(0, remaining - taken.length));
    if (part.length === 0) continue;
    const first = part[0] as ConsumedRecord;
    const last = part[part.length - 1] as ConsumedRecord;
    summaries.push({ topic: first.topic, partition: first.partition, count: part.length, minOffset: first.offset, maxOffset: last.offset });
    taken.push(...part);
    if (taken.length >= remaining) break;
  }
  return { summaries, taken };
}

/**
 * Kafka's VerifiableConsumer: a group member of --topic printing its rebalances, each poll's records and (without
 * --enable-autocommit) each synchronous commit of what that poll returned, until --max-messages or SIGTERM.
 */
export async function runVerifiableConsumer(o: VerifiableConsumerOptions, out: (line: string) => void, stop: { stopped: boolean }): Promise<number> {
  if (o.bootstrapServer === undefined && o.brokerList === undefined) throw ARGS.error('one of the arguments --bootstrap-server --broker-list is required');
  if (o.bootstrapServer !== undefined && o.brokerList !== undefined) throw ARGS.error('argument --broker-list: not allowed with argument --bootstrap-server');
  if (o.topic === undefined) throw ARGS.error('argument --topic is required');
  if (o.groupId === undefined) throw ARGS.error('argument --group-id is required');
  const maxMessages = ARGS.int(o.maxMessages, '--max-messages', -1);
  const sessionTimeout = ARGS.int(o.sessionTimeout, '--session-timeout', 30000);
  const props = ARGS.propertiesFile(o.consumerConfig);
  // Kafka loads the file first and then sets the command line's values over it.
  const strategy = o.assignmentStrategy ?? 'org.apache.kafka.clients.consumer.RangeAssignor';
  const assignor = ASSIGNORS[strategy];
  if (assignor === undefined) throw new CliError(`Invalid value ${strategy} for configuration partition.assignment.strategy: only ${Object.keys(ASSIGNORS).join(' and ')} are supported here`);
  const reset = o.resetPolicy ?? 'earliest';
  if (reset !== 'earliest' && reset !== 'latest') {
    if (reset === 'none') throw new CliError('Invalid value none for configuration auto.offset.reset: this consumer supports earliest and latest only');
    throw new CliError(`Invalid value ${reset} for configuration auto.offset.reset: String must be one of: latest, earliest, none`);
  }
  const useAutoCommit = o.enableAutocommit === true;
  const servers = (o.bootstrapServer ?? o.brokerList) as string;
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(servers, o.bootstrapServer !== undefined ? '--bootstrap-server' : '--broker-list'), clientId: props.get('client.id') ?? 'consumer-1', ...toolClientConnection(props, '--consumer.config') });
  const consumer = new GroupConsumer(client, {
    groupId: o.groupId,
    topics: [o.topic],
    groupInstanceId: o.groupInstanceId ?? null,
    assignor,
    autoOffsetReset: reset,
    sessionTimeoutMs: sessionTimeout,
    heartbeatIntervalMs: intOption(props.get('heartbeat.interval.ms'), 'heartbeat.interval.ms', 3000),
    enableAutoCommit: useAutoCommit,
    autoCommitIntervalMs: intOption(props.get('auto.commit.interval.ms'), 'auto.commit.interval.ms', 5000),
    listener: {
      onPartitionsRevoked: (partitions) => out(partitionsEvent(SYSTEM_CLOCK.nowMs(), 'partitions_revoked', partitions)),
      onPartitionsAssigned: (partitions) => out(partitionsEvent(SYSTEM_CLOCK.nowMs(), 'partitions_assigned', partitions)),
    },
  });
  let consumed = 0;
  const finished = (): boolean => maxMessages >= 0 && consumed >= maxMessages;
  try {
    out(consumerEvent(SYSTEM_CLOCK.nowMs(), 'startup_complete'));
    await consumer.start();
    while (!finished() && !stop.stopped) {
      // poll(Long.MAX_VALUE) returns only with records: empty rounds are not reported.
      const records = await consumer.poll(maxMessages < 0 ? Number.MAX_SAFE_INTEGER : maxMessages - consumed);
      if (records.length === 0) continue;
      const { summaries, taken } = summarize(records, maxMessages < 0 ? Number.MAX_SAFE_INTEGER : maxMessages - consumed);
      if (o.verbose) for (const r of taken) out(recordData(SYSTEM_CLOCK.nowMs(), r.key?.toString() ?? null, r.value?.toString() ?? null, r.topic, r.partition, r.offset));
      consumed += taken.length;
      out(recordsConsumed(SYSTEM_CLOCK.nowMs(), records.length, summaries));
      if (!useAutoCommit) {
        const offsets = new Map(summaries.map((s) => [tpString(s), { tp: { topic: s.topic, partition: s.partition }, offset: s.maxOffset + 1 }]));
        const committed = summaries.map((s) => ({ topic: s.topic, partition: s.partition, offset: s.maxOffset + 1 }));
        try {
          await consumer.commit(offsets);
          out(offsetsCommitted(SYSTEM_CLOCK.nowMs(), committed, null));
        } catch (err) {
          out(offsetsCommitted(SYSTEM_CLOCK.nowMs(), committed, err instanceof Error ? err.message : String(err)));
        }
      }
    }
  } catch (e) {
    // Kafka's run(): the error goes to the log, not stdout, and the consumer shuts down (exit status 0).
    if (!(e instanceof KafkaError)) throw e;
    getLogger('org.apache.kafka.tools.VerifiableConsumer').error(`Error during processing, terminating consumer process: ${javaExceptionName(e.errorName)}: ${e.message}`);
  } finally {
    await consumer.close().catch(() => undefined);
    client.close();
    out(consumerEvent(SYSTEM_CLOCK.nowMs(), 'shutdown_complete'));
  }
  return 0;
}
