#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { runVerifiableProducer, VerifiableProducerOptions } from '../src/tools/verifiable-producer';

const program = createCli(
  'verifiable-producer',
  'This tool produces increasing integers to the specified topic and prints JSON metadata to stdout on each "send" request, making externally visible which messages have been acked and which have not.',
)
  .option('--topic <TOPIC>', 'Produce messages to this topic.')
  .option('--bootstrap-server <HOST1:PORT1[,HOST2:PORT2[...]]>', 'REQUIRED: The server(s) to connect to. Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...')
  .option('--broker-list <HOST1:PORT1[,HOST2:PORT2[...]]>', 'DEPRECATED, use --bootstrap-server instead; ignored if --bootstrap-server is specified.  Comma-separated list of Kafka brokers in the form HOST1:PORT1,HOST2:PORT2,...')
  .option('--max-messages <MAX-MESSAGES>', 'Produce this many messages. If -1, produce messages until the process is killed externally. (default: -1)')
  .option('--throughput <THROUGHPUT>', 'If set >= 0, throttle maximum message throughput to *approximately* THROUGHPUT messages/sec. (default: -1)')
  .option('--acks <ACKS>', 'Acks required on each produced message. See Kafka docs on acks for details. (default: -1)')
  .option('--producer.config <CONFIG_FILE>', 'Producer config properties file.')
  .option('--message-create-time <CREATE-TIME>', 'Send messages with creation time starting at the arguments value, in milliseconds since epoch (default: -1)')
  .option('--value-prefix <VALUE-PREFIX>', 'If specified, each produced value will have this prefix with a dot separator')
  .option('--repeating-keys <REPEATING-KEYS>', 'If specified, each produced record will have a key starting at 0 increment by 1 up to the number specified (exclusive), then the key is set to 0 again');

// Kafka's main: no arguments at all prints the usage and exits 0.
if (process.argv.length <= 2) {
  program.outputHelp();
  process.exit(0);
}

const stop = { stopped: false };
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stop.stopped = true));

void runCli(program, (p) => {
  const o = p.opts<Omit<VerifiableProducerOptions, 'producerConfig'> & { 'producer.config'?: string }>();
  return runVerifiableProducer({ ...o, producerConfig: o['producer.config'] }, (line) => process.stdout.write(`${line}\n`), stop);
});
