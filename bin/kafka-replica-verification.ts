#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { ReplicaVerificationOptions, runReplicaVerification } from '../src/tools/replica-verification-tool';

const program = createCli('kafka-replica-verification', 'Validate that all replicas for a set of topics have the same data.')
  .option('--broker-list <hostname:port,...,hostname:port>', 'REQUIRED: The list of hostname and port of the server to connect to.')
  .option('--fetch-size <Integer: bytes>', 'The fetch size of each request.', '1048576')
  .option('--max-wait-ms <Integer: ms>', 'The max amount of time each fetch request waits.', '1000')
  .option('--topic-white-list <String: Java regex (String)>', 'White list of topics to verify replica consistency. Defaults to all topics.', '.*')
  .option('--time <Long: timestamp/-1(latest)/-2(earliest)>', 'Timestamp for getting the initial offsets.', '-1')
  .option('--report-interval-ms <Long: ms>', 'The reporting interval.', '30000');

// Kafka's printUsageAndDie: no arguments at all prints the usage and exits 1.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

const stop = { stopped: false };
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (stop.stopped = true));

void runCli(program, (p) => runReplicaVerification(p.opts<ReplicaVerificationOptions>(), (line) => process.stdout.write(`${line}\n`), stop));
