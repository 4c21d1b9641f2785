import fs from 'node:fs';
import path from 'node:path';

/** A ZooKeeper server ready to start: the java to run and its class path. */
export interface ZooKeeperInstallation {
  /** The java executable. */
  readonly java: string;
  /** Class path entries, in order: the conf dir first (so its log4j.properties/logback.xml is found), then jars. */
  readonly classpath: readonly string[];
  /** Where it was found, for messages. */
  readonly origin: string;
}

export const QUORUM_PEER_MAIN = 'org.apache.zookeeper.server.quorum.QuorumPeerMain';

export const ZOOKEEPER_INSTALL_HINT = "run 'sudo apt-get install -y zookeeper' (or set ZOOKEEPER_HOME)";

const DEBIAN_JAR = '/usr/share/java/zookeeper.jar';
const DEBIAN_CONF_DIR = '/etc/zookeeper/conf';
// Debian's zookeeper.jar manifest names slf4j-api but no binding, so the packaged server logs nothing at all. Its
// package depends on log4j 1.2 and the slf4j binding for it, which makes ZooKeeper log as upstream does.
const DEBIAN_LOGGING_JARS = ['/usr/share/java/slf4j-log4j12.jar', '/usr/share/java/log4j-1.2.jar'];
// The manifest names netty-handler and netty-transport but not what they need to serve TLS (secureClientPort with
// NettyServerCnxnFactory): netty's codec, resolver and unix-common jars, which Debian installs beside them.
const DEBIAN_NETTY_TLS_JARS = ['/usr/share/java/netty-codec.jar', '/usr/share/java/netty-resolver.jar', '/usr/share/java/netty-transport-native-unix-common.jar'];

export class ZooKeeperNotInstalledError extends Error {
  override name = 'ZooKeeperNotInstalledError';
}

/**
 * Finds a ZooKeeper installation and a Java runtime to run it with. kafka-ts does not bundle ZooKeeper: it runs
 * the real server (Apache ZooKeeper 3.8, class QuorumPeerMain), either from an upstream tarball pointed to by
 * ZOOKEEPER_HOME or from Debian's `zookeeper` package. Used by bin/zookeeper-server-start.ts and the test helpers.
 */
export function locateZooKeeper(env: NodeJS.ProcessEnv = process.env): ZooKeeperInstallation {
  const java = locateJava(env);
  const home = env['ZOOKEEPER_HOME'];
  if (home) return { java, classpath: tarballClasspath(home), origin: `ZOOKEEPER_HOME=${home}` };
  if (!isFile(DEBIAN_JAR)) throw new ZooKeeperNotInstalledError(`ZooKeeper is not installed: ${ZOOKEEPER_INSTALL_HINT}`);
  const classpath = [DEBIAN_CONF_DIR, DEBIAN_JAR, ...DEBIAN_LOGGING_JARS, ...DEBIAN_NETTY_TLS_JARS].filter((p) => fs.existsSync(p));
  return { java, classpath, origin: DEBIAN_JAR };
}

/**
 * The java arguments that run QuorumPeerMain on `configFile`. ZooKeeper's log4j (Debian) and logback (tarball)
 * configurations both read these properties; with them ZooKeeper logs to the console at INFO, as
 * zkServer.sh start-foreground and Kafka's zookeeper-server-start.sh do.
 */
export function quorumPeerMainArgs(installation: ZooKeeperInstallation, configFile: string, jvmOptions: readonly string[] = []): string[] {
  return [
    '-Dzookeeper.root.logger=INFO,CONSOLE',
    '-Dzookeeper.console.threshold=INFO',
    ...jvmOptions,
    '-cp',
    installation.classpath.join(path.delimiter),
    QUORUM_PEER_MAIN,
    configFile,
  ];
}

/** The upstream binary tarball layout: conf/, lib/*.jar, and (in a source build) zookeeper-*.jar at the top. */
function tarballClasspath(home: string): string[] {
  const topJars = listJars(home).filter((f) => path.basename(f).startsWith('zookeeper'));
  const libJars = listJars(path.join(home, 'lib'));
  const jars = [...topJars, ...libJars];
  if (!jars.some((f) => path.basename(f).startsWith('zookeeper'))) {
    throw new ZooKeeperNotInstalledError(
      `ZOOKEEPER_HOME=${home} has no zookeeper*.jar in it or in its lib/: point it at an unpacked apache-zookeeper-3.8.x-bin tarball, or unset it and run 'sudo apt-get install -y zookeeper'`,
    );
  }
  const conf = path.join(home, 'conf');
  return fs.existsSync(conf) ? [conf, ...jars] : jars;
}

function listJars(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.endsWith('.jar')).sort().map((n) => path.join(dir, n));
}

/** Like kafka-run-class.sh: JAVA_HOME/bin/java when JAVA_HOME is set, else java from PATH. */
function locateJava(env: NodeJS.ProcessEnv): string {
  const javaHome = env['JAVA_HOME'];
  if (javaHome) {
    const java = path.join(javaHome, 'bin', 'java');
    if (isExecutable(java)) return java;
    throw new ZooKeeperNotInstalledError(`JAVA_HOME=${javaHome} has no bin/java: fix JAVA_HOME, or unset it to use java from PATH`);
  }
  for (const dir of (env['PATH'] ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const java = path.join(dir, 'java');
    if (isExecutable(java)) return java;
  }
  throw new ZooKeeperNotInstalledError(
    "Java is not installed (ZooKeeper needs it): run 'sudo apt-get install -y zookeeper' (it pulls in a JRE) or set JAVA_HOME",
  );
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}
