#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { connectToolZk } from '../src/tools/tool-zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { runPreferredReplicaElection } from '../src/tools/preferred-replica-election';

const program = createCli('kafka-preferred-replica-election', 'Move the leadership of partitions back to their preferred (first assigned) replica.')
  .requiredOption('--zookeeper <host:port[/chroot]>', 'the ZooKeeper connection string')
  .option('--path-to-json-file <file>', 'the partitions, as {"partitions":[{"topic":"foo","partition":1}]}; all partitions when omitted');

void runCli(program, async (p) => {
  const o = p.opts<{ zookeeper: string; pathToJsonFile?: string }>();
  const bad = validateZkConnectString(o.zookeeper);
  if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${o.zookeeper}: ${bad}`);
  const zk = await connectToolZk(o.zookeeper, 'Kafka tool').catch((err: Error) => {
    throw new CliError(`Unable to connect to ZooKeeper at ${o.zookeeper}: ${err.message}`);
  });
  try {
    return await runPreferredReplicaElection(zk, o.pathToJsonFile, (line) => process.stdout.write(`${line}\n`));
  } finally {
    zk.close();
  }
});
