import { ConsumedRecord } from '../client/partition-consumer';
import { SYSTEM_CLOCK } from '../common/time';
import { formatLog4jTimestamp } from '../common/time-format';
import { TimestampType } from '../records';
import { KafkaError } from '../common/kafka-error';
import { javaExceptionName } from './admin-client-config';
import { CliError } from './cli';
import { intOption, parseKeyValueArgs } from './tool-properties';
import { readClientProperties } from './tool-client-connection';
import { groupMetadataMessageFormatter, InternalTopicFormatter, offsetsMessageFormatter, transactionLogMessageFormatter } from './internal-topic-formatters';

/** What every console consumer mode takes from the options. */
export interface ConsoleLimitOptions {
  maxMessages?: string;
  timeoutMs?: string;
  property: string[];
  consumerProperty: string[];
  consumerConfig?: string;
  /** --formatter: the class name of Kafka's formatter (kafka.tools.DefaultMessageFormatter by default). */
  formatter?: string;
}

/** What prints a record: one line with its separator, or "" for a record the formatter skips. */
export interface RecordFormatter {
  format(r: ConsumedRecord): string;
}

/** The formatters `--formatter` names, by their Java class names (Class.forName's: nested classes with `$`). */
const INTERNAL_TOPIC_FORMATTERS = new Map<string, InternalTopicFormatter>([
  ['kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter', offsetsMessageFormatter],
  ['kafka.coordinator.group.GroupMetadataManager$GroupMetadataMessageFormatter', groupMetadataMessageFormatter],
  ['kafka.coordinator.transaction.TransactionLog$TransactionLogMessageFormatter', transactionLogMessageFormatter],
]);

/** The formatter of `--formatter` (DefaultMessageFormatter with `--property` when absent); an unknown class is Kafka's ClassNotFoundException. */
export function formatterFor(className: string | undefined, props: Map<string, string>): RecordFormatter {
  if (className === undefined || className === 'kafka.tools.DefaultMessageFormatter') return new MessageFormatter(props);
  const internal = INTERNAL_TOPIC_FORMATTERS.get(className);
  if (internal === undefined) throw new CliError(`java.lang.ClassNotFoundException: ${className}`);
  return { format: internal };
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
 * The consumer's isolation.level (read_uncommitted unless given, as Kafka's ConsumerConfig), refused with its
 * ConfigException line when it is neither value.
 */
export function isolationLevelOf(props: Map<string, string>): 'read_uncommitted' | 'read_committed' {
  const level = props.get('isolation.level') ?? 'read_uncommitted';
  if (level !== 'read_uncommitted' && level !== 'read_committed') {
    throw new CliError(`Invalid value ${level} for configuration isolation.level: String must be one of: read_committed, read_uncommitted`);
  }
  return level;
}

/** Where the console consumer's records come from: assigned partitions, a group, or the ZooKeeper consumer. */
export interface RecordSource {
  /** Up to `max` records; they count as consumed once returned. */
  poll(max: number): Promise<ConsumedRecord[]>;
}

export interface ConsoleLimits {
  maxMessages: number;
  timeoutMs: number;
  formatter: RecordFormatter;
  consumerProps: Map<string, string>;
}

export function consoleLimits(o: ConsoleLimitOptions): ConsoleLimits {
  return {
    maxMessages: intOption(o.maxMessages, '--max-messages', -1),
    timeoutMs: intOption(o.timeoutMs, '--timeout-ms', -1),
    formatter: formatterFor(o.formatter, parseKeyValueArgs(o.property, '--property')),
    // Kafka's ConsoleConsumer: --consumer.config first, --consumer-property on top.
    consumerProps: new Map([...readClientProperties(o.consumerConfig, '--consumer.config'), ...parseKeyValueArgs(o.consumerProperty, '--consumer-property')]),
  };
}

/**
 * Kafka's ConsoleConsumer.process: an exception from the consumer (TopicAuthorizationException, ...) is logged
 * with this line and ends the run; process then returns normally, so the count follows and the exit status is 0.
 * Anything but a KafkaError is the tool's own failure and goes on up.
 */
export function reportConsumerFailure(e: unknown, err: (line: string) => void): void {
  if (!(e instanceof KafkaError)) throw e;
  err(`[${formatLog4jTimestamp(new Date())}] ERROR Error processing message, terminating consumer process:  (kafka.tools.ConsoleConsumer$)`);
  err(`${javaExceptionName(e.errorName)}: ${e.message}`);
}

/** Prints records until --max-messages, a stop signal, or --timeout-ms without a record; returns the count. */
export async function consumeLoop(
  source: RecordSource,
  limits: ConsoleLimits,
  out: (text: string) => Promise<void>,
  err: (line: string) => void,
  stopSignal: { stopped: boolean },
  onTimeout = 'org.apache.kafka.common.errors.TimeoutException',
): Promise<number> {
  const { maxMessages, timeoutMs, formatter } = limits;
  let processed = 0;
  let lastRecordAt = SYSTEM_CLOCK.nowMs();
  while (!stopSignal.stopped && (maxMessages < 0 || processed < maxMessages)) {
    const records = await source.poll(maxMessages < 0 ? Number.MAX_SAFE_INTEGER : maxMessages - processed);
    for (const r of records) {
      await out(formatter.format(r));
      processed++;
    }
    if (records.length > 0) lastRecordAt = SYSTEM_CLOCK.nowMs();
    else if (timeoutMs >= 0 && SYSTEM_CLOCK.nowMs() - lastRecordAt >= timeoutMs) {
      err(`[${formatLog4jTimestamp(new Date())}] ERROR Error processing message, terminating consumer process:  (kafka.tools.ConsoleConsumer$)`);
      err(onTimeout);
      break;
    }
  }
  return processed;
}

