#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { connectToolZk } from '../src/tools/tool-zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { executeReassignment, generateReassignment, verifyReassignment } from '../src/tools/reassign-partitions';
import { checkReassignArgs, ReassignOptions, runReassignPartitions } from '../src/tools/reassign-partitions-command';

const program = createCli('kafka-reassign-partitions', 'This tool helps to move topic partitions between replicas.')
  .option('--bootstrap-server <Server(s) to use for bootstrapping>', 'the server(s) to use for bootstrapping. REQUIRED if an absolute path of the log directory is specified for any replica in the reassignment json file, or if --zookeeper is not given.')
  .option('--command-config <Admin client property file>', 'Property file containing configs to be passed to Admin Client.')
  .option('--zookeeper <urls>', 'DEPRECATED: The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.  Please use --bootstrap-server instead.')
  .option('--generate', 'Generate a candidate partition reassignment configuration. Note that this only generates a candidate assignment, it does not execute it.')
  .option('--execute', 'Kick off the reassignment as specified by the --reassignment-json-file option.')
  .option('--verify', 'Verify if the reassignment completed as specified by the --reassignment-json-file option. If there is a throttle engaged for the replicas specified, and the rebalance has completed, the throttle will be removed')
  .option('--cancel', 'Cancel an active reassignment.')
  .option('--list', 'List all active partition reassignments.')
  .option('--topics-to-move-json-file <topics to reassign json file path>', 'Generate a reassignment configuration to move the partitions of the specified topics to the list of brokers specified by the --broker-list option. The format to use is - {"topics": [{"topic": "foo"},{"topic": "foo1"}], "version":1}')
  .option('--broker-list <brokerlist>', 'The list of brokers to which the partitions need to be reassigned in the form "0,1,2". This is required if --topics-to-move-json-file is used to generate reassignment configuration')
  .option('--reassignment-json-file <manual assignment json file path>', 'The JSON file with the partition reassignment configuration')
  .option('--disable-rack-aware', 'Disable rack aware replica assignment (kafka-ts has no racks: always the case)')
  .option('--throttle <throttle>', 'The movement of partitions between brokers will be throttled to this value (bytes/sec). This option can be included with --execute when a reassignment is started, and it can be altered by resubmitting the current reassignment along with the --additional flag. The throttle rate should be at least 1 KB/s. (default: -1)')
  .option('--replica-alter-log-dirs-throttle <replicaAlterLogDirsThrottle>', 'The movement of replicas between log directories on the same broker will be throttled to this value (bytes/sec). This option can be included with --execute when a reassignment is started, and it can be altered by resubmitting the current reassignment along with the --additional flag. The throttle rate should be at least 1 KB/s. (default: -1)')
  .option('--timeout <timeout>', 'The maximum time in ms to wait for log directory replica assignment to begin.')
  .option('--additional', 'Execute this reassignment in addition to any other ongoing ones.')
  .option('--preserve-throttles', 'Do not modify broker or topic throttles.');

void runCli(program, async (p) => {
  const o = p.opts<ReassignOptions>();
  const action = checkReassignArgs(o);
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  if (o.bootstrapServer !== undefined) return runReassignPartitions(o, action, out);
  const zookeeper = o.zookeeper as string;
  const bad = validateZkConnectString(zookeeper);
  if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${zookeeper}: ${bad}`);
  const zk = await connectToolZk(zookeeper, 'Kafka tool').catch((err: Error) => {
    throw new CliError(`Unable to connect to ZooKeeper at ${zookeeper}: ${err.message}`);
  });
  try {
    if (action === 'generate') return await generateReassignment(zk, o.topicsToMoveJsonFile as string, o.brokerList as string, out);
    if (action === 'execute') return await executeReassignment(zk, o.reassignmentJsonFile as string, out, o.throttle === undefined ? -1 : Number(o.throttle));
    return await verifyReassignment(zk, o.reassignmentJsonFile as string, out, o.preserveThrottles === true);
  } finally {
    zk.close();
  }
});
