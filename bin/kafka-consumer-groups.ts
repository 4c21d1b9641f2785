#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { NetworkClient } from '../src/client/network-client';
import { connectToolZk } from '../src/tools/tool-zk-client';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { checkConsumerGroupsArgs, ConsumerGroupCommand, ConsumerGroupsOptions } from '../src/tools/consumer-groups-command';
import { KafkaConsumerGroupService } from '../src/tools/consumer-groups-kafka';
import { ConsumerGroupService } from '../src/tools/consumer-groups-service';
import { ZkConsumerGroupService } from '../src/tools/consumer-groups-zk';
import { collect } from '../src/tools/server-args';
import { adminClientOptions } from '../src/tools/admin-client-config';
import { ZkClient } from '../src/zk/zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';

const program = createCli('kafka-consumer-groups', 'List all consumer groups, describe a consumer group, reset or delete its offsets, or delete it.')
  .option('--zookeeper <host:port[/chroot]>', 'the ZooKeeper connection string (ZooKeeper-based consumers: /consumers)')
  .option('--bootstrap-server <host:port,...>', 'the brokers to connect to (groups managed by the group coordinator)')
  .option('--list', 'List all consumer groups.')
  .option('--describe', 'Describe a consumer group: committed offsets, log end offsets, lag and owners per partition.')
  .option('--delete', 'Delete an inactive consumer group and its committed offsets.')
  .option('--reset-offsets', 'Reset the committed offsets of an inactive consumer group.')
  .option('--delete-offsets', 'Delete offsets of consumer group. Supports one consumer group at the time, and multiple topics.')
  .option('--group <group>', 'The consumer group.')
  .option('--topic <topic[:partitions]>', 'With --reset-offsets or --delete-offsets: the topic (and optionally partitions, e.g. t:0,1) (repeatable).', collect, [] as string[])
  .option('--all-topics', 'With --reset-offsets: every topic the group has committed offsets for.')
  .option('--to-earliest', 'Reset offsets to the earliest offset.')
  .option('--to-latest', 'Reset offsets to the latest offset.')
  .option('--to-current', 'Reset offsets to the current offset.')
  .option('--to-offset <offset>', 'Reset offsets to this offset (clamped to the log).')
  .option('--shift-by <n>', 'Shift the current offsets by n (positive or negative).')
  .option('--to-datetime <datetime>', "Reset offsets to offset from datetime. Format: 'YYYY-MM-DDTHH:mm:SS.sss'")
  .option('--by-duration <duration>', "Reset offsets to offset by duration from current timestamp. Format: 'PnDTnHnMnS'")
  .option('--from-file <path to CSV file>', 'Reset offsets to values defined in CSV file.')
  .option('--all-groups', 'Apply to all consumer groups.')
  .option('--dry-run', 'Only show results without executing changes on Consumer Groups. Supported operations: reset-offsets.')
  .option('--execute', 'Execute operation. Supported operations: reset-offsets.')
  .option('--export', 'Export operation execution to a CSV file. Supported operations: reset-offsets.')
  .option('--command-config <command config property file>', 'Property file containing configs to be passed to Admin Client and Consumer.')
  .option('--members', 'Describe members of the group. This option may be used with \'--describe\' and \'--bootstrap-server\' options only.')
  .option('--offsets', 'Describe the group and list all topic partitions in the group along with their offset lag. This is the default sub-action of and may be used with \'--describe\' and \'--bootstrap-server\' options only.')
  .option('--state [states]', 'When specified with \'--describe\', includes the state of the group. When specified with \'--list\', it displays the state of all groups. It can also be used to list groups with specific states (e.g. --state Stable,Empty).')
  .option('--verbose', 'Provide additional information, if any, when describing the group. This option may be used with \'--offsets\'/\'--members\'/\'--state\' and \'--bootstrap-server\' options only.');

void runCli(program, async (p) => {
  const o = p.opts<ConsumerGroupsOptions>();
  checkConsumerGroupsArgs(o);
  let service: ConsumerGroupService;
  if (o.zookeeper !== undefined) {
    const bad = validateZkConnectString(o.zookeeper);
    if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${o.zookeeper}: ${bad}`);
    let zk: ZkClient;
    try {
      zk = await connectToolZk(o.zookeeper, 'Kafka tool');
    } catch (err) {
      throw new CliError(`Error: Executing consumer group command failed due to ${(err as Error).message}`);
    }
    process.stderr.write('Note: This will only show information about consumers that use ZooKeeper (not those using the Java consumer API).\n\n');
    service = new ZkConsumerGroupService(zk);
  } else {
    service = new KafkaConsumerGroupService(new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.commandConfig, '--command-config', { clientId: 'consumer-groups' })));
  }
  try {
    return await new ConsumerGroupCommand(service, (line) => process.stdout.write(`${line}\n`), (line) => process.stderr.write(`${line}\n`)).run(o);
  } finally {
    service.close();
  }
});
