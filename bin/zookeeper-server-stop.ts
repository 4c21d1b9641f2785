#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Option } from 'commander';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { QUORUM_PEER_MAIN } from '../src/tools/zookeeper-locator';

// Kafka's zookeeper-server-stop.sh: signals (SIGTERM, or $SIGNAL) every java process running QuorumPeerMain on
// this machine, whoever started it. The hidden --cmdline-contains narrows that to processes whose command line
// has the given text (a config file path), so that tests can use this tool without stopping other servers.

const program = createCli('zookeeper-server-stop', 'Stop every ZooKeeper server (QuorumPeerMain) on this machine with SIGTERM, or the signal named by $SIGNAL.')
  .addOption(new Option('--cmdline-contains <text>').hideHelp());

void runCli(program, async (p) => {
  const { cmdlineContains } = p.opts<{ cmdlineContains?: string }>();
  const signal = signalFromEnv(process.env['SIGNAL'] ?? 'TERM');
  const pids = zookeeperPids(cmdlineContains);
  if (pids.length === 0) {
    process.stdout.write('No zookeeper server to stop\n'); // on stdout, as Kafka's script echoes it
    return 1;
  }
  let failed = 0;
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ESRCH') continue; // it exited meanwhile: stopped all the same
      process.stderr.write(`Cannot signal ZooKeeper process ${pid}: ${code ?? String(err)}\n`);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
});

/** kill -s accepts TERM, SIGTERM or 15. */
function signalFromEnv(value: string): NodeJS.Signals {
  const signals = os.constants.signals as Record<string, number>;
  const byNumber = Object.keys(signals).find((name) => String(signals[name]) === value);
  const name = byNumber ?? (value.toUpperCase().startsWith('SIG') ? value.toUpperCase() : `SIG${value.toUpperCase()}`);
  if (signals[name] === undefined) throw new CliError(`SIGNAL=${value} is not a signal name or number`);
  return name as NodeJS.Signals;
}

/** Java processes whose command line has the QuorumPeerMain class as an argument, from /proc. */
function zookeeperPids(mustContain: string | undefined): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch (err) {
    throw new CliError(`Cannot list processes in /proc: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return entries.filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid).flatMap((e) => {
    const args = readCmdline(e);
    if (!args || !args.includes(QUORUM_PEER_MAIN) || !path.basename(args[0] ?? '').startsWith('java')) return [];
    if (mustContain !== undefined && !args.some((a) => a.includes(mustContain))) return [];
    return [Number(e)];
  });
}

function readCmdline(pid: string): string[] | undefined {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return undefined; // exited meanwhile, or not ours to read
  }
}
