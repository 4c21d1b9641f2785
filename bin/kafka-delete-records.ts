#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { CliError, createCli, runCli } from '../src/tools/cli';
import { adminClientConfig } from '../src/tools/admin-client-config';
import { runDeleteRecords } from '../src/tools/delete-records-command';

const program = createCli('kafka-delete-records', 'This tool helps to delete records of the given partitions down to the specified offset.')
  .option('--bootstrap-server <server(s) to use for bootstrapping>', 'REQUIRED: The server to connect to.')
  .option(
    '--offset-json-file <Offset json file path>',
    'REQUIRED: The JSON file with offset per partition. The format to use is:\n{"partitions":\n  [{"topic": "foo", "partition": 1, "offset": 1}],\n "version":1\n}',
  )
  .option('--command-config <command config property file path>', 'A property file containing configs to be passed to Admin Client.');

void runCli(program, async (p) => {
  const o = p.opts<{ bootstrapServer?: string; offsetJsonFile?: string; commandConfig?: string }>();
  // Kafka's CommandLineUtils.checkRequiredArgs wording.
  if (o.bootstrapServer === undefined) throw new CliError('Missing required argument "[bootstrap-server]"');
  if (o.offsetJsonFile === undefined) throw new CliError('Missing required argument "[offset-json-file]"');
  const config = adminClientConfig(o.bootstrapServer, o.commandConfig, 'adminclient-1');
  return runDeleteRecords(config, o.offsetJsonFile, (line) => process.stdout.write(`${line}\n`));
});
