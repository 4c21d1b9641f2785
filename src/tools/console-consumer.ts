import { NetworkClient } from '../client/network-client';
import { ConsumedRecord, PartitionConsumer, StartOffset } from '../client/partition-consumer';
import { TopicPartition } from '../common/topic-partition';
import { TimestampType } from '../records';
import { formatLog4jTimestamp } from '../common/time-format';
import { CliError } from './cli';
import { intOption, parseBrokerList, parseKeyValueArgs } from './tool-properties';

export interface ConsoleConsumerOptions {
  bootstrapServer?: string;
  topic?: string;
  whitelist?: string;
  partition?: string;
  offset?: string;
  fromBeginning?: boolean;
  maxMessages?: string;
  timeoutMs?: string;
  property: string[];
  consumerProperty: string[];
  group?: string;
}

/** Kafka's DefaultMessageFormatter (2.7+ columns), driven by `--property print.key=true` and friends. */
export class MessageFormatter {
  private readonly flags: Map<string, string>;

  constructor(props: Map<string, string>) {
    this.flags = props;
  }

  private on(name: string): boolean {
    return (this.flags.get(name) ?? 'false').trim().toLowerCase() === 'true';
  }

  format(r: ConsumedRecord): string {
    const sep = this.flags.get('key.separator') ?? '\t';
    const nullLiteral = this.flags.get('null.literal') ?? 'null';
    let out = '';
    if (this.on('print.timestamp')) out += `${r.timestamp < 0 ? 'NO_TIMESTAMP' : `${r.timestampType === TimestampType.LOG_APPEND_TIME ? 'LogAppendTime' : 'CreateTime'}:${r.timestamp}`}${sep}`;
    if (this.on('print.partition')) out += `Partition:${r.partition}${sep}`;
    if (this.on('print.offset')) out += `Offset:${r.offset}${sep}`;
    if (this.on('print.headers')) out += `${r.headers.length === 0 ? 'NO_HEADERS' : r.headers.map((h) => `${h.key}:${h.value?.toString() ?? nullLiteral}`).join(this.flags.get('headers.separator') ?? ',')}${sep}`;
    if (this.on('print.key')) out += `${r.key === null ? nullLiteral : r.key.toString()}${sep}`;
    if ((this.flags.get('print.value') ?? 'true').trim().toLowerCase() !== 'false') out += r.value === null ? nullLiteral : r.value.toString();
    else if (out.endsWith(sep)) out = out.slice(0, -sep.length);
    return out + (this.flags.get('line.separator') ?? '\n');
  }
}

/**
 * Kafka's ConsoleConsumer with --bootstrap-server: prints each record of the topic (or of one --partition) from
 * the chosen start offset, stops after --max-messages or when nothing arrives for --timeout-ms, and writes
 * `Processed a total of N messages` to stderr. Without --group the partitions are assigned directly.
 */
export async function runConsoleConsumer(
  o: ConsoleConsumerOptions,
  out: (text: string) => Promise<void>,
  err: (line: string) => void,
  stopSignal: { stopped: boolean },
): Promise<number> {
  if (o.bootstrapServer === undefined) throw new CliError('Missing required option(s) [bootstrap-server]');
  if ((o.topic === undefined) === (o.whitelist === undefined)) throw new CliError('Exactly one of whitelist/topic is required.');
  if (o.partition !== undefined && o.topic === undefined) throw new CliError('The topic is required when partition is specified.');
  if (o.offset !== undefined && o.partition === undefined) throw new CliError('The partition is required when offset is specified.');
  if (o.offset !== undefined && o.fromBeginning) throw new CliError("Options from-beginning and offset cannot be specified together.");
  if (o.group !== undefined) throw new CliError('--group is not supported yet with --bootstrap-server: omit it to read the partitions directly');
  const maxMessages = intOption(o.maxMessages, '--max-messages', -1);
  const timeoutMs = intOption(o.timeoutMs, '--timeout-ms', -1);
  const formatter = new MessageFormatter(parseKeyValueArgs(o.property, '--property'));
  parseKeyValueArgs(o.consumerProperty, '--consumer-property');
  let start: StartOffset = o.fromBeginning ? 'earliest' : 'latest';
  if (o.offset !== undefined) {
    if (o.offset === 'earliest' || o.offset === 'latest') start = o.offset;
    else if (/^\d+$/.test(o.offset)) start = Number(o.offset);
    else throw new CliError(`The offset ${o.offset} is not valid: expected earliest, latest or a non-negative number`);
  }
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(o.bootstrapServer, '--bootstrap-server'), clientId: 'console-consumer' });
  let processed = 0;
  try {
    const consumer = new PartitionConsumer(client);
    await consumer.assign(await partitionsToRead(client, o), start);
    let lastRecordAt = Date.now();
    while (!stopSignal.stopped && (maxMessages < 0 || processed < maxMessages)) {
      const records = await consumer.poll();
      for (const r of records) {
        if (maxMessages >= 0 && processed >= maxMessages) break;
        await out(formatter.format(r));
        processed++;
      }
      if (records.length > 0) lastRecordAt = Date.now();
      else if (timeoutMs >= 0 && Date.now() - lastRecordAt >= timeoutMs) {
        err(`[${formatLog4jTimestamp(new Date())}] ERROR Error processing message, terminating consumer process:  (kafka.tools.ConsoleConsumer$)`);
        err('org.apache.kafka.common.errors.TimeoutException');
        break;
      }
    }
  } finally {
    client.close();
    err(`Processed a total of ${processed} messages`);
  }
  return 0;
}

async function partitionsToRead(client: NetworkClient, o: ConsoleConsumerOptions): Promise<TopicPartition[]> {
  if (o.topic !== undefined) {
    if (o.partition !== undefined) return [{ topic: o.topic, partition: intOption(o.partition, '--partition', 0) }];
    for (let attempt = 0; attempt < 100; attempt++) {
      const md = await (attempt === 0 ? client.ensureMetadata([o.topic]) : client.refreshMetadata([o.topic]).then(() => client.metadata));
      const info = md.topics.get(o.topic);
      if (info !== undefined && info.errorCode === 0 && info.partitions.length > 0) return info.partitions.map((p) => ({ topic: o.topic as string, partition: p.partition }));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new CliError(`Topic ${o.topic} has no partitions with a leader`);
  }
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${(o.whitelist as string).replace(/,/g, '|')})$`);
  } catch {
    throw new CliError(`Invalid --whitelist ${o.whitelist}: not a valid regular expression`);
  }
  await client.refreshMetadata(null);
  return [...client.metadata.topics.values()].filter((t) => pattern.test(t.name) && !t.name.startsWith('__')).flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
}
