import { ErrorCode, isRetriable } from '../common/error-codes';
import { authorizationError } from '../client/authorization-error';
import { SYSTEM_CLOCK } from '../common/time';
import { NetworkClient } from '../client/network-client';
import { ConsumedRecord, PartitionConsumer, StartOffset } from '../client/partition-consumer';
import { TopicPartition } from '../common/topic-partition';
import { CliError } from './cli';
import { toolClientConnection } from './tool-client-connection';
import { consoleLimits, consumeLoop, isolationLevelOf, RecordSource, reportConsumerFailure } from './console-consumer-loop';
import type { ConsoleConsumerOptions } from './console-consumer-options';
import { runGroupConsoleConsumer } from './console-consumer-group';
import { runZkConsoleConsumer } from './console-consumer-zk';
import { intOption, parseBrokerList } from './tool-properties';

export { MessageFormatter } from './console-consumer-loop';
export type { ConsoleConsumerOptions } from './console-consumer-options';

/**
 * Kafka's ConsoleConsumer: prints each record from the chosen start, stops after --max-messages or when nothing
 * arrives for --timeout-ms, and writes `Processed a total of N messages` to stderr. --zookeeper runs the old
 * ZooKeeper-based consumer (console-consumer-zk.ts), --group with --bootstrap-server a group member through the
 * coordinator (console-consumer-group.ts); otherwise the partitions are assigned directly.
 */
export async function runConsoleConsumer(
  o: ConsoleConsumerOptions,
  out: (text: string) => Promise<void>,
  err: (line: string) => void,
  stopSignal: { stopped: boolean },
): Promise<number> {
  if (o.bootstrapServer === undefined && o.zookeeper === undefined) throw new CliError('Missing required option(s) [bootstrap-server]');
  if (o.bootstrapServer !== undefined && o.zookeeper !== undefined) throw new CliError('Options bootstrap-server and zookeeper cannot be specified together.');
  if ((o.topic === undefined) === (o.whitelist === undefined)) throw new CliError('Exactly one of whitelist/topic is required.');
  if (o.partition !== undefined && o.topic === undefined) throw new CliError('The topic is required when partition is specified.');
  if (o.offset !== undefined && o.partition === undefined) throw new CliError('The partition is required when offset is specified.');
  if (o.offset !== undefined && o.fromBeginning) throw new CliError("Options from-beginning and offset cannot be specified together.");
  if (o.group !== undefined && o.partition !== undefined) throw new CliError('Options group and partition cannot be specified together.');
  if (o.zookeeper !== undefined) {
    return runZkConsoleConsumer(o, out, err, stopSignal);
  }
  if (o.group !== undefined) {
    return runGroupConsoleConsumer(o, out, err, stopSignal);
  }
  const limits = consoleLimits(o);
  let start: StartOffset = o.fromBeginning ? 'earliest' : 'latest';
  if (o.offset !== undefined) {
    if (o.offset === 'earliest' || o.offset === 'latest') start = o.offset;
    else if (/^\d+$/.test(o.offset)) start = Number(o.offset);
    else throw new CliError(`The offset ${o.offset} is not valid: expected earliest, latest or a non-negative number`);
  }
  const props = limits.consumerProps;
  const isolationLevel = isolationLevelOf(props);
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(o.bootstrapServer as string, '--bootstrap-server'), clientId: props.get('client.id') ?? 'console-consumer', ...toolClientConnection(props, '--consumer.config / --consumer-property') });
  let processed = 0;
  try {
    const consumer = new PartitionConsumer(client, { isolationLevel });
    await consumer.assign(await partitionsToRead(client, o), start);
    let pending: ConsumedRecord[] = [];
    const source: RecordSource = {
      async poll(max) {
        if (pending.length === 0) pending = await consumer.poll();
        return pending.splice(0, max);
      },
    };
    processed = await consumeLoop(source, limits, out, err, stopSignal);
  } catch (e) {
    reportConsumerFailure(e, err);
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
      if (info !== undefined && info.errorCode === ErrorCode.NONE.code && info.partitions.length > 0) return info.partitions.map((p) => ({ topic: o.topic as string, partition: p.partition }));
      if (info !== undefined && info.errorCode !== ErrorCode.NONE.code && !isRetriable(info.errorCode)) throw authorizationError(info.errorCode, { topics: [o.topic] });
      await SYSTEM_CLOCK.sleep(100);
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
