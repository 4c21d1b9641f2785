#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { NetworkClient } from '../src/client/network-client';
import { createCli, runCli } from '../src/tools/cli';
import { adminClientOptions } from '../src/tools/admin-client-config';
import { collect } from '../src/tools/server-args';
import { checkStreamsResetterArgs, StreamsResetter, StreamsResetterError, StreamsResetterOptions } from '../src/tools/streams-resetter';

const program = createCli('kafka-streams-application-reset', 'This tool helps to quickly reset an application in order to reprocess its data from scratch.')
  .option('--application-id <id>', 'The Kafka Streams application ID (application.id).')
  .option('--bootstrap-servers <urls>', 'Comma-separated list of broker urls with format: HOST1:PORT1,HOST2:PORT2', 'localhost:9092')
  .option('--input-topics <list>', 'Comma-separated list of user input topics. For these topics, the tool will reset the offset to the earliest available offset.', collect, [] as string[])
  .option('--intermediate-topics <list>', 'Comma-separated list of intermediate user topics (topics that are input and output topics, e.g., used in the deprecated through() method). For these topics, the tool will skip to the end.', collect, [] as string[])
  .option('--internal-topics <list>', 'Comma-separated list of internal topics to delete. Must be a subset of the internal topics marked for deletion by the default behaviour (do a dry-run without this option to view these topics).', collect, [] as string[])
  .option('--to-offset <offset>', 'Reset offsets to a specific offset.')
  .option('--to-datetime <datetime>', "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDTHH:mm:SS.sss'")
  .option('--by-duration <duration>', "Reset offsets to offset by duration from current timestamp. Format: 'PnDTnHnMnS'")
  .option('--to-earliest', 'Reset offsets to earliest offset.')
  .option('--to-latest', 'Reset offsets to latest offset.')
  .option('--from-file <file>', 'Reset offsets to values defined in CSV file.')
  .option('--shift-by <number-of-offsets>', "Reset offsets shifting current offset by 'n', where 'n' can be positive or negative")
  .option('--config-file <file name>', 'Property file containing configs to be passed to admin clients and embedded consumer.')
  .option('--dry-run', 'Display the actions that would be performed without executing the reset commands.')
  .option('--execute', 'Execute the command.')
  .option('--force', 'Force the removal of members of the consumer group (intended to remove stopped members if a long session timeout was used). Make sure to shut down all stream applications when this option is specified to avoid unexpected rebalances.');

void runCli(program, async (p) => {
  const o = p.opts<StreamsResetterOptions>();
  checkStreamsResetterArgs(o);
  const client = new NetworkClient(adminClientOptions(o.bootstrapServers, o.configFile, '--config-file', { clientId: 'StreamsResetter' }));
  try {
    return await new StreamsResetter(client, (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`)).run(o);
  } catch (err) {
    if (!(err instanceof StreamsResetterError)) throw err;
    process.stderr.write(`ERROR: ${err.message}\n`);
    return 1;
  } finally {
    client.close();
  }
});
