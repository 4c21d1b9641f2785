#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { LogDirsOptions, runLogDirsCommand } from '../src/tools/log-dirs-command';

const program = createCli('kafka-log-dirs', 'This tool helps to query log directory usage on the specified brokers.')
  .option('--bootstrap-server <The server(s) to use for bootstrapping>', 'REQUIRED: the server(s) to use for bootstrapping')
  .option('--command-config <Admin client property file>', 'Property file containing configs to be passed to Admin Client.')
  .option('--describe', 'Describe the specified log directories on the specified brokers.')
  .option('--topic-list <Topic list>', 'The list of topics to be queried in the form "topic1,topic2,topic3". All topics will be queried if no topic list is specified', '')
  .option('--broker-list <Broker list>', 'The list of brokers to be queried in the form "0,1,2". All brokers in the cluster will be queried if no broker list is specified');

// Kafka's CommandLineUtils.printHelpAndExitIfNeeded: no arguments at all prints the usage and exits 1.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

void runCli(program, (p) => runLogDirsCommand(p.opts<LogDirsOptions>(), (line) => process.stdout.write(`${line}\n`)));
