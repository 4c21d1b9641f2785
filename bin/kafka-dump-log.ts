#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { DumpLogOptions, runDumpLogSegments } from '../src/tools/dump-log-segments';

const program = createCli('kafka-dump-log', 'This tool helps to parse a log file and dump its contents to the console, useful for debugging a seemingly corrupt log segment.')
  .option('--print-data-log', 'if set, printing the messages content when dumping data logs. Automatically set if any decoder option is specified.')
  .option('--verify-index-only', 'if set, just verify the index log without printing its content.')
  .option('--index-sanity-check', 'if set, just checks the index sanity without printing its content. This is the same check that is executed on broker startup to determine if an index needs rebuilding or not.')
  .option('--files <file1, file2, ...>', 'REQUIRED: The comma separated list of data and index log files to be dumped.')
  .option('--max-message-size <size>', 'Size of largest message. (default: 5242880)')
  .option('--deep-iteration', 'if set, uses deep instead of shallow iteration. Automatically set if print-data-log is enabled.')
  .option('--value-decoder-class [value-decoder-class]', 'if set, used to deserialize the messages. This class should implement kafka.serializer.Decoder trait. Custom jar should be available in kafka/libs directory. (default: kafka.serializer.StringDecoder)')
  .option('--key-decoder-class [key-decoder-class]', 'if set, used to deserialize the keys. This class should implement kafka.serializer.Decoder trait. Custom jar should be available in kafka/libs directory. (default: kafka.serializer.StringDecoder)')
  .option('--offsets-decoder', 'if set, log data will be parsed as offset data from the __consumer_offsets topic.')
  .option('--transaction-log-decoder', 'if set, log data will be parsed as transaction metadata from the __transaction_state topic.')
  .option('--cluster-metadata-decoder', 'if set, log data will be parsed as cluster metadata records.')
  .option('--skip-record-metadata', 'whether to skip printing metadata for each record.');

// Kafka's CommandLineUtils.printHelpAndExitIfNeeded: no arguments at all prints the usage and exits 1.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

void runCli(program, async (p) =>
  runDumpLogSegments(p.opts<DumpLogOptions>(), {
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  }),
);
