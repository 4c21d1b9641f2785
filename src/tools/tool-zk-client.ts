import fs from 'node:fs';
import { getLogger } from '../common/logging/logging';
import { parseProperties } from '../common/config/properties';
import { ZkClient, ZkTls } from '../zk/zk-client';
import { toolZkSecurity } from '../security/zookeeper-login';
import { systemProperty } from '../security/system-property';
import { ZK_SSL_CONFIG_KEYS, zkTlsClientAuthEnabled, zkTlsConfig, ZkTlsLookup, zooKeeperTls } from '../security/zookeeper-tls';

/** No ZooKeeper TLS key configured: the system properties of KAFKA_OPTS alone decide. */
export const NO_ZK_TLS_CONFIG: ZkTlsLookup = () => undefined;

/** A --zk-tls-config-file that cannot be read: the Java exception Kafka's tools would print, and the file. */
export class ZkTlsConfigFileError extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
    this.name = 'ZkTlsConfigFileError';
  }
}

/**
 * Kafka's ZkSecurityMigrator.createZkClientConfigFromFile, which ConfigCommand, AclCommand and zookeeper-shell
 * share for `--zk-tls-config-file`: the file's KafkaConfig.ZkSslConfigToSystemPropertyMap keys (others are
 * ignored, as the option's help says: Utils.loadProps keeps only those), which win over the system properties.
 * `also` adds keys to keep (AclCommand's `authorizer.`-prefixed ones). A file that cannot be read throws
 * ZkTlsConfigFileError.
 */
export function zkTlsConfigFromFile(file: string, also: readonly string[] = []): ReadonlyMap<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw code === 'ENOENT' ? new ZkTlsConfigFileError('java.nio.file.NoSuchFileException', file) : new ZkTlsConfigFileError('java.io.IOException', `${file}: ${(err as Error).message}`);
  }
  const all = parseProperties(text);
  const kept = new Map<string, string>();
  for (const key of [...ZK_SSL_CONFIG_KEYS, ...also]) {
    const value = all.get(key);
    if (value !== undefined) kept.set(key, value);
  }
  // Kafka logs these at INFO "due to camel-case property names encouraging mistakes".
  const log = getLogger('kafka.admin.ZkSecurityMigrator');
  log.info(`Found ${kept.size} ZooKeeper client configuration properties in file ${file}`);
  for (const key of kept.keys()) log.info(`Setting ${key}`);
  return kept;
}

/**
 * A tool's ZooKeeper TLS: `configured` (a --zk-tls-config-file's keys, the authorizer's properties) over the
 * ZooKeeper system properties of KAFKA_OPTS (`-Dzookeeper.client.secure=true -Dzookeeper.ssl.keyStore.location=...`,
 * as the Java client reads them), through the broker's conversion (src/security/zookeeper-tls.ts). Undefined when
 * TLS is off. The PEM files it writes are removed when the process exits: a tool's sessions last as long as it.
 */
export function toolZkTls(configured: ZkTlsLookup = NO_ZK_TLS_CONFIG, env: NodeJS.ProcessEnv = process.env): { tls: ZkTls | undefined; clientAuth: boolean } {
  const settings = zkTlsConfig(configured, (name) => systemProperty(env, name));
  const made = zooKeeperTls(settings);
  if (made === undefined) return { tls: undefined, clientAuth: false };
  process.once('exit', () => made.dispose());
  return { tls: made.tls, clientAuth: zkTlsClientAuthEnabled(settings) };
}

export interface ToolZkOptions {
  /** The keys of a --zk-tls-config-file (zkTlsConfigFromFile). */
  zkTlsConfig?: ReadonlyMap<string, string>;
  /**
   * ConfigCommand's `JaasUtils.isZkSaslEnabled || KafkaConfig.zkTlsClientAuthEnabled(zkClientConfig)`: TLS client
   * authentication also makes the nodes it creates secure (they belong to the certificate).
   */
  tlsClientAuthSecures?: boolean;
}

/**
 * The ZooKeeper session of a tool run with `--zookeeper`: Kafka's commands build theirs as
 * `KafkaZkClient(connect, JaasUtils.isZkSaslEnabled, 30000, 30000, ...)` on a ZKClientConfig made from the system
 * properties (and, for kafka-configs, its --zk-tls-config-file), so a tool logs in with the JAAS `Client` section
 * named in KAFKA_OPTS, then creates nodes with secure ACLs like the brokers, and connects over TLS when
 * `-Dzookeeper.client.secure=true` (or the file) says so. Settings that cannot be honoured reject the promise, as
 * a failed connection does.
 */
export async function connectToolZk(connectString: string, name: string, options: ToolZkOptions = {}): Promise<ZkClient> {
  const file = options.zkTlsConfig;
  const { tls, clientAuth } = toolZkTls(file === undefined ? NO_ZK_TLS_CONFIG : (key) => file.get(key));
  const security = toolZkSecurity(process.env, options.tlsClientAuthSecures === true && clientAuth);
  return ZkClient.connect({ connectString, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, name, ...security, ...(tls === undefined ? {} : { tls }) });
}
