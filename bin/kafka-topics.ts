#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { ZkClient } from '../src/zk/zk-client';
import { connectToolZk } from '../src/tools/tool-zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { collect } from '../src/tools/server-args';
import { TopicCommand, TopicCommandError, checkTopicCommandArgs, topicCommandOptions } from '../src/tools/topic-command';
import { AdminClientTopicService } from '../src/tools/topic-command-admin';
import { adminClientConfig, adminNetworkClient } from '../src/tools/admin-client-config';
import { formatLog4jTimestamp } from '../src/common/time-format';

const program = createCli('kafka-topics', 'Create, delete, describe, or change a topic.')
  .option('--bootstrap-server <server to connect to>', "REQUIRED: The Kafka server to connect to. In case of providing this, a direct Zookeeper connection won't be required.")
  .option('--command-config <command config property file>', 'Property file containing configs to be passed to Admin Client. This is used only with --bootstrap-server option.')
  .option('--zookeeper <hosts>', 'DEPRECATED, The connection string for the zookeeper connection in the form host:port. Multiple hosts can be given to allow fail-over.')
  .option('--create', 'Create a new topic.')
  .option('--list', 'List all available topics.')
  .option('--describe', 'List details for the given topics.')
  .option('--alter', 'Alter the number of partitions and/or the configuration of the topic.')
  .option('--delete', 'Delete a topic.')
  .option('--topic <topic>', 'The topic to create, alter, describe or delete; a regular expression except with --create.')
  .option('--partitions <n>', 'The number of partitions for the topic being created or altered.')
  .option('--replication-factor <n>', 'The replication factor for each partition in the topic being created.')
  .option('--replica-assignment <broker_id_for_part1_replica1:broker_id_for_part1_replica2,...>', 'A list of manual partition-to-broker assignments.')
  .option('--config <name=value>', 'A topic configuration override (repeatable).', collect, [] as string[])
  .option('--delete-config <name>', 'A topic configuration override to remove (repeatable, with --alter).', collect, [] as string[])
  .option('--if-not-exists', 'With --create: only create the topic if it does not exist.')
  .option('--if-exists', 'With --alter, --describe or --delete: only act if the topic exists.')
  .option('--under-replicated-partitions', 'With --describe: only partitions whose ISR is smaller than the replica list.')
  .option('--unavailable-partitions', 'With --describe: only partitions whose leader is not available.')
  .option('--under-min-isr-partitions', 'if set when describing topics, only show partitions whose isr count is less than the configured minimum. Not supported with the --zookeeper option.')
  .option('--at-min-isr-partitions', 'if set when describing topics, only show partitions whose isr count is equal to the configured minimum. Not supported with the --zookeeper option.')
  .option('--topics-with-overrides', 'With --describe: only topics that have configuration overrides.')
  .option('--exclude-internal', 'Exclude internal topics from --list and --describe.')
  .option('--disable-rack-aware', 'Disable rack-aware replica assignment (kafka-ts has no racks: accepted and ignored).')
  .option('--force', 'Suppress console prompts.');

void runCli(program, async (p) => {
  const o = topicCommandOptions(p);
  checkTopicCommandArgs(o);
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const failed = (err: unknown): number => {
    if (!(err instanceof TopicCommandError)) throw err;
    process.stdout.write(`Error while executing topic command : ${err.message}\n`);
    process.stderr.write(`[${formatLog4jTimestamp(new Date())}] ERROR ${err.exceptionClass}: ${err.message}\n (kafka.admin.TopicCommand$)\n`);
    return 1;
  };
  if (o.bootstrapServer !== undefined) {
    const config = adminClientConfig(o.bootstrapServer, o.commandConfig, 'adminclient-1');
    const client = adminNetworkClient(config);
    try {
      await new AdminClientTopicService(client, out, config.requestTimeoutMs).run(o);
      return 0;
    } catch (err) {
      return failed(err);
    } finally {
      client.close();
    }
  }
  const connect = o.zookeeper as string;
  const bad = validateZkConnectString(connect);
  if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${connect}: ${bad}`);
  let zk: ZkClient;
  try {
    zk = await connectToolZk(connect, 'Kafka tool');
  } catch (err) {
    throw new CliError(`Error while executing topic command : ${(err as Error).message}`);
  }
  try {
    await new TopicCommand(zk, out).run(o);
    return 0;
  } catch (err) {
    return failed(err);
  } finally {
    zk.close();
  }
});
