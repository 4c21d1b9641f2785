#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { ConfigException } from '../src/common/config/config-def';
import { ZK_SSL_CONFIG_KEYS } from '../src/security/zookeeper-tls';
import { connectToolZk, ZkTlsConfigFileError, zkTlsConfigFromFile } from '../src/tools/tool-zk-client';
import { adminClientConfig, adminNetworkClient } from '../src/tools/admin-client-config';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { checkConfigCommandArgs, ConfigCommandError, ConfigCommandOptions, KafkaConfigCommand, ZkConfigCommand } from '../src/tools/config-command';
import { collect } from '../src/tools/server-args';
import { AdminZk } from '../src/zk/admin-zk';
import { ZkClient } from '../src/zk/zk-client';
import { validateZkConnectString } from '../src/zk/zk-connect-string';

const program = createCli('kafka-configs', 'This tool helps to manipulate and describe entity config for a topic, client, user, broker or ip')
  .option('--zookeeper <urls>', 'DEPRECATED. The connection string for the zookeeper connection in the form host:port. Multiple URLS can be given to allow fail-over.')
  .option('--bootstrap-server <server to connect to>', 'The Kafka server to connect to.')
  .option('--command-config <command config property file>', 'Property file containing configs to be passed to Admin Client (client.id, request.timeout.ms).')
  .option('--entity-type <type>', 'Type of entity (topics/clients/users/brokers/broker-loggers)', collect, [] as string[])
  .option('--entity-name <name>', 'Name of entity (topic name/client id/user principal name/broker id)', collect, [] as string[])
  .option('--entity-default', 'Default entity name for clients/users/brokers (applies to corresponding entity type in command line)')
  .option('--describe', 'List configs for the given entity.')
  .option('--alter', 'Alter the configuration for the entity.')
  .option('--add-config <k1=v1,k2=[v1,v2,v2],k3=v3>', 'Key Value pairs of configs to add. Square brackets can be used to group values which contain commas.')
  .option('--delete-config <k1,k2>', 'config keys to remove', collect, [] as string[])
  .option('--all', 'List all configs for the given topic, broker, or broker-logger entity (includes static configuration when the entity type is brokers)')
  .option('--zk-tls-config-file <ZooKeeper TLS configuration>', `Identifies the file where ZooKeeper client TLS connectivity properties are defined.  Any properties other than ${ZK_SSL_CONFIG_KEYS.join(', ')} are ignored.`);

void runCli(program, async (p) => {
  if (process.argv.length <= 2) throw new CliError('Add/Remove entity config for a topic, client, user or broker');
  const o = p.opts<ConfigCommandOptions>();
  checkConfigCommandArgs(o);
  const out = (line: string): void => {
    process.stdout.write(`${line}\n`);
  };
  const args = process.argv.slice(2).join(' ');
  try {
    if (o.zookeeper !== undefined) {
      const bad = validateZkConnectString(o.zookeeper);
      if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${o.zookeeper}: ${bad}`);
      out('Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.');
      out('Use --bootstrap-server instead to specify a broker to connect to.');
      let zk: ZkClient;
      try {
        // ConfigCommand.processCommandWithZk: the file's TLS settings over the system properties; with TLS client
        // authentication the nodes it writes are secure too.
        const zkTlsConfig = o.zkTlsConfigFile === undefined ? undefined : zkTlsConfigFromFile(o.zkTlsConfigFile);
        zk = await connectToolZk(o.zookeeper, 'ConfigCommand', { ...(zkTlsConfig === undefined ? {} : { zkTlsConfig }), tlsClientAuthSecures: true });
      } catch (err) {
        if (err instanceof ZkTlsConfigFileError) throw new ConfigCommandError(err.exceptionClass, err.message);
        if (err instanceof ConfigException) throw new ConfigCommandError('org.apache.kafka.common.config.ConfigException', err.message);
        throw new ConfigCommandError('kafka.zookeeper.ZooKeeperClientTimeoutException', (err as Error).message);
      }
      try {
        await new ZkConfigCommand(new AdminZk(zk), out).run(o);
      } finally {
        zk.close();
      }
    } else {
      // --command-config: the admin client's properties (security.protocol and ssl.* included).
      const client = adminNetworkClient(adminClientConfig(o.bootstrapServer as string, o.commandConfig, 'adminclient-1'));
      try {
        await new KafkaConfigCommand(client, out).run(o);
      } finally {
        client.close();
      }
    }
    return 0;
  } catch (err) {
    // Kafka's generic path ("Error while executing config command with args ..." and the exception), on one line.
    if (err instanceof ConfigCommandError) throw new CliError(`Error while executing config command with args '${args}': ${err.exceptionClass}: ${err.message}`);
    if (err instanceof Error && !(err instanceof CliError) && err.name === 'KafkaError') throw new CliError(`Error while executing config command with args '${args}': ${err.message}`);
    throw err;
  }
});
