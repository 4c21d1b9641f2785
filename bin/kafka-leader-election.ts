#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { LeaderElectionOptions, runLeaderElection } from '../src/tools/leader-election-command';

const program = createCli(
  'kafka-leader-election',
  'This tool attempts to elect a new leader for a set of topic partitions. The type of elections supported are preferred replicas and unclean replicas.',
)
  .option('--bootstrap-server <host:port>', 'A hostname and port for the broker to connect to, in the form host:port. Multiple comma separated URLs can be given. REQUIRED.')
  .option('--admin.config <config file>', 'Configuration properties files to pass to the admin client')
  .option(
    '--path-to-json-file <Path to JSON file>',
    'The JSON file with the list  of partition for which leader elections should be performed. This is an example format. {"partitions": [{"topic": "foo", "partition": 1}, {"topic": "foobar", "partition": 2}]} Not allowed if --all-topic-partitions or --topic flags are specified.',
  )
  .option('--topic <topic name>', 'Name of topic for which to perform an election. Not allowed if --path-to-json-file or --all-topic-partitions is specified.')
  .option('--partition <partition id>', 'Partition id for which to perform an election. REQUIRED if --topic is specified.')
  .option(
    '--all-topic-partitions',
    'Perform election on all of the eligible topic partitions based on the type of election (see the --election-type flag). Not allowed if --topic or --path-to-json-file is specified.',
  )
  .option(
    '--election-type <election type>',
    'Type of election to attempt. Possible values are "preferred" for preferred leader election or "unclean" for unclean leader election. If preferred election is selection, the election is only performed if the current leader is not the preferred leader for the topic partition. If unclean election is selected, the election is only performed if there are no leader for the topic partition. REQUIRED.',
  );

// Kafka's CommandLineUtils.printHelpAndExitIfNeeded: no arguments at all prints the usage and exits 1.
if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

void runCli(program, async (p) => {
  const o = p.opts<LeaderElectionOptions & { 'admin.config'?: string }>();
  return runLeaderElection({ ...o, adminConfig: o['admin.config'] }, (line) => process.stdout.write(`${line}\n`));
});
