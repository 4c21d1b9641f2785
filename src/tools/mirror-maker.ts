import * as fs from 'node:fs';
import { NetworkClient } from '../client/network-client';
import type { ConsumedRecord } from '../client/partition-consumer';
import { Producer } from '../client/producer';
import { parseProperties } from '../common/config/properties';
import { toolClientConnection } from './tool-client-connection';
import { getLogger, Logger } from '../common/logging/logging';
import { TopicPartition, tpString } from '../common/topic-partition';
import { CompressionType } from '../records';
import { GroupConsumer } from '../rebalance/group-consumer';
import { ZookeeperConsumer } from '../rebalance/zookeeper-consumer';
import { TimestampType } from '../records/timestamp-type';
import { CliError } from './cli';
import { parseBrokerList } from './tool-properties';

export interface MirrorMakerOptions {
  consumerConfig?: string;
  producerConfig?: string;
  whitelist?: string;
  numStreams?: string;
  offsetCommitIntervalMs?: string;
  abortOnSendFailure?: string;
  consumerRebalanceListener?: string;
  rebalanceListenerArgs?: string;
  messageHandler?: string;
  messageHandlerArgs?: string;
}

/** What the checks of Kafka's MirrorMaker.main leave to run with. */
export interface MirrorMakerSettings {
  consumerProps: Map<string, string>;
  producerProps: Map<string, string>;
  whitelist: string;
  numStreams: number;
  offsetCommitIntervalMs: number;
  abortOnSendFailure: boolean;
}

/** Kafka's MirrorMaker logs through log4j's config/log4j.properties (kafka-run-class.sh's default): INFO to stdout. */
export const MIRROR_MAKER_LOG4J = 'log4j.rootLogger=INFO, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\n';

const ASSIGNMENT_WARNING =
  "WARNING: The default partition assignment strategy of the mirror maker will change from 'range' to 'roundrobin' in an upcoming release (so that better load balancing can be achieved). If you prefer to make this switch in advance of that release add the following to the corresponding config: 'partition.assignment.strategy=org.apache.kafka.clients.consumer.RoundRobinAssignor'";

/** The classes Kafka would load by name: kafka-ts runs no Java, so these options are refused. */
const JAVA_CLASS_OPTIONS: [keyof MirrorMakerOptions, string][] = [
  ['consumerRebalanceListener', 'consumer.rebalance.listener'],
  ['rebalanceListenerArgs', 'rebalance.listener.args'],
  ['messageHandler', 'message.handler'],
  ['messageHandlerArgs', 'message.handler.args'],
];

/** joptsimple's ofType(Integer): a Java int or the parser's one line. */
function javaInt(text: string | undefined, option: string, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!/^[-+]?\d{1,10}$/.test(text) || n < -0x80000000 || n > 0x7fffffff) throw new CliError(`Cannot parse argument '${text}' of option ${option}`);
  return n;
}

/** Scala's String.toBoolean: "true" or "false" in any case, anything else an IllegalArgumentException. */
function scalaBoolean(text: string): boolean {
  const lower = text.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  throw new CliError(`java.lang.IllegalArgumentException: For input string: "${text}"`);
}

/** Utils.loadProps: a missing file is Java's FileNotFoundException. */
function loadProps(file: string): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CliError(`java.io.FileNotFoundException: ${file} (${code === 'ENOENT' ? 'No such file or directory' : code === 'EACCES' ? 'Permission denied' : String(code)})`);
  }
  return parseProperties(text);
}

/**
 * Kafka's IncludeList (kafka.utils.Whitelist in MirrorMaker) regex: commas become alternatives, blanks and the
 * quotes a properties file may bring are dropped. The whole topic name must match (Pattern.matcher().matches()).
 */
export function includeListRegex(raw: string): string {
  return raw.trim().replace(/,/g, '|').replace(/ /g, '').replace(/^["']+/, '').replace(/["']+$/, '');
}

/** The topic filter of `--whitelist`, or undefined when Java would not compile it either (PatternSyntaxException). */
export function whitelistMatcher(raw: string): ((topic: string) => boolean) | undefined {
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${includeListRegex(raw)})$`);
  } catch {
    return undefined;
  }
  return (topic) => pattern.test(topic);
}

/**
 * Kafka's maybeSetDefaultProperty: the default where the file is silent, and an INFO line where the file's
 * value differs from it (the no-data-loss settings are Kafka's reason to set them).
 */
function maybeSetDefault(props: Map<string, string>, name: string, fallback: string, log: Logger): void {
  const given = props.get(name);
  props.set(name, given ?? fallback);
  if (props.get(name) !== fallback) log.info(`Property ${name} is overridden to ${String(given)} - data loss or message reordering is possible.`);
}

/**
 * MirrorMaker's producer defaults for no data loss, in Kafka's order: delivery.timeout.ms and max.block.ms at
 * their maximum, acks=all, max.in.flight.requests.per.connection=1 (ordered retries); the byte-array serializers
 * are forced. `producer.type` is MirrorMaker's own key and is taken out (sync: each send waits for its answer).
 */
export function producerOverrides(props: ReadonlyMap<string, string>, log: Logger): { props: Map<string, string>; sync: boolean } {
  const out = new Map(props);
  const sync = (out.get('producer.type') ?? 'async') === 'sync';
  out.delete('producer.type');
  maybeSetDefault(out, 'delivery.timeout.ms', String(0x7fffffff), log);
  maybeSetDefault(out, 'max.block.ms', '9223372036854775807', log);
  maybeSetDefault(out, 'acks', 'all', log);
  maybeSetDefault(out, 'max.in.flight.requests.per.connection', '1', log);
  out.set('key.serializer', 'org.apache.kafka.common.serialization.ByteArraySerializer');
  out.set('value.serializer', 'org.apache.kafka.common.serialization.ByteArraySerializer');
  return { props: out, sync };
}

/**
 * MirrorMaker's consumer settings: no auto commit (MirrorMaker commits after the producer flushed), byte-array
 * deserializers, and client.id `<group.id>-<stream>` per stream. The ZooKeeper consumer's key is
 * auto.commit.enable (Kafka 1.x's MirrorMaker set that one for it).
 */
export function consumerOverrides(props: ReadonlyMap<string, string>, stream: number, log: Logger): Map<string, string> {
  const out = new Map(props);
  if (out.has('zookeeper.connect') && !out.has('bootstrap.servers')) {
    maybeSetDefault(out, 'auto.commit.enable', 'false', log);
  } else {
    maybeSetDefault(out, 'enable.auto.commit', 'false', log);
    out.set('key.deserializer', 'org.apache.kafka.common.serialization.ByteArrayDeserializer');
    out.set('value.deserializer', 'org.apache.kafka.common.serialization.ByteArrayDeserializer');
  }
  out.set('client.id', `${String(out.get('group.id'))}-${stream}`);
  return out;
}

/**
 * The checks of Kafka's MirrorMaker.main, in its order: the Java-class options (refused here), the required
 * configs, the config files, --whitelist, and the numbers. Logs what Kafka logs; throws CliError with one line.
 */
export function checkMirrorMakerOptions(o: MirrorMakerOptions, log: Logger, warn: (line: string) => void): MirrorMakerSettings {
  for (const [key, option] of JAVA_CLASS_OPTIONS) {
    if (o[key] !== undefined) throw new CliError(`Option "[${option}]" is not supported: kafka-ts runs no Java classes, so no custom ${option.startsWith('message') ? 'MirrorMakerMessageHandler' : 'ConsumerRebalanceListener'} can be loaded.`);
  }
  const missing = [o.consumerConfig === undefined ? 'consumer.config' : undefined, o.producerConfig === undefined ? 'producer.config' : undefined].filter((m) => m !== undefined);
  if (missing.length > 0) throw new CliError(`Missing required argument "[${missing[0]!}]"`);
  const numStreams = javaInt(o.numStreams, 'num.streams', 1);
  const offsetCommitIntervalMs = javaInt(o.offsetCommitIntervalMs, 'offset.commit.interval.ms', 60000);
  const consumerProps = loadProps(o.consumerConfig!);
  if (o.whitelist === undefined) {
    log.error('whitelist must be specified');
    throw new CliError('whitelist must be specified');
  }
  if (!consumerProps.has('partition.assignment.strategy')) warn(ASSIGNMENT_WARNING);
  const abortOnSendFailure = scalaBoolean(o.abortOnSendFailure ?? 'true');
  if (numStreams < 1) throw new CliError(`Invalid value ${numStreams} for option num.streams: must be at least 1`);
  const producerProps = loadProps(o.producerConfig!);
  return { consumerProps, producerProps, whitelist: o.whitelist, numStreams, offsetCommitIntervalMs, abortOnSendFailure };
}

function intProp(props: ReadonlyMap<string, string>, key: string, fallback: number): number {
  const text = props.get(key);
  if (text === undefined) return fallback;
  const n = Number(text.trim());
  if (!/^-?\d+$/.test(text.trim())) throw new CliError(`org.apache.kafka.common.config.ConfigException: Invalid value ${text} for configuration ${key}: Not a number of type INT`);
  return n;
}

const CODECS: Record<string, CompressionType> = { none: CompressionType.NONE, gzip: CompressionType.GZIP, snappy: CompressionType.SNAPPY, lz4: CompressionType.LZ4, zstd: CompressionType.ZSTD };

function missingConfig(key: string): CliError {
  return new CliError(`org.apache.kafka.common.config.ConfigException: Missing required configuration "${key}" which has no default value.`);
}

/** The producer of the (overridden) producer config: KafkaProducer's keys that this producer has. */
export function mirrorMakerProducer(props: ReadonlyMap<string, string>): Producer {
  const servers = props.get('bootstrap.servers');
  if (servers === undefined) throw missingConfig('bootstrap.servers');
  const acksText = props.get('acks') ?? 'all';
  const acks = acksText === 'all' ? -1 : intProp(props, 'acks', -1);
  if (![-1, 0, 1].includes(acks)) throw new CliError(`org.apache.kafka.common.config.ConfigException: Invalid value ${acksText} for configuration acks: String must be one of: all, -1, 0, 1`);
  const codec = props.get('compression.type') ?? 'none';
  const compression = CODECS[codec];
  if (compression === undefined) throw new CliError(`org.apache.kafka.common.config.ConfigException: Invalid value ${codec} for configuration compression.type: String must be one of: none, gzip, snappy, lz4, zstd`);
  return new Producer({
    bootstrapServers: parseBrokerList(servers, 'bootstrap.servers'),
    clientId: props.get('client.id') ?? 'producer-1',
    acks,
    compression,
    batchSize: intProp(props, 'batch.size', 16384),
    lingerMs: intProp(props, 'linger.ms', 0),
    requestTimeoutMs: intProp(props, 'request.timeout.ms', 30000),
    retries: intProp(props, 'retries', 0x7fffffff),
    deliveryTimeoutMs: intProp(props, 'delivery.timeout.ms', 0x7fffffff),
    retryBackoffMs: intProp(props, 'retry.backoff.ms', 100),
    maxInFlightRequestsPerConnection: intProp(props, 'max.in.flight.requests.per.connection', 1),
    maxRequestSize: intProp(props, 'max.request.size', 1048576),
    ...toolClientConnection(props, '--producer.config'),
  });
}

/** One stream's consumer, over the group coordinator or the ZooKeeper-based consumer. */
interface StreamConsumer {
  start(): Promise<void>;
  poll(): Promise<ConsumedRecord[]>;
  /** Commits what was handed to the producer (called only after it flushed). */
  commit(): Promise<void>;
  close(): Promise<void>;
}

function assignorName(text: string | undefined): 'range' | 'roundrobin' {
  if (text === undefined || text === 'range' || /(^|\.)RangeAssignor$/.test(text)) return 'range';
  if (text === 'roundrobin' || /(^|\.)RoundRobinAssignor$/.test(text)) return 'roundrobin';
  throw new CliError(`org.apache.kafka.common.KafkaException: Class ${text} cannot be found: kafka-ts has the RangeAssignor and RoundRobinAssignor only`);
}

function groupStream(props: ReadonlyMap<string, string>, whitelist: string, onRevoked: () => Promise<void>): StreamConsumer {
  const servers = props.get('bootstrap.servers') as string;
  const groupId = props.get('group.id');
  if (groupId === undefined || groupId === '') {
    throw new CliError('org.apache.kafka.common.errors.InvalidGroupIdException: To use the group management or offset commit APIs, you must provide a valid group.id in the consumer configuration.');
  }
  const reset = props.get('auto.offset.reset') ?? 'latest';
  if (reset !== 'earliest' && reset !== 'latest') throw new CliError(`org.apache.kafka.common.config.ConfigException: Invalid value ${reset} for configuration auto.offset.reset: String must be one of: latest, earliest, none`);
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(servers, 'bootstrap.servers'), clientId: props.get('client.id') as string, ...toolClientConnection(props, '--consumer.config') });
  // MirrorMaker's ConsumerWrapper keeps the offsets it handed on itself and commits exactly those (then forgets them).
  const offsets = new Map<string, { tp: TopicPartition; offset: number }>();
  const commit = async (): Promise<void> => {
    if (offsets.size === 0) return;
    await consumer.commit(new Map(offsets));
    offsets.clear();
  };
  const consumer = new GroupConsumer(client, {
    groupId,
    pattern: new RegExp(`^(?:${includeListRegex(whitelist)})$`),
    autoOffsetReset: reset,
    sessionTimeoutMs: intProp(props, 'session.timeout.ms', 10000),
    heartbeatIntervalMs: intProp(props, 'heartbeat.interval.ms', 3000),
    rebalanceTimeoutMs: intProp(props, 'max.poll.interval.ms', 300000),
    enableAutoCommit: (props.get('enable.auto.commit') ?? 'false') === 'true',
    autoCommitIntervalMs: intProp(props, 'auto.commit.interval.ms', 5000),
    assignor: assignorName(props.get('partition.assignment.strategy')),
    groupInstanceId: props.get('group.instance.id') ?? null,
    // MirrorMaker's InternalRebalanceListener: flush and commit before the partitions may move to another member.
    listener: {
      onPartitionsRevoked: async () => {
        await onRevoked();
        await commit();
      },
      onPartitionsAssigned: () => undefined,
    },
  });
  return {
    start: () => consumer.start(),
    poll: async () => {
      const records = await consumer.poll();
      for (const r of records) offsets.set(tpString(r), { tp: { topic: r.topic, partition: r.partition }, offset: r.offset + 1 });
      return records;
    },
    commit,
    close: async () => {
      await consumer.close();
      client.close();
    },
  };
}

function zkStream(props: ReadonlyMap<string, string>, whitelist: string): StreamConsumer {
  const groupId = props.get('group.id');
  if (groupId === undefined) throw new CliError('java.lang.IllegalArgumentException: requirement failed: Missing required property \'group.id\'');
  const reset = props.get('auto.offset.reset') ?? 'largest';
  if (reset !== 'smallest' && reset !== 'largest') throw new CliError(`Wrong value ${reset} of auto.offset.reset in ConsumerConfig; Valid values are smallest and largest`);
  const strategy = props.get('partition.assignment.strategy') ?? 'range';
  if (strategy !== 'range' && strategy !== 'roundrobin') throw new CliError(`Wrong value ${strategy} of partition.assignment.strategy; valid values are range and roundrobin`);
  const consumer = new ZookeeperConsumer({
    zkConnect: props.get('zookeeper.connect') as string,
    groupId,
    ...(props.has('consumer.id') ? { consumerId: props.get('consumer.id') } : {}),
    clientId: props.get('client.id') as string,
    whitelist: includeListRegex(whitelist),
    autoOffsetReset: reset,
    autoCommitEnable: (props.get('auto.commit.enable') ?? 'false') === 'true',
    autoCommitIntervalMs: intProp(props, 'auto.commit.interval.ms', 60000),
    rebalanceMaxRetries: intProp(props, 'rebalance.max.retries', 4),
    rebalanceBackoffMs: intProp(props, 'rebalance.backoff.ms', 2000),
    zkSessionTimeoutMs: intProp(props, 'zookeeper.session.timeout.ms', 6000),
    partitionAssignmentStrategy: strategy,
  });
  return { start: () => consumer.start(), poll: () => consumer.poll(), commit: () => consumer.commitOffsets(), close: () => consumer.close() };
}

/**
 * Kafka 2.8's MirrorMaker (MirrorMaker 1): `numStreams` consumers of the consumer config's group, one shared
 * producer; each record goes to the same topic with its key, value, create timestamp and headers. Every
 * offset.commit.interval.ms, before a rebalance and at shutdown a stream flushes the producer and only then
 * commits what it handed on, so a crash loses nothing (records may be copied twice). A failed send with
 * abort.on.send.failure stops everything without committing; the exit status is then Kafka's sys.exit(-1).
 */
export async function runMirrorMaker(o: MirrorMakerOptions, stop: { stopped: boolean }, warn: (line: string) => void): Promise<number> {
  const log = getLogger('kafka.tools.MirrorMaker$');
  log.info('Starting mirror maker');
  const s = checkMirrorMakerOptions(o, log, warn);
  if (whitelistMatcher(s.whitelist) === undefined) {
    log.error(`Invalid expression syntax: ${s.whitelist}`);
    throw new CliError(`java.lang.RuntimeException: ${includeListRegex(s.whitelist)} is an invalid regex.`);
  }
  const { props: producerProps, sync } = producerOverrides(s.producerProps, log);
  const zkMode = s.consumerProps.has('zookeeper.connect') && !s.consumerProps.has('bootstrap.servers');
  if (!zkMode && !s.consumerProps.has('bootstrap.servers')) throw missingConfig('bootstrap.servers');
  const consumerProps = Array.from({ length: s.numStreams }, (_, i) => consumerOverrides(s.consumerProps, i, log));
  const producer = mirrorMakerProducer(producerProps);
  const callbackLog = getLogger('org.apache.kafka.clients.producer.internals.ErrorLoggingCallback');
  let exitingOnSendFailure = false;
  let dropped = 0;
  const onSent = (err: Error | null, topic: string, _p: number, _o: number, cookie: number): void => {
    if (err === null) return;
    // ErrorLoggingCallback with logAsString=false: sizes, not contents. The cookie carries them.
    const keyBytes = Math.floor(cookie / 0x100000000) - 1;
    const valueBytes = (cookie % 0x100000000) - 1;
    callbackLog.error(`Error when sending message to topic ${topic} with key: ${keyBytes < 0 ? 'null' : `${keyBytes} bytes`}, value: ${valueBytes < 0 ? 'null' : `${valueBytes} bytes`} with error:`, err);
    if (s.abortOnSendFailure) {
      log.info('Closing producer due to send failure.');
      exitingOnSendFailure = true;
    }
    dropped++;
  };
  const flushProducer = async (): Promise<void> => {
    if (!exitingOnSendFailure) await producer.flush();
  };
  const send = async (r: ConsumedRecord): Promise<void> => {
    const cookie = ((r.key?.length ?? -1) + 1) * 0x100000000 + ((r.value?.length ?? -1) + 1);
    // Kafka's default handler: the timestamp travels unless the record had none (RecordBatch.NO_TIMESTAMP).
    const timestamp = r.timestamp === -1 || r.timestampType === TimestampType.NO_TIMESTAMP_TYPE ? undefined : r.timestamp;
    if (!sync) {
      producer.sendWithCallback(r.topic, r.key, r.value, onSent, cookie, undefined, timestamp, r.headers);
      return;
    }
    await new Promise<void>((resolve) =>
      producer.sendWithCallback(r.topic, r.key, r.value, (err, t, p, off, c) => {
        onSent(err, t, p, off, c);
        resolve();
      }, cookie, undefined, timestamp, r.headers),
    );
  };

  const streams = consumerProps.map((props, i) => ({
    threadLog: getLogger('kafka.tools.MirrorMaker$MirrorMakerThread', `[mirrormaker-thread-${i}] `),
    consumer: zkMode ? zkStream(props, s.whitelist) : groupStream(props, s.whitelist, flushProducer),
  }));
  const commitOffsets = async (c: StreamConsumer): Promise<void> => {
    if (exitingOnSendFailure) {
      log.info('Exiting on send failure, skip committing offsets.');
      return;
    }
    try {
      await c.commit();
    } catch (err) {
      log.warn(
        "Failed to commit offsets because the consumer group has rebalanced and assigned partitions to another instance. If you see this regularly, it could indicate that you need to either increase the consumer's session.timeout.ms or reduce the number of records handled on each iteration with max.poll.records",
        err,
      );
    }
  };
  let abnormal = false;
  const runStream = async ({ threadLog, consumer }: (typeof streams)[number], i: number): Promise<void> => {
    threadLog.info(`Starting mirror maker thread mirrormaker-thread-${i}`);
    let lastOffsetCommitMs = Date.now();
    try {
      await consumer.start();
      while (!exitingOnSendFailure && !stop.stopped) {
        const records = await consumer.poll();
        for (const r of records) {
          if (exitingOnSendFailure) break;
          await send(r);
        }
        if (Date.now() - lastOffsetCommitMs > s.offsetCommitIntervalMs) {
          threadLog.debug('Committing MirrorMaker state.');
          await flushProducer();
          await commitOffsets(consumer);
          lastOffsetCommitMs = Date.now();
        }
      }
    } catch (err) {
      exitingOnSendFailure = true;
      abnormal = true;
      threadLog.fatal('Mirror maker thread failure due to ', err);
    } finally {
      try {
        threadLog.info('Flushing producer.');
        await flushProducer();
        // Skipped when the flush failed: nothing is committed that the target does not have.
        threadLog.info('Committing consumer offsets.');
        await commitOffsets(consumer);
      } catch (err) {
        threadLog.warn('', err);
      }
      threadLog.info('Shutting down consumer connectors.');
      await consumer.close().catch((err: unknown) => threadLog.warn('', err));
      threadLog.info('Mirror maker thread stopped');
    }
  };
  const running = Promise.all(streams.map((st, i) => runStream(st, i)));
  await running;
  if (exitingOnSendFailure || abnormal) {
    for (const { threadLog } of streams) threadLog.fatal('Mirror maker thread exited abnormally, stopping the whole mirror maker.');
    return 255;
  }
  log.info('Start clean shutdown.');
  log.info('Shutting down consumer threads.');
  log.info('Closing producer.');
  await producer.close();
  if (dropped > 0) log.warn(`${dropped} messages could not be sent and were skipped (MirrorMaker-numDroppedMessages).`);
  log.info('Kafka mirror maker shutdown successfully');
  return 0;
}
