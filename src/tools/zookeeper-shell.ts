import * as readline from 'node:readline';
import { ZkError } from '../zk/zk-error';
import type { ZkStat } from '../zk/zk-client';
import { ZkShellSession } from '../zk/zk-shell-session';
import { zkClientCredentials } from '../security/zookeeper-login';
import type { ZkTlsLookup } from '../security/zookeeper-tls';
import { NO_ZK_TLS_CONFIG, toolZkTls, ZkTlsConfigFileError, zkTlsConfigFromFile } from './tool-zk-client';

/*
 * Kafka's bin/zookeeper-shell.sh: ZooKeeper 3.5's CLI (ZooKeeperMain, through Kafka's
 * ZooKeeperMainWithTlsSupportForKafka) on `host:port[/chroot]`, one command from the arguments or many from
 * stdin. Output, usage lines and error texts are the CLI's; results go to stdout, errors (and, as in
 * ZooKeeper's CLI, "Created /path") to stderr. `-zk-tls-config-file <file>` (anywhere among the arguments) or
 * ZooKeeper's system properties in KAFKA_OPTS connect it over TLS.
 */

export interface ShellOutput {
  out(line: string): void;
  err(line: string): void;
}

/** A parsed command line: the command, its flags and option values, and the remaining arguments. */
export interface ShellCommand {
  name: string;
  flags: Set<string>;
  values: Map<string, string>;
  args: string[];
}

interface CommandSpec {
  usage: string;
  flags: string;
  /** Options taking a value (`-v version`, `-t ttl`). */
  valued: string;
  minArgs: number;
  maxArgs: number;
}

/** ZooKeeper 3.5.9's commands as its CLI describes them (ZooKeeperMain.usage), those this shell runs. */
const COMMANDS: Readonly<{ [name: string]: CommandSpec | undefined }> = {
  addauth: { usage: 'addauth scheme auth', flags: '', valued: '', minArgs: 2, maxArgs: 2 },
  create: { usage: 'create [-s] [-e] [-c] [-t ttl] path [data] [acl]', flags: 'sec', valued: 't', minArgs: 1, maxArgs: 3 },
  delete: { usage: 'delete [-v version] path', flags: '', valued: 'v', minArgs: 1, maxArgs: 1 },
  deleteall: { usage: 'deleteall path', flags: '', valued: '', minArgs: 1, maxArgs: 1 },
  get: { usage: 'get [-s] [-w] path', flags: 'sw', valued: '', minArgs: 1, maxArgs: 1 },
  getAcl: { usage: 'getAcl [-s] path', flags: 's', valued: '', minArgs: 1, maxArgs: 1 },
  ls: { usage: 'ls [-s] [-w] [-R] path', flags: 'swR', valued: '', minArgs: 1, maxArgs: 1 },
  rmr: { usage: 'rmr path', flags: '', valued: '', minArgs: 1, maxArgs: 1 },
  set: { usage: 'set [-s] [-v version] path data', flags: 's', valued: 'v', minArgs: 2, maxArgs: 2 },
  stat: { usage: 'stat [-w] path', flags: 'w', valued: '', minArgs: 1, maxArgs: 1 },
  help: { usage: 'help', flags: '', valued: '', minArgs: 0, maxArgs: Infinity },
  quit: { usage: 'quit ', flags: '', valued: '', minArgs: 0, maxArgs: Infinity },
};

/** ZooKeeperMain.usage() of Kafka's TLS-aware wrapper, ZooKeeper 3.5.9's command list. */
export const SHELL_USAGE = [
  'ZooKeeper -server host:port [-zk-tls-config-file <file>] cmd args',
  '\taddauth scheme auth',
  '\tclose ',
  '\tconfig [-c] [-w] [-s]',
  '\tconnect host:port',
  '\tcreate [-s] [-e] [-c] [-t ttl] path [data] [acl]',
  '\tdelete [-v version] path',
  '\tdeleteall path',
  '\tdelquota [-n|-b] path',
  '\tget [-s] [-w] path',
  '\tgetAcl [-s] path',
  '\thistory ',
  '\tlistquota path',
  '\tls [-s] [-w] [-R] path',
  '\tls2 path [watch]',
  '\tprintwatches on|off',
  '\tquit ',
  '\treconfig [-s] [-v version] [[-file path] | [-members serverID=host:port1:port2;port3[,...]*]] | [-add serverId=host:port1:port2;port3[,...]]* [-remove serverId[,...]*]',
  '\tredo cmdno',
  '\tremovewatches path [-c|-d|-a] [-l]',
  '\trmr path',
  '\tset [-s] [-v version] path data',
  '\tsetAcl [-s] [-v version] [-R] path acl',
  '\tsetquota -n|-b val path',
  '\tstat [-w] path',
  '\tsync path',
];

/** ZooKeeperMain.MyCommandOptions.parseCommand: words split on blanks, "double quotes" keep blanks. */
export function splitCommandLine(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/"([^"]*)"|(\S+)/g)) out.push(m[1] ?? m[2] ?? '');
  return out;
}

/** A line the CLI refuses before running it: `usage` is printed (stderr), with `exitCode`. */
export class ShellUsageError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly printUsage = false,
  ) {
    super(message);
  }
}

/**
 * Commons CLI's POSIX parsing of one command's words: `-x` flags (grouped `-se` too) and `-v 3` values, before
 * or after the arguments; a wrong argument count or an unknown option gives the command's usage line.
 */
export function parseShellCommand(words: readonly string[]): ShellCommand {
  const name = words[0] ?? '';
  const spec = COMMANDS[name];
  if (spec === undefined) throw new ShellUsageError(`Command not found: Command not found ${name}`, 127, true);
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const args: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i] ?? '';
    if (w.length > 1 && w.startsWith('-') && name !== 'help' && name !== 'quit') {
      for (let j = 1; j < w.length; j++) {
        const c = w[j] ?? '';
        if (spec.flags.includes(c)) flags.add(c);
        else if (spec.valued.includes(c)) {
          const value = j + 1 < w.length ? w.slice(j + 1) : words[++i];
          if (value === undefined) throw new ShellUsageError(spec.usage, 1);
          values.set(c, value);
          break;
        } else throw new ShellUsageError(spec.usage, 1);
      }
    } else args.push(w);
  }
  if (args.length < spec.minArgs || args.length > spec.maxArgs) throw new ShellUsageError(spec.usage, 1);
  return { name, flags, values, args };
}

/** Java's Date.toString in this machine's zone: `Tue Dec 01 23:56:14 UTC 2026`. */
export function javaDateString(ms: number): string {
  const d = new Date(ms);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  const two = (n: number): string => String(n).padStart(2, '0');
  const zone = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(d).find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
  return `${days[d.getDay()]} ${months[d.getMonth()]} ${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone} ${d.getFullYear()}`;
}

const hex = (n: number | string): string => `0x${BigInt(n).toString(16)}`;

/** ZooKeeper's StatPrinter. */
export function formatShellStat(s: ZkStat): string[] {
  return [
    `cZxid = ${hex(s.czxid)}`,
    `ctime = ${javaDateString(s.ctime)}`,
    `mZxid = ${hex(s.mzxid)}`,
    `mtime = ${javaDateString(s.mtime)}`,
    `pZxid = ${hex(s.pzxid)}`,
    `cversion = ${s.cversion}`,
    `dataVersion = ${s.version}`,
    `aclVersion = ${s.aversion}`,
    `ephemeralOwner = ${hex(s.ephemeralOwner)}`,
    `dataLength = ${s.dataLength}`,
    `numChildren = ${s.numChildren}`,
  ];
}

/** ZKUtil.getPermString: c, d, r, w, a. */
export function permString(perms: number): string {
  return [[4, 'c'], [8, 'd'], [1, 'r'], [2, 'w'], [16, 'a']].map(([bit, c]) => ((perms & (bit as number)) !== 0 ? c : '')).join('');
}

/** CliWrapperException's wording of a KeeperException. */
export function keeperErrorText(err: ZkError): string {
  switch (err.code) {
    case 'NONODE':
      return `Node does not exist: ${err.path}`;
    case 'BADVERSION':
      return `version No is not valid : ${err.path}`;
    case 'NOTEMPTY':
      return `Node not empty: ${err.path}`;
    case 'NODEEXISTS':
      return `Node already exists: ${err.path}`;
    case 'NOCHILDRENFOREPHEMERALS':
      return `Ephemerals cannot have children: ${err.path}`;
    case 'NOAUTH':
      return `Insufficient permission : ${err.path}`;
    case 'INVALIDACL':
      return `Acl is not valid : ${err.path}`;
    default:
      return `KeeperErrorCode = ${KEEPER_CODE_MESSAGES[err.code] ?? err.code} for ${err.path}`;
  }
}

/** KeeperException.getCodeMessage: how ZooKeeper's CLI names the codes the cases above do not word themselves. */
const KEEPER_CODE_MESSAGES: Partial<Record<ZkError['code'], string>> = {
  SYSTEMERROR: 'SystemError',
  RUNTIMEINCONSISTENCY: 'RuntimeInconsistency',
  DATAINCONSISTENCY: 'DataInconsistency',
  CONNECTIONLOSS: 'ConnectionLoss',
  MARSHALLINGERROR: 'MarshallingError',
  UNIMPLEMENTED: 'Unimplemented',
  OPERATIONTIMEOUT: 'OperationTimeout',
  BADARGUMENTS: 'BadArguments',
  APIERROR: 'APIError',
  AUTHFAILED: 'AuthFailed',
  SESSIONEXPIRED: 'Session expired',
  SESSIONMOVED: 'Session moved',
};

/** PathUtils.validatePath's first complaint, or undefined for a valid path. */
export function pathError(path: string, sequential = false): string | undefined {
  if (path.length === 0) return 'Path length must be > 0';
  if (!path.startsWith('/')) return 'Path must start with / character';
  if (path.length === 1) return undefined;
  if (path.endsWith('/') && !sequential) return 'Path must not end with / character';
  if (path.includes('//')) return `Invalid path string "${path}" caused by empty node name specified @${path.indexOf('//') + 1}`;
  for (const part of path.split('/').slice(1)) {
    if (part === '.' || part === '..') return `Invalid path string "${path}" caused by relative paths not allowed @${path.indexOf(`/${part}`) + part.length}`;
  }
  return undefined;
}

function versionOf(cmd: ShellCommand, usage: string): number {
  const v = cmd.values.get('v');
  if (v === undefined) return -1;
  if (!/^-?\d+$/.test(v)) throw new ShellUsageError(usage, 1);
  return Number(v);
}

/** Runs one parsed command; the exit status a one-shot run would end with (0, or 1 after an error). */
export async function runShellCommand(session: ZkShellSession, cmd: ShellCommand, io: ShellOutput): Promise<number> {
  const spec = COMMANDS[cmd.name] as CommandSpec;
  if (cmd.name === 'help') {
    for (const line of SHELL_USAGE) io.err(line);
    return 0;
  }
  if (cmd.flags.has('w')) {
    io.err(`${cmd.name} -w: watches are not supported by kafka-ts's zookeeper-shell`);
    return 1;
  }
  if (cmd.name === 'create' && (cmd.flags.has('c') || cmd.values.has('t') || cmd.args.length > 2)) {
    io.err('create -c, -t and an ACL argument are not supported by kafka-ts\'s zookeeper-shell (the ZooKeeper binding creates open-ACL persistent, ephemeral and sequential nodes only)');
    return 1;
  }
  if (cmd.name === 'addauth') {
    try {
      await session.addAuth(cmd.args[0] as string, cmd.args[1] as string);
    } catch (err) {
      if (!(err instanceof ZkError)) throw err;
      io.err(err.code === 'AUTHFAILED' ? 'KeeperErrorCode = AuthFailed' : err.message);
      return 1;
    }
    return 0;
  }
  const path = cmd.args[0] ?? '';
  const invalid = pathError(path, cmd.name === 'create' && cmd.flags.has('s'));
  if (invalid !== undefined) {
    io.err(invalid);
    return 1;
  }
  try {
    switch (cmd.name) {
      case 'ls': {
        if (cmd.flags.has('R')) {
          for (const p of await session.lsRecursive(path)) io.out(p);
          break;
        }
        const { children, stat } = await session.ls(path);
        io.out(`[${children.join(', ')}]`);
        if (cmd.flags.has('s')) for (const l of formatShellStat(stat)) io.out(l);
        break;
      }
      case 'get': {
        const { data, stat } = await session.get(path);
        io.out(data === null ? 'null' : data.toString('utf8'));
        if (cmd.flags.has('s')) for (const l of formatShellStat(stat)) io.out(l);
        break;
      }
      case 'stat':
        for (const l of formatShellStat(await session.stat(path))) io.out(l);
        break;
      case 'create': {
        const data = cmd.args[1] === undefined ? null : Buffer.from(cmd.args[1], 'utf8');
        const seq = cmd.flags.has('s');
        const mode = cmd.flags.has('e') ? (seq ? 'EPHEMERAL_SEQUENTIAL' : 'EPHEMERAL') : seq ? 'PERSISTENT_SEQUENTIAL' : 'PERSISTENT';
        io.err(`Created ${await session.create(path, data, mode)}`);
        break;
      }
      case 'set': {
        const stat = await session.set(path, Buffer.from(cmd.args[1] ?? '', 'utf8'), versionOf(cmd, spec.usage));
        if (cmd.flags.has('s')) for (const l of formatShellStat(stat)) io.out(l);
        break;
      }
      case 'delete':
        await session.delete(path, versionOf(cmd, spec.usage));
        break;
      case 'rmr':
        io.err("The command 'rmr' has been deprecated. Please use 'deleteall' instead.");
        await session.deleteAll(path);
        break;
      case 'deleteall':
        await session.deleteAll(path);
        break;
      case 'getAcl': {
        const { acl, stat } = await session.getAcl(path);
        for (const a of acl) {
          io.out(`'${a.scheme},'${a.id}`);
          io.out(`: ${permString(a.perms)}`);
        }
        if (cmd.flags.has('s')) for (const l of formatShellStat(stat)) io.out(l);
        break;
      }
    }
  } catch (err) {
    if (err instanceof ShellUsageError) {
      io.err(err.message);
      return err.exitCode;
    }
    if (err instanceof ZkError) {
      io.err(keeperErrorText(err));
      return 1;
    }
    throw err;
  }
  return 0;
}

/** Parses and runs one command line; 127 for an unknown command (after the usage), 1 for a malformed one. */
async function executeLine(session: ZkShellSession, words: string[], io: ShellOutput): Promise<number> {
  let cmd: ShellCommand;
  try {
    cmd = parseShellCommand(words);
  } catch (err) {
    if (!(err instanceof ShellUsageError)) throw err;
    if (err.printUsage) for (const line of SHELL_USAGE) io.err(line);
    io.err(err.message);
    return err.exitCode;
  }
  return runShellCommand(session, cmd, io);
}

const TLS_CONFIG_FILE_OPTION = '-zk-tls-config-file';

const CONNECTED_EVENT = ['', 'WATCHER::', '', 'WatchedEvent state:SyncConnected type:None path:null'];
const CLOSED_EVENT = ['', 'WATCHER::', '', 'WatchedEvent state:Closed type:None path:null'];

/**
 * zookeeper-shell's main: `host:port[/chroot] [cmd args...]`. With a command it runs it and exits with its
 * status; without, it reads commands from stdin (JLine disabled, so no prompt) until `quit` or the end of input.
 */
export async function runZooKeeperShell(argv: readonly string[], input: NodeJS.ReadableStream, io: ShellOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  if (argv.length === 0) {
    io.err('USAGE: zookeeper-shell zookeeper_host:port[/path] [-zk-tls-config-file file] [args...]');
    return 1;
  }
  // ZooKeeperMainWithTlsSupportForKafka.main: the option and its file are taken out of the arguments, wherever
  // they are, and the file's settings go over the system properties.
  const args = [...argv];
  const at = args.indexOf(TLS_CONFIG_FILE_OPTION);
  let configured: ZkTlsLookup = NO_ZK_TLS_CONFIG;
  try {
    if (at >= 0) {
      const file = args[at + 1];
      if (file === undefined) throw new ZkTlsConfigFileError('java.lang.IllegalArgumentException', `Error: no filename provided with option ${TLS_CONFIG_FILE_OPTION}`);
      args.splice(at, 2);
      const settings = zkTlsConfigFromFile(file);
      configured = (key) => settings.get(key);
    }
  } catch (err) {
    if (!(err instanceof ZkTlsConfigFileError)) throw err;
    io.err(`Exception in thread "main" ${err.exceptionClass}: ${err.message}`);
    return 1;
  }
  const [server, ...rest] = args;
  if (server === undefined) {
    io.err('USAGE: zookeeper-shell zookeeper_host:port[/path] [-zk-tls-config-file file] [args...]');
    return 1;
  }
  // Kafka's script would take `--help` for a server address and hang connecting to it; this project's tools all
  // answer --help, and an option in the server's place is refused at once rather than tried as a host.
  if (server === '--help' || server === '-h') {
    io.out('Usage: zookeeper-shell zookeeper_host:port[/path] [-zk-tls-config-file file] [args...]');
    for (const line of SHELL_USAGE) io.out(line);
    return 0;
  }
  if (server.startsWith('-')) {
    io.err(`zookeeper-shell: ${server} is not an option; the first argument is zookeeper_host:port[/path]`);
    return 1;
  }
  io.out(`Connecting to ${server}`);
  const interactive = rest.length === 0;
  if (interactive) {
    io.out('Welcome to ZooKeeper!');
    io.out('JLine support is disabled');
  }
  let session: ZkShellSession;
  try {
    // ZooKeeper's CLI logs in with the JAAS Client section when KAFKA_OPTS names one; kafka-ts sends its
    // credentials with the digest scheme (see src/zk/zk-acls.ts). Nodes it creates stay open, as the CLI's do.
    // Over TLS when the file or the system properties say so; settings that cannot be honoured fail it here.
    const { tls } = toolZkTls(configured, env);
    session = await ZkShellSession.connect(server, 30000, zkClientCredentials(env), tls);
  } catch (err) {
    io.err(`Unable to connect to ZooKeeper at ${server}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
  for (const l of CONNECTED_EVENT) io.out(l);
  try {
    if (!interactive) return await executeLine(session, [...rest], io);
    const lines = readline.createInterface({ input, terminal: false });
    for await (const line of lines) {
      const words = splitCommandLine(line);
      if (words.length === 0) continue;
      if (words[0] === 'quit') {
        lines.close();
        session.close();
        for (const l of CLOSED_EVENT) io.out(l);
        return 0;
      }
      await executeLine(session, words, io);
    }
    return 0;
  } finally {
    session.close();
  }
}
