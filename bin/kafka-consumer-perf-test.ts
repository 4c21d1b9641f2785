#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { ConsumerPerformanceOptions, runConsumerPerformance } from '../src/tools/consumer-performance';

const program = createCli('kafka-consumer-perf-test', 'A tool to verify the consumer performance.')
  .option('--bootstrap-server <host:port,...>', 'the brokers to connect to')
  .option('--broker-list <host:port,...>', 'DEPRECATED, use --bootstrap-server instead')
  .requiredOption('--topic <topic>', 'the topic to consume from')
  .requiredOption('--messages <n>', 'the number of messages to consume')
  .option('--fetch-size <bytes>', 'the amount of data to fetch in a single request', '1048576')
  .option('--from-latest', 'start from the latest offset instead of the earliest')
  .option('--threads <n>', 'number of processing threads (ignored, as in Kafka 2.x)', '10')
  .option('--group <group>', 'the consumer group id (partitions are assigned directly here)')
  .option('--timeout <ms>', 'the maximum allowed time between returned records', '10000')
  .option('--hide-header', 'do not print the header line')
  .option('--print-metrics', 'print out the metrics')
  .option('--show-detailed-stats', 'if set, stats are reported for each reporting interval as configured by reporting-interval')
  .option('--reporting-interval <ms>', 'interval in milliseconds at which to print progress info', '5000')
  .option('--consumer.config <file>', 'consumer config properties file (client.id, fetch.max.bytes, fetch.max.wait.ms)');

void runCli(program, async (p) => {
  const o = p.opts<ConsumerPerformanceOptions & { 'consumer.config'?: string }>();
  await runConsumerPerformance({ ...o, consumerConfig: o['consumer.config'] }, (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`));
  return 0;
});
