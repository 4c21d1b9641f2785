#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { runProducerPerformance, ProducerPerformanceOptions } from '../src/tools/producer-performance';

const program = createCli('kafka-producer-perf-test', 'A tool to verify the producer performance.')
  .requiredOption('--topic <topic>', 'produce messages to this topic')
  .requiredOption('--num-records <n>', 'number of messages to produce')
  .option('--record-size <bytes>', 'message size in bytes; exactly one of --record-size or --payload-file')
  .option('--payload-file <file>', 'file of payloads, split by --payload-delimiter; one is picked at random per record')
  .option('--payload-delimiter <delimiter>', 'delimiter of the payload file', '\n')
  .requiredOption('--throughput <records/sec>', 'throttle to about this many messages/sec; -1 for no throttling')
  .option('--producer-props <prop=val...>', 'producer properties: bootstrap.servers=... acks=... batch.size=... linger.ms=... compression.type=...')
  .option('--producer.config <file>', 'producer config properties file')
  .option('--print-metrics', 'print out metrics at the end of the test')
  .option('--transactional-id <id>', 'The transactionalId to use if transaction-duration-ms is > 0. Useful when testing the performance of concurrent transactions.', 'performance-producer-default-transactional-id')
  .option('--transaction-duration-ms <ms>', 'The max age of each transaction. The commitTransaction will be called after this time has elapsed. Transactions are only enabled if this value is positive.', '0');

void runCli(program, async (p) => {
  const o = p.opts<Omit<ProducerPerformanceOptions, 'producerProps'> & { producerProps?: string[]; 'producer.config'?: string }>();
  const options: ProducerPerformanceOptions = { ...o, producerProps: o.producerProps ?? [], producerConfig: o['producer.config'] };
  await runProducerPerformance(options, (line) => process.stdout.write(`${line}\n`));
  return 0;
});
