#!/bin/sh
':' //; exec node $KAFKA_NODE_OPTS --import "file://$(dirname "$(readlink -f "$0")")/../node_modules/tsx/dist/loader.mjs" "$(readlink -f "$0")" "$@"
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CliError, createCli, runCli } from '../src/tools/cli';
import { loadServerProperties, takeDaemonFlag } from '../src/tools/server-args';
import { locateZooKeeper, quorumPeerMainArgs, ZooKeeperInstallation, ZooKeeperNotInstalledError } from '../src/tools/zookeeper-locator';

// Kafka's zookeeper-server-start.sh: runs the real ZooKeeper (QuorumPeerMain) on the given file, in the
// foreground (this process waits, forwards SIGTERM/SIGINT/SIGHUP and exits with ZooKeeper's code) or with
// -daemon detached, its output in $LOG_DIR/zookeeper.out. JVM options come from the same variables as Kafka's.

const baseDir = path.resolve(__dirname, '..');
const { argv, daemon } = takeDaemonFlag(process.argv);
process.argv = argv;

const program = createCli('zookeeper-server-start', 'Start a ZooKeeper server. USAGE: zookeeper-server-start [-daemon] zookeeper.properties')
  .argument('<zookeeper.properties>', 'the ZooKeeper configuration file (standalone, or an ensemble member with server.N= lines)')
  .option('--myid <N>', 'for an ensemble: write N to dataDir/myid when that file does not exist yet (it must match if it does)');

void runCli(program, async (p) => {
  const [file] = p.args as [string];
  const { myid } = p.opts<{ myid?: string }>();
  ensureMyId(file, loadServerProperties(file, []), myid);
  const installation = locate();
  const logDir = path.resolve(process.env['LOG_DIR'] ?? path.join(baseDir, 'logs'));
  const args = quorumPeerMainArgs(installation, file, [...jvmOptions(), `-Dzookeeper.log.dir=${logDir}`]);
  if (daemon) {
    fs.mkdirSync(logDir, { recursive: true });
    const out = fs.openSync(path.join(logDir, 'zookeeper.out'), 'w');
    spawn(installation.java, args, { detached: true, stdio: ['ignore', out, out] }).unref();
    fs.closeSync(out);
    return 0;
  }
  return runInForeground(installation.java, args);
});

function locate(): ZooKeeperInstallation {
  try {
    return locateZooKeeper();
  } catch (err) {
    if (err instanceof ZooKeeperNotInstalledError) throw new CliError(err.message);
    throw err;
  }
}

/** kafka-run-class.sh's variables and defaults (zookeeper-server-start.sh sets the heap to 512M). */
function jvmOptions(): string[] {
  const words = (name: string, fallback: string): string[] => (process.env[name] ?? fallback).split(/\s+/).filter(Boolean);
  return [
    ...words('KAFKA_HEAP_OPTS', '-Xmx512M -Xms512M'),
    ...words(
      'KAFKA_JVM_PERFORMANCE_OPTS',
      '-server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true',
    ),
    ...words('KAFKA_LOG4J_OPTS', ''),
    ...words('KAFKA_OPTS', ''),
  ];
}

/**
 * ZooKeeper's rule (QuorumPeerConfig): a server runs as an ensemble member when more than one server.N= line
 * names a voting member (or standaloneEnabled=false), and then reads its id from dataDir/myid and fails without
 * it. Nothing to do for a standalone server; a dynamicConfigFile is left to ZooKeeper.
 */
function ensureMyId(file: string, props: Map<string, string>, myid: string | undefined): void {
  const ids = [...props].flatMap(([key, value]) => {
    const id = /^server\.(\d+)$/.exec(key)?.[1];
    return id !== undefined && !/:observer\s*(;|$)/.test(value) ? [Number(id)] : [];
  });
  const ensemble = ids.length > 1 || (ids.length > 0 && props.get('standaloneEnabled') === 'false');
  if (!ensemble || props.has('dynamicConfigFile')) {
    if (myid !== undefined) throw new CliError(`--myid applies to an ensemble (server.N= lines), and ${file} configures a standalone server`);
    return;
  }
  const dataDir = props.get('dataDir');
  if (!dataDir) throw new CliError(`${file} sets no dataDir, which ZooKeeper needs`);
  const myidFile = path.join(dataDir, 'myid');
  const existing = fs.existsSync(myidFile) ? fs.readFileSync(myidFile, 'utf8').trim() : undefined;
  if (myid === undefined) {
    if (existing === undefined) throw new CliError(`${myidFile} is missing: a member of an ensemble needs its server id there; create it or pass --myid N`);
    return;
  }
  const id = Number(myid);
  if (!/^\d+$/.test(myid) || !ids.includes(id)) throw new CliError(`--myid ${myid} is not one of the server ids in ${file}: ${ids.join(', ')}`);
  if (existing !== undefined && existing !== String(id)) throw new CliError(`${myidFile} says ${existing}, not ${id}: remove it or pass --myid ${existing}`);
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(myidFile, `${id}\n`);
}

function runInForeground(java: string, args: string[]): Promise<number> {
  // Kafka's script execs java; Node cannot, so java gets SIGTERM from the kernel should this process be killed
  // outright (SIGKILL) and have no chance to forward anything. setpriv execs java, which keeps its pid.
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((f) => fs.existsSync(f));
  const [file, argv] = setpriv ? [setpriv, ['--pdeathsig', 'TERM', java, ...args]] : [java, args];
  return new Promise((resolve, reject) => {
    const child = spawn(file, argv, { stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, forward);
    child.once('error', (err) => reject(new CliError(`Cannot run ${java}: ${err.message}`)));
    // Like a shell running java: its exit code, or 128 + the signal number when a signal ended it.
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0)));
  });
}
