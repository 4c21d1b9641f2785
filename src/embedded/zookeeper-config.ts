import fs from 'node:fs';
import path from 'node:path';

/**
 * JVM settings for small ZooKeeper servers that start fast on a busy 2-core machine: test data need not be
 * fsynced, and an ensemble re-elects within a couple of seconds (fastleader's notification backoff capped at 2 s
 * instead of 60 s). The embedded cluster, the test ensembles and the chaos cluster all run these.
 */
export const SMALL_ZOOKEEPER_JVM_OPTIONS: readonly string[] = [
  '-Xmx128m',
  '-Xms32m',
  '-XX:+UseSerialGC',
  '-XX:TieredStopAtLevel=1',
  '-XX:-UsePerfData',
  '-Djava.net.preferIPv4Stack=true',
  '-Dzookeeper.forceSync=no',
  '-Dzookeeper.jmx.log4j.disable=true',
  '-Dzookeeper.fastleader.maxNotificationInterval=2000',
];

export interface ZooKeeperServerConfig {
  /** The server's folder: its data/ folder and its config file go in it. */
  dir: string;
  clientAddress: string;
  clientPort: number;
  /** An ensemble's `server.N=host:quorumPort:electionPort` lines; none for a standalone server. */
  servers?: readonly string[];
  /** This server's N in those lines, written to data/myid (an ensemble member needs one). */
  myid?: number;
  tickTimeMs?: number;
  /** Ticks a follower may take to connect to and sync with the leader. */
  initLimit?: number;
  configFileName?: string;
  /**
   * A TLS client port beside the plain one (ZooKeeper 3.5+'s secureClientPort on NettyServerCnxnFactory), with
   * PKCS12 or JKS stores and the x509 authentication provider, so that TLS sessions are known by certificate.
   */
  secure?: { port: number; keyStore: string; trustStore: string; password: string };
}

/** Writes one server's data/ folder (with myid) and config file (zoo.cfg unless told); returns their paths. */
export function writeZooKeeperConfig(c: ZooKeeperServerConfig): { dataDir: string; configFile: string } {
  const dataDir = path.join(c.dir, 'data');
  fs.mkdirSync(dataDir, { recursive: true });
  if (c.myid !== undefined) fs.writeFileSync(path.join(dataDir, 'myid'), `${c.myid}\n`);
  const configFile = path.join(c.dir, c.configFileName ?? 'zoo.cfg');
  const lines = [
    `tickTime=${c.tickTimeMs ?? 500}`,
    // Brokers use short sessions; inspection clients want long ones that survive a busy machine, beyond
    // ZooKeeper's default cap of 20 ticks.
    'minSessionTimeout=1000',
    'maxSessionTimeout=60000',
    `initLimit=${c.initLimit ?? 10}`,
    'syncLimit=5',
    `dataDir=${dataDir}`,
    `clientPort=${c.clientPort}`,
    `clientPortAddress=${c.clientAddress}`,
    'maxClientCnxns=0',
    'admin.enableServer=false',
    '4lw.commands.whitelist=srvr,ruok,stat,dump',
    ...(c.secure === undefined
      ? []
      : [
          `secureClientPort=${c.secure.port}`,
          `secureClientPortAddress=${c.clientAddress}`,
          'serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory',
          `ssl.keyStore.location=${c.secure.keyStore}`,
          `ssl.keyStore.password=${c.secure.password}`,
          `ssl.trustStore.location=${c.secure.trustStore}`,
          `ssl.trustStore.password=${c.secure.password}`,
          'authProvider.x509=org.apache.zookeeper.server.auth.X509AuthenticationProvider',
        ]),
    ...(c.servers ?? []),
    '',
  ];
  fs.writeFileSync(configFile, lines.join('\n'));
  return { dataDir, configFile };
}
