#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createInterface } from 'node:readline';
import { createCli, runCli } from '../src/tools/cli';
import { AclCommandOptions, AclUsageError, runAclCommand } from '../src/tools/acl-command';
import { ZK_SSL_CONFIG_KEYS } from '../src/security/zookeeper-tls';

const many = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

const program = createCli('kafka-acls', 'This tool helps to manage acls on kafka.')
  .option('--bootstrap-server <server to connect to>', 'A list of host/port pairs to use for establishing the connection to the Kafka cluster. This list should be in the form host1:port1,host2:port2,... This config is required for acl management using admin client API.')
  .option('--command-config <command-config>', 'A property file containing configs to be passed to Admin Client.')
  .option('--authorizer <authorizer>', 'Fully qualified class name of the authorizer, defaults to kafka.security.authorizer.AclAuthorizer.', 'kafka.security.authorizer.AclAuthorizer')
  .option('--authorizer-properties <authorizer-properties>', 'REQUIRED: properties required to configure an instance of Authorizer. These are key=val pairs. For the default authorizer the example values are: zookeeper.connect=localhost:2181', many)
  .option('--topic <topic>', 'topic to which ACLs should be added or removed. A value of * indicates ACL should apply to all topics.', many)
  .option('--cluster', 'Add/Remove cluster ACLs.')
  .option('--group <group>', 'Consumer Group to which the ACLs should be added or removed. A value of * indicates the ACLs should apply to all groups.', many)
  .option('--transactional-id <transactional-id>', 'The transactionalId to which ACLs should be added or removed. A value of * indicates the ACLs should apply to all transactionalIds.', many)
  .option('--delegation-token <delegation-token>', 'Delegation token to which ACLs should be added or removed. A value of * indicates ACL should apply to all tokens.', many)
  .option('--resource-pattern-type <ANY|MATCH|LITERAL|PREFIXED>', "The type of the resource pattern or pattern filter. When adding acls, this should be a specific pattern type, e.g. 'literal' or 'prefixed'. When listing or removing acls, a specific pattern type can be used to list or remove acls from specific resource patterns, or use the filter values of 'any' or 'match'", 'LITERAL')
  .option('--add', 'Indicates you are trying to add ACLs.')
  .option('--remove', 'Indicates you are trying to remove ACLs.')
  .option('--list', 'List ACLs for the specified resource, use --topic <topic> or --group <group> or --cluster to specify a resource.')
  .option('--operation <operation>', 'Operation that is being allowed or denied. Valid operation names are: Describe, DescribeConfigs, Alter, IdempotentWrite, Read, Delete, Create, ClusterAction, All, Write, AlterConfigs', many)
  .option('--allow-principal <allow-principal>', 'principal is in principalType:name format. Note that principalType must be supported by the Authorizer being used. User:* is the wild card indicating all users.', many)
  .option('--deny-principal <deny-principal>', 'principal is in principalType:name format. By default anyone not added through --allow-principal is denied.', many)
  .option('--principal <principal>', 'List ACLs for the specified principal. principal is in principalType:name format. Multiple --principal option can be passed.', many)
  .option('--allow-host <allow-host>', 'Host from which principals listed in --allow-principal will have access. If you have specified --allow-principal then the default for this option will be set to * which allows access from all hosts.', many)
  .option('--deny-host <deny-host>', 'Host from which principals listed in --deny-principal will be denied access. If you have specified --deny-principal then the default for this option will be set to * which denies access from all hosts.', many)
  .option('--producer', 'Convenience option to add/remove ACLs for producer role. This will generate ACLs that allows WRITE,DESCRIBE and CREATE on topic.')
  .option('--consumer', 'Convenience option to add/remove ACLs for consumer role. This will generate ACLs that allows READ,DESCRIBE on topic and READ on group.')
  .option('--idempotent', 'Enable idempotence for the producer. This should be used in combination with the --producer option.')
  .option('--force', 'Assume Yes to all queries and do not prompt.')
  .option(
    '--zk-tls-config-file <Authorizer ZooKeeper TLS configuration>',
    `Identifies the file where ZooKeeper client TLS connectivity properties for the authorizer are defined.  Any properties other than the following (with or without an "authorizer." prefix) are ignored: ${ZK_SSL_CONFIG_KEYS.join(', ')}. Note that if SASL is not configured and zookeeper.set.acl is supposed to be true due to mutual certificate authentication being used then it is necessary to explicitly specify --authorizer-properties zookeeper.set.acl=true`,
  );

if (process.argv.length <= 2) {
  program.outputHelp({ error: true });
  process.exit(1);
}

function confirm(question: string): Promise<boolean> {
  process.stdout.write(`${question}\n`);
  const rl = createInterface({ input: process.stdin });
  return new Promise((resolve) => {
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line.trim() === 'y');
    });
    rl.once('close', () => {
      if (!answered) resolve(false);
    });
  });
}

void runCli(program, async (p) => {
  const o = p.opts<AclCommandOptions>();
  if (o.authorizer !== undefined && o.authorizer !== 'kafka.security.authorizer.AclAuthorizer' && o.authorizer !== 'kafka.security.auth.SimpleAclAuthorizer') {
    process.stderr.write(`Error while executing ACL command: kafka-ts has no authorizer class ${o.authorizer}\n`);
    return 1;
  }
  try {
    return await runAclCommand(o, (text) => process.stdout.write(`${text}\n`), confirm);
  } catch (e) {
    // Kafka's printUsageAndDie: the message, then the usage, exit 1.
    if (e instanceof AclUsageError) {
      process.stderr.write(`${e.message}\n`);
      program.outputHelp({ error: true });
      return 1;
    }
    throw e;
  }
});
