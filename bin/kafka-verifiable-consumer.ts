#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { runVerifiableConsumer, VerifiableConsumerOptions } from '../src/tools/verifiable-consumer';

const program = createCli(
  'verifiable-consumer',
  'This tool consumes messages from a specific topic and emits consumer events (e.g. group rebalances, received messages, and offsets committed) as JSON objects to STDOUT.',
)
  .option('--bootstrap-server <HOST1:PORT1[,HOST2:PORT2[...]]>', 'REQUIRED unless --broker-list(deprecated) is specified. The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...')
  .option('--broker-list <HOST1:PORT1[,HOST2:PORT2[...]]>', 'DEPRECATED, use --bootstrap-server instead; ignored if --bootstrap-server is specified.  Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...')
  .option('--topic <TOPIC>', 'Consumes messages from this topic.')
  .option('--group-id <GROUP_ID>', 'The groupId shared among members of the consumer group')
  .option('--group-instance-id <GROUP_INSTANCE_ID>', 'A unique identifier of the consumer instance')
  .option('--max-messages <MAX-MESSAGES>', 'Consume this many messages. If -1 (the default), the consumer will consume until the process is killed externally (default: -1)')
  .option('--session-timeout <TIMEOUT_MS>', "Set the consumer's session timeout (default: 30000)")
  .option('--verbose', 'Enable to log individual consumed records (default: false)')
  .option('--enable-autocommit', 'Enable offset auto-commit on consumer (default: false)')
  .option('--reset-policy <RESETPOLICY>', "Set reset policy (must be either 'earliest', 'latest', or 'none' (default: earliest)")
  .option('--assignment-strategy <ASSIGNMENTSTRATEGY>', 'Set assignment strategy (e.g. org.apache.kafka.clients.consumer.RoundRobinAssignor) (default: org.apache.kafka.clients.consumer.RangeAssignor)')
  .option('--consumer.config <CONFIG_FILE>', 'Consumer config properties file (config options shared with command line parameters will be overridden).');

// Kafka's main: no arguments at all prints the usage and exits 0.
if (process.argv.length <= 2) {
  program.outputHelp();
  process.exit(0);
}

const stop = { stopped: false };
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stop.stopped = true));

void runCli(program, (p) => {
  const o = p.opts<Omit<VerifiableConsumerOptions, 'consumerConfig'> & { 'consumer.config'?: string }>();
  return runVerifiableConsumer({ ...o, consumerConfig: o['consumer.config'] }, (line) => process.stdout.write(`${line}\n`), stop);
});
