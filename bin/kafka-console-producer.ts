#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { collect } from '../src/tools/server-args';
import { ConsoleProducerOptions, runConsoleProducer } from '../src/tools/console-producer';

const program = createCli('kafka-console-producer', 'Read data from standard input and publish it to Kafka.')
  .option('--broker-list <host:port,...>', 'DEPRECATED, use --bootstrap-server instead; the brokers to connect to')
  .option('--bootstrap-server <host:port,...>', 'the brokers to connect to')
  .requiredOption('--topic <topic>', 'the topic to produce messages to')
  .option('--sync', 'send each message synchronously')
  .option('--compression-codec [codec]', 'none, gzip (the default when given without a value), snappy, lz4 or zstd')
  .option('--request-required-acks <acks>', 'the required acks of the producer requests (0, 1, -1/all)', '1')
  .option('--request-timeout-ms <ms>', 'the ack timeout of the producer requests', '1500')
  .option('--timeout <ms>', 'linger.ms: how long a batch waits for more messages', '1000')
  .option('--max-partition-memory-bytes <bytes>', 'batch.size', '16384')
  .option('--message-send-max-retries <n>', 'retries (bounded by delivery.timeout.ms here)', '3')
  .option('--retry-backoff-ms <ms>', 'backoff before a retry', '100')
  .option('--property <prop=value>', 'message reader properties: parse.key, key.separator, ignore.error (repeatable)', collect, [] as string[])
  .option('--producer-property <prop=value>', 'producer properties (repeatable)', collect, [] as string[])
  .option('--producer.config <file>', 'producer config properties file');

void runCli(program, async (p) => {
  const opts = p.opts<ConsoleProducerOptions & { 'producer.config'?: string }>();
  const options: ConsoleProducerOptions = { ...opts, producerConfig: opts['producer.config'] ?? opts.producerConfig };
  return runConsoleProducer(options, process.stdin, (line) => process.stderr.write(`${line}\n`));
});
