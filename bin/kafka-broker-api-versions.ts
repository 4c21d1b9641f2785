#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { CliError, createCli, runCli } from '../src/tools/cli';
import { adminClientConfig } from '../src/tools/admin-client-config';
import { runBrokerApiVersions } from '../src/tools/broker-api-versions-command';

const program = createCli('kafka-broker-api-versions', 'This tool helps to retrieve broker version information.')
  .option('--bootstrap-server <server(s) to use for bootstrapping>', 'REQUIRED: The server to connect to.')
  .option('--command-config <command config property file>', 'A property file containing configs to be passed to Admin Client.');

void runCli(program, async (p) => {
  const o = p.opts<{ bootstrapServer?: string; commandConfig?: string }>();
  if (o.bootstrapServer === undefined) throw new CliError('Missing required argument "[bootstrap-server]"');
  const config = adminClientConfig(o.bootstrapServer, o.commandConfig, 'admin-1');
  return runBrokerApiVersions(config, (text) => process.stdout.write(text));
});
