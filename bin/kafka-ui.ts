#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { KafkaUiOptions, runKafkaUi } from '../src/ui/kafka-ui';

const program = createCli('kafka-ui', 'Serves a live web page of the cluster: brokers, topics, partitions, messages, consumer groups, throughput and reassignments.')
  .option('--zookeeper <urls>', 'REQUIRED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.')
  .option('--bootstrap-server <server to connect to>', 'The Kafka server(s) to connect to (default: the brokers registered in ZooKeeper).')
  .option('--port <port>', 'The port the page is served on.', '8080')
  .option('--host <host>', 'The address the page is served on.', 'localhost');

void runCli(program, (p) => runKafkaUi(p.opts<KafkaUiOptions>(), (line) => process.stdout.write(`${line}\n`)));
