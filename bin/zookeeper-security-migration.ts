#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { runZkSecurityMigrator } from '../src/tools/zk-security-migrator';

// Kafka's bin/zookeeper-security-migration.sh (kafka.admin.ZkSecurityMigrator). Its options have dots in their names
// (--zookeeper.acl), which joptsimple takes as they are: the parser is the tool's own, not commander.
runZkSecurityMigrator(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
