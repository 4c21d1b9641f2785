#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { collect } from '../src/tools/server-args';
import { ConsoleConsumerOptions, runConsoleConsumer } from '../src/tools/console-consumer';

const program = createCli('kafka-console-consumer', 'Consume messages from Kafka and print them to standard output.')
  .option('--bootstrap-server <host:port,...>', 'the brokers to connect to')
  .option('--zookeeper <host:port[/chroot]>', 'use the old ZooKeeper-based consumer, with this ZooKeeper connection string (deprecated)')
  .option('--delete-consumer-offsets', 'with --zookeeper: delete the group\'s offsets in ZooKeeper first')
  .option('--topic <topic>', 'the topic to consume from')
  .option('--whitelist <regex>', 'a regular expression of the topics to consume')
  .option('--partition <n>', 'consume only this partition')
  .option('--offset <offset>', 'earliest, latest (default) or an offset; needs --partition')
  .option('--from-beginning', 'start with the earliest message present')
  .option('--max-messages <n>', 'exit after this many messages')
  .option('--timeout-ms <ms>', 'exit when no message arrives for this long')
  .option('--group <group>', 'the consumer group id (default with --zookeeper: a generated console-consumer-<n>, removed at exit)')
  .option('--formatter <class>', 'the formatter class: kafka.tools.DefaultMessageFormatter (default), kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter, ...$GroupMetadataMessageFormatter, kafka.coordinator.transaction.TransactionLog$TransactionLogMessageFormatter')
  .option('--property <prop=value>', 'formatter properties: print.key, print.timestamp, print.partition, print.offset, key.separator, ... (repeatable)', collect, [] as string[])
  .option('--consumer-property <prop=value>', 'consumer properties (repeatable)', collect, [] as string[])
  .option('--consumer.config <file>', 'consumer config properties file (--consumer-property takes precedence)');

void runCli(program, async (p) => {
  const stop = { stopped: false };
  process.once('SIGINT', () => (stop.stopped = true));
  process.once('SIGTERM', () => (stop.stopped = true));
  const write = (text: string): Promise<void> =>
    new Promise((resolve) => {
      if (process.stdout.write(text)) resolve();
      else process.stdout.once('drain', () => resolve());
    });
  try {
    const opts = p.opts<ConsoleConsumerOptions & { 'consumer.config'?: string }>();
    return await runConsoleConsumer({ ...opts, consumerConfig: opts['consumer.config'] }, write, (line) => process.stderr.write(`${line}\n`), stop);
  } finally {
    // process.exit drops output still queued for a pipe: let the records reach the reader first.
    await new Promise<void>((resolve) => process.stdout.write('', () => resolve()));
  }
});
