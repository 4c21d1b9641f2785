#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { runZooKeeperShell } from '../src/tools/zookeeper-shell';

// Kafka's zookeeper-shell.sh hands its arguments to ZooKeeper's CLI as they are (`-server "$@"`), so there is no
// option parser here: the first argument is host:port[/chroot], the rest one command or none (read stdin).
runZooKeeperShell(process.argv.slice(2), process.stdin, {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
}).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
