import { ConfigException } from '../common/config/config-def';
import { getLogger } from '../common/logging/logging';
import { jaasFileFromKafkaOpts } from '../security/jaas-config';
import { systemProperty } from '../security/system-property';
import { isZkSaslEnabled, zkClientCredentials } from '../security/zookeeper-login';
import { ZK_SSL_CONFIG_KEYS, zkTlsClientAuthEnabled, zkTlsConfig, ZkTlsLookup } from '../security/zookeeper-tls';
import { NO_ZK_TLS_CONFIG, toolZkTls, ZkTlsConfigFileError, zkTlsConfigFromFile } from './tool-zk-client';
import { SECURE_ROOT_PATHS } from '../zk/zk-acls';
import { ZkClient } from '../zk/zk-client';
import { ZkCode, ZkError } from '../zk/zk-error';

/*
 * Kafka's bin/zookeeper-security-migration.sh (kafka.admin.ZkSecurityMigrator): sets ZkData.defaultAcls on every
 * node under Kafka's secure root paths (and on the root), secure or open, over a session that logs in with the
 * JAAS Client section or with a TLS client certificate (--zk-tls-config-file, or ZooKeeper's system properties in
 * KAFKA_OPTS). Its options are joptsimple's: `--name value` or `--name=value`, unique prefixes accepted.
 */

export const USAGE_MESSAGE = 'ZooKeeper Migration Tool Help. This tool updates the ACLs of znodes as part of the process of setting up ZooKeeper authentication.';

const TLS_CONFIG_FILE_OPTION = 'zk-tls-config-file';

interface OptionSpec {
  name: string;
  description: string;
  /** Absent for flags. */
  arg?: { type: 'String' | 'Integer'; describedAs?: string; default?: string };
}

const OPTIONS: readonly OptionSpec[] = [
  { name: 'enable.path.check', description: 'Checks if all the root paths exist in ZooKeeper before migration. If not, exit the command.' },
  { name: 'help', description: 'Print usage information.' },
  { name: 'version', description: 'Display Kafka version.' },
  {
    name: TLS_CONFIG_FILE_OPTION,
    description: `Identifies the file where ZooKeeper client TLS connectivity properties are defined.  Any properties other than ${ZK_SSL_CONFIG_KEYS.join(', ')} are ignored.`,
    arg: { type: 'String', describedAs: 'ZooKeeper TLS configuration' },
  },
  { name: 'zookeeper.acl', description: "Indicates whether to make the Kafka znodes in ZooKeeper secure or unsecure. The options are 'secure' and 'unsecure'", arg: { type: 'String' } },
  { name: 'zookeeper.connect', description: 'Sets the ZooKeeper connect string (ensemble). This parameter takes a comma-separated list of host:port pairs.', arg: { type: 'String', default: 'localhost:2181' } },
  { name: 'zookeeper.connection.timeout', description: 'Sets the ZooKeeper connection timeout.', arg: { type: 'Integer', default: '30000' } },
  { name: 'zookeeper.session.timeout', description: 'Sets the ZooKeeper session timeout.', arg: { type: 'Integer', default: '30000' } },
];

export interface MigratorOptions {
  zkAcl: string | undefined;
  zkUrl: string;
  sessionTimeoutMs: number;
  connectionTimeoutMs: number;
  enablePathCheck: boolean;
  tlsConfigFile: string | undefined;
  help: boolean;
  version: boolean;
  /** No arguments at all: Kafka prints the help then too. */
  empty: boolean;
}

/** joptsimple's OptionException messages, which Kafka prints (with the help) before exiting 1. */
export class MigratorOptionError extends Error {}

function findOption(name: string): OptionSpec {
  const exact = OPTIONS.find((o) => o.name === name);
  if (exact !== undefined) return exact;
  const matches = OPTIONS.filter((o) => o.name.startsWith(name));
  if (matches.length === 1) return matches[0] as OptionSpec;
  if (matches.length > 1) throw new MigratorOptionError(`Option '${name}' is ambiguous.  Possibilities: [${matches.map((m) => m.name).join(', ')}]`);
  throw new MigratorOptionError(`${name} is not a recognized option`);
}

/** ZkSecurityMigratorOptions: joptsimple parsing of Kafka's option set. */
export function parseMigratorArgs(args: readonly string[]): MigratorOptions {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  for (let i = 0; i < args.length; i++) {
    const word = args[i] as string;
    if (!word.startsWith('--') || word === '--') throw new MigratorOptionError(`Found non-option argument '${word}'`);
    const eq = word.indexOf('=');
    const name = word.slice(2, eq < 0 ? undefined : eq);
    const spec = findOption(name);
    if (spec.arg === undefined) {
      if (eq >= 0) throw new MigratorOptionError(`Option ['${spec.name}'] does not take an argument`);
      flags.add(spec.name);
      continue;
    }
    const value: string | undefined = eq >= 0 ? word.slice(eq + 1) : args[++i];
    if (value === undefined) throw new MigratorOptionError(`Option ['${spec.name}'] requires an argument`);
    if (spec.arg.type === 'Integer' && !/^[+-]?\d+$/.test(value)) throw new MigratorOptionError(`Cannot parse argument '${value}' of option ['${spec.name}']`);
    if (spec.arg.type === 'Integer' && Math.abs(Number(value)) > 2147483647) throw new MigratorOptionError(`Cannot parse argument '${value}' of option ['${spec.name}']`);
    values.set(spec.name, value);
  }
  return {
    zkAcl: values.get('zookeeper.acl'),
    zkUrl: values.get('zookeeper.connect') ?? 'localhost:2181',
    sessionTimeoutMs: Number(values.get('zookeeper.session.timeout') ?? 30000),
    connectionTimeoutMs: Number(values.get('zookeeper.connection.timeout') ?? 30000),
    enablePathCheck: flags.has('enable.path.check'),
    tlsConfigFile: values.get(TLS_CONFIG_FILE_OPTION),
    help: flags.has('help'),
    version: flags.has('version'),
    empty: args.length === 0,
  };
}

/**
 * joptsimple's BuiltinHelpFormatter table as parser.printHelpOn prints it: 80 columns, the description column at
 * 41; both columns wrap, continuation lines indented by two.
 */
export function migratorHelp(): string {
  const left = (o: OptionSpec): string => {
    if (o.arg === undefined) return `--${o.name}`;
    const arg = o.arg.describedAs === undefined ? o.arg.type : `${o.arg.type}: ${o.arg.describedAs}`;
    return `--${o.name} <${arg}>`;
  };
  const right = (o: OptionSpec): string => (o.arg?.default === undefined ? o.description : `${o.description} (default: ${o.arg.default})`);
  const COLUMN = 41;
  const lines = [`${'Option'.padEnd(COLUMN)}Description`, `${'------'.padEnd(COLUMN)}-----------`];
  for (const o of OPTIONS) {
    const l = wrap(left(o), COLUMN - 2);
    const r = wrap(right(o), 80 - COLUMN - 1);
    for (let i = 0; i < Math.max(l.length, r.length); i++) {
      const lText = i === 0 ? (l[0] ?? '') : l[i] === undefined ? '' : `  ${l[i] as string}`;
      const rText = i === 0 ? (r[0] ?? '') : r[i] === undefined ? '' : `  ${r[i] as string}`;
      lines.push(`${lText.padEnd(COLUMN)}${rText}`.trimEnd());
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Words into lines of at most `width` (continuation lines two shorter, for their indent). */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    const limit = out.length === 0 ? width : width - 2;
    if (line !== '' && line.length + 1 + word.length > limit) {
      out.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') out.push(line);
  return out;
}

export interface MigratorIo {
  out(line: string): void;
  err(line: string): void;
}

/** What Kafka's main prints for the exception that ends a run (e.printStackTrace(), without the frames). */
class MigratorFailure extends Error {
  constructor(readonly javaException: string) {
    super(javaException);
  }
}

/** The KeeperException Kafka's callbacks fail with, as its toString prints. */
function keeperException(err: ZkError): string {
  const words: Record<string, string> = { NOAUTH: 'NoAuth', NONODE: 'NoNode', SESSIONEXPIRED: 'SessionExpired', CONNECTIONLOSS: 'ConnectionLoss', INVALIDACL: 'InvalidACL', AUTHFAILED: 'AuthFailed' };
  const word = words[err.code] ?? err.code;
  return `org.apache.zookeeper.KeeperException$${word}Exception: KeeperErrorCode = ${word} for ${err.path}`;
}

/** ZkSecurityMigrator.run and main: the exit code (0 done, 1 refused or failed). */
export async function runZkSecurityMigrator(args: readonly string[], io: MigratorIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const log = getLogger('kafka.admin.ZkSecurityMigrator');
  let opts: MigratorOptions;
  try {
    opts = parseMigratorArgs(args);
  } catch (err) {
    if (!(err instanceof MigratorOptionError)) throw err;
    io.err(`joptsimple.OptionException: ${err.message}`);
    return 1;
  }
  const usageAndDie = (): number => {
    io.err(USAGE_MESSAGE);
    io.err(migratorHelp().trimEnd());
    return 1;
  };
  if (opts.empty) return usageAndDie();
  if (opts.help) {
    // Every kafka-ts tool answers --help the same way (Usage line, exit 0); Kafka's printUsageAndDie exit 1 is
    // kept for a run without arguments.
    io.out(`Usage: zookeeper-security-migration [options]\n\n${USAGE_MESSAGE}\n${migratorHelp().trimEnd()}`);
    return 0;
  }
  if (opts.version) {
    // AppInfoParser's line; kafka-ts has no Kafka commit id, which Kafka prints as unknown when it has none.
    io.out('2.8.0 (Commit:unknown)');
    return 0;
  }
  try {
    const jaasFile = jaasFileFromKafkaOpts(env['KAFKA_OPTS']);
    // Must have either SASL or TLS mutual authentication: the TLS settings are the file's (when given) over the
    // system properties passed with -D.
    let configured: ZkTlsLookup = NO_ZK_TLS_CONFIG;
    if (opts.tlsConfigFile !== undefined) {
      const file = zkTlsConfigFromFile(opts.tlsConfigFile);
      configured = (key) => file.get(key);
    }
    const tlsClientAuthEnabled = zkTlsClientAuthEnabled(zkTlsConfig(configured, (name) => systemProperty(env, name)));
    if (jaasFile === undefined && !tlsClientAuthEnabled) {
      io.err(
        `ERROR: No JAAS configuration file has been specified and no TLS client certificate has been specified. Please make sure that you set the system property java.security.auth.login.config or provide a ZooKeeper client TLS configuration via --${TLS_CONFIG_FILE_OPTION} <filename> identifying at least zookeeper.ssl.client.enable, zookeeper.clientCnxnSocket, and zookeeper.ssl.keystore.location`,
      );
      throw new MigratorFailure('java.lang.IllegalArgumentException: Incorrect configuration');
    }
    if (!tlsClientAuthEnabled && !isZkSaslEnabled(env)) {
      io.out(`ERROR: Security isn't enabled, most likely the file isn't set properly: ${jaasFile}`);
      throw new MigratorFailure('java.lang.IllegalArgumentException: Incorrect configuration');
    }
    let secure: boolean;
    if (opts.zkAcl === 'secure') secure = true;
    else if (opts.zkAcl === 'unsecure') secure = false;
    else return usageAndDie();
    log.info(`zookeeper.acl option is ${opts.zkAcl}`);
    // Without a login section the nodes belong to the certificate (x509), as the broker's do.
    const auth = zkClientCredentials(env);
    const { tls } = toolZkTls(configured, env);
    const zk = await ZkClient.connect({
      connectString: opts.zkUrl,
      sessionTimeoutMs: opts.sessionTimeoutMs,
      connectionTimeoutMs: opts.connectionTimeoutMs,
      name: 'ZkSecurityMigrator',
      maxInFlightRequests: 100,
      ...(auth === undefined ? {} : { auth }),
      ...(tls === undefined ? {} : { tls }),
      secureAcls: secure,
    }).catch((err: Error) => {
      throw new MigratorFailure(`kafka.zookeeper.ZooKeeperClientTimeoutException: ${err.message}`);
    });
    try {
      return await new ZkSecurityMigrator(zk, io).run(opts.enablePathCheck);
    } finally {
      zk.close();
    }
  } catch (err) {
    if (err instanceof MigratorFailure) io.err(err.javaException);
    else if (err instanceof ZkTlsConfigFileError) io.err(`${err.exceptionClass}: ${err.message}`);
    else if (err instanceof ConfigException) io.err(`org.apache.kafka.common.config.ConfigException: ${err.message}`);
    else if (err instanceof ZkError) io.err(keeperException(err));
    else io.err(err instanceof Error ? `org.apache.kafka.common.KafkaException: ${err.message}` : String(err));
    return 1;
  }
}

/** The walk of ZkSecurityMigrator: "/" alone, then every secure root path and everything under it. */
class ZkSecurityMigrator {
  private readonly log = getLogger('kafka.admin.ZkSecurityMigrator');

  constructor(
    private readonly zk: ZkClient,
    private readonly io: MigratorIo,
  ) {}

  async run(enablePathCheck: boolean): Promise<number> {
    await this.setAcl('/');
    const missing: string[] = [];
    for (const path of SECURE_ROOT_PATHS) if ((await this.zk.exists(path)) === null) missing.push(path);
    if (missing.length > 0) {
      this.io.out(`Warning: The following secure root paths do not exist in ZooKeeper: ${missing.join(',')}`);
      this.io.out('That might be due to an incorrect chroot is specified when executing the command.');
      if (enablePathCheck) {
        this.io.out('Exit the command.');
        return 1;
      }
    }
    for (const path of SECURE_ROOT_PATHS) {
      this.log.debug(`Going to set ACL for ${path}`);
      if (path === '/controller' && (await this.zk.exists(path)) === null) {
        this.log.debug(`Ignoring to set ACL for ${path}, because it doesn't exist`);
        continue;
      }
      // makeSurePersistentPathExists: a missing root is created, with this run's ACLs.
      await this.zk.ensurePath(path);
      await this.setAclsRecursively(path);
    }
    return 0;
  }

  /** Kafka issues the whole walk asynchronously; siblings go in parallel here too (bounded by the in-flight limit). */
  private async setAclsRecursively(path: string): Promise<void> {
    await this.setAcl(path);
    this.log.info(`Getting children to set ACLs for path ${path}`);
    let children: string[] | null;
    try {
      children = await this.zk.getChildren(path);
    } catch (err) {
      this.unexpected(err);
    }
    if (children === null) {
      this.log.warn(`Node is gone, it could be have been legitimately deleted: ${path}`);
      return;
    }
    await Promise.all(children.map((child) => this.setAclsRecursively(path === '/' ? `/${child}` : `${path}/${child}`)));
  }

  private async setAcl(path: string): Promise<void> {
    this.log.info(`Setting ACL for path ${path}`);
    try {
      await this.zk.setAcl(path, this.zk.defaultAcls(path));
      this.log.info(`Successfully set ACLs for ${path}`);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NONODE') {
        this.log.warn(`Znode is gone, it could be have been legitimately deleted: ${path}`);
        return;
      }
      this.unexpected(err);
    }
  }

  /** SetACLCallback's and GetChildrenCallback's other results: a line on stdout, then the run fails with it. */
  private unexpected(err: unknown): never {
    if (!(err instanceof ZkError)) throw err;
    if (err.code === 'SESSIONEXPIRED') this.io.out('ZooKeeper session expired while changing ACLs');
    else this.io.out(`Unexpected return code: ${ZkCode[err.code]}`);
    throw err;
  }
}
