#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { createCli, runCli } from '../src/tools/cli';
import { findProcesses } from '../src/tools/find-processes';

const program = createCli('kafka-server-stop', 'Stop the kafka-ts brokers running on this machine (SIGTERM, or $SIGNAL).').option(
  '--process-role <word>',
  'only stop brokers whose command line also contains this word (e.g. a config file path)',
);

void runCli(program, async (p) => {
  const role = p.opts<{ processRole?: string }>().processRole;
  const signal = (process.env['SIGNAL'] ?? 'TERM').replace(/^SIG/, '');
  // A node process running the start script is a broker; `node` keeps the shell wrappers of tests out.
  const words = ['node', 'bin/kafka-server-start.ts', ...(role !== undefined ? [role] : [])];
  const pids = findProcesses(words);
  if (pids.length === 0) {
    process.stdout.write('No kafka server to stop\n');
    return 1;
  }
  for (const pid of pids) process.kill(pid, `SIG${signal}` as NodeJS.Signals);
  return 0;
});
