#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { ZkClient } from '../src/zk/zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { executeReassignment, generateReassignment, verifyReassignment } from '../src/tools/reassign-partitions';

const program = createCli('kafka-reassign-partitions', 'Move partitions between replicas (ZooKeeper form, as Kafka 0.10 - 2.5).')
  .requiredOption('--zookeeper <host:port[/chroot]>', 'the ZooKeeper connection string')
  .option('--generate', 'generate a candidate assignment for --topics-to-move-json-file onto --broker-list')
  .option('--execute', 'start the reassignment in --reassignment-json-file')
  .option('--verify', 'check the status of the reassignment in --reassignment-json-file')
  .option('--topics-to-move-json-file <file>', '{"topics":[{"topic":"foo"}],"version":1}')
  .option('--broker-list <ids>', 'the brokers to move the topics to, e.g. "1,2"')
  .option('--reassignment-json-file <file>', 'the reassignment, as printed by --generate')
  .option('--disable-rack-aware', 'accepted and ignored (kafka-ts has no racks)');

void runCli(program, async (p) => {
  const o = p.opts<{ zookeeper: string; generate?: boolean; execute?: boolean; verify?: boolean; topicsToMoveJsonFile?: string; brokerList?: string; reassignmentJsonFile?: string }>();
  if ([o.generate, o.execute, o.verify].filter(Boolean).length !== 1) throw new CliError('Command must include exactly one action: --generate, --execute or --verify');
  if (o.generate && (o.topicsToMoveJsonFile === undefined || o.brokerList === undefined)) throw new CliError('If --generate option is used, command must include both --topics-to-move-json-file and --broker-list options');
  if ((o.execute || o.verify) && o.reassignmentJsonFile === undefined) throw new CliError('If --execute or --verify option is used, command must include --reassignment-json-file that was output during the --generate option');
  const bad = validateZkConnectString(o.zookeeper);
  if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${o.zookeeper}: ${bad}`);
  const zk = await ZkClient.connect({ connectString: o.zookeeper, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, name: 'Kafka tool' }).catch((err: Error) => {
    throw new CliError(`Unable to connect to ZooKeeper at ${o.zookeeper}: ${err.message}`);
  });
  const out = (line: string): void => void process.stdout.write(`${line}\n`);
  try {
    if (o.generate) return await generateReassignment(zk, o.topicsToMoveJsonFile as string, o.brokerList as string, out);
    if (o.execute) return await executeReassignment(zk, o.reassignmentJsonFile as string, out);
    return await verifyReassignment(zk, o.reassignmentJsonFile as string, out);
  } finally {
    zk.close();
  }
});
