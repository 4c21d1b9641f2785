import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigException } from '../common/config/config-def';
import type { ZkTlsFiles } from '../zk/zk-client';
import { loadClientTls, sslSettings } from './ssl-factory';

/** A key's text as configured; undefined when unset. */
export type ZkTlsLookup = (key: string) => string | undefined;

/** ZooKeeper's KeyStoreFileType.fromPropertyValueOrFileName: the type, else the file name's extension. */
function storeType(key: string, type: string | undefined, location: string): string {
  const given = type?.trim();
  if (given !== undefined && given !== '') {
    const upper = given.toUpperCase();
    if (upper === 'JKS' || upper === 'PEM' || upper === 'PKCS12') return upper;
    throw new ConfigException(`Invalid value ${given} for configuration ${key}: KeyStore type ${given} is not supported (JKS, PKCS12 or PEM)`);
  }
  const ext = path.extname(location).toLowerCase();
  if (ext === '.jks') return 'JKS';
  if (ext === '.pem') return 'PEM';
  if (ext === '.p12' || ext === '.pfx') return 'PKCS12';
  throw new ConfigException(`Unable to auto-detect store file type from file name: ${location}; set ${key}`);
}

/**
 * Kafka 2.8's ZooKeeper client TLS (KIP-515, KafkaConfig.zkClientConfigFromKafkaConfig), for the broker: with
 * `zookeeper.ssl.client.enable=true`, the keystore and truststore (`zookeeper.ssl.keystore.*`,
 * `zookeeper.ssl.truststore.*`, JKS, PKCS12 or PEM, the type from the file name when not given) written out as
 * the PEM files the ZooKeeper C client reads (ca, chain, key encrypted with a random passphrase) in a private
 * temporary folder; undefined when TLS is off, as Kafka ignores the other keys then. What the C client cannot do
 * is refused, not ignored: host name verification (`zookeeper.ssl.endpoint.identification.algorithm` must be
 * empty: the client checks the server's chain, not its name), protocol and cipher lists, CRL and OCSP checks, and
 * a connection without a client certificate or a truststore.
 */
export function zooKeeperTlsFiles(get: ZkTlsLookup): { files: ZkTlsFiles; dispose: () => void } | undefined {
  if ((get('zookeeper.ssl.client.enable') ?? 'false').trim().toLowerCase() !== 'true') return undefined;
  const refuse = (key: string, why: string): never => {
    throw new ConfigException(`${key}=${get(key) ?? ''} cannot be honoured: ${why}; see docs/security-zookeeper.md`);
  };
  if ((get('zookeeper.ssl.endpoint.identification.algorithm') ?? 'HTTPS').trim() !== '') {
    refuse('zookeeper.ssl.endpoint.identification.algorithm', "kafka-ts's ZooKeeper client verifies the server's certificate chain but not its host name, so set it to the empty string");
  }
  for (const key of ['zookeeper.ssl.enabled.protocols', 'zookeeper.ssl.cipher.suites']) {
    if ((get(key) ?? '').trim() !== '') refuse(key, "kafka-ts's ZooKeeper client negotiates with OpenSSL's default protocols and cipher suites");
  }
  for (const key of ['zookeeper.ssl.crl.enable', 'zookeeper.ssl.ocsp.enable']) {
    if ((get(key) ?? 'false').trim().toLowerCase() === 'true') refuse(key, "kafka-ts's ZooKeeper client checks no revocation lists");
  }
  const keystore = get('zookeeper.ssl.keystore.location')?.trim();
  if (keystore === undefined || keystore === '') refuse('zookeeper.ssl.keystore.location', "kafka-ts's ZooKeeper client connects with a client certificate only (the C client needs one), so set the keystore");
  const truststore = get('zookeeper.ssl.truststore.location')?.trim();
  if (truststore === undefined || truststore === '') refuse('zookeeper.ssl.truststore.location', "kafka-ts's ZooKeeper client trusts only the certificates of a truststore (not the system's), so set it");
  const keystoreType = storeType('zookeeper.ssl.keystore.type', get('zookeeper.ssl.keystore.type'), keystore as string);
  const truststoreType = storeType('zookeeper.ssl.truststore.type', get('zookeeper.ssl.truststore.type'), truststore as string);
  // The broker's own store readers, under the ssl.* names they know; ZooKeeper's PEM keystore key is encrypted
  // with the keystore password, if at all.
  const keystorePassword = get('zookeeper.ssl.keystore.password');
  const mapped: Record<string, string | undefined> = {
    'ssl.keystore.type': keystoreType,
    'ssl.keystore.location': keystore,
    'ssl.keystore.password': keystoreType === 'PEM' ? undefined : keystorePassword,
    'ssl.key.password': keystoreType === 'PEM' ? keystorePassword : undefined,
    'ssl.truststore.type': truststoreType,
    'ssl.truststore.location': truststore,
    'ssl.truststore.password': get('zookeeper.ssl.truststore.password'),
  };
  const context = loadClientTls(sslSettings((key) => mapped[key])).context;
  let key = context.key;
  let cert = context.cert;
  if (context.pfx !== undefined) ({ key, cert } = pkcs12ToPem(keystore as string, context.passphrase ?? ''));
  if (key === undefined || cert === undefined || context.ca === undefined) throw new ConfigException(`No key and certificate in ${keystore} (zookeeper.ssl.keystore.location)`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kafka-ts-zk-tls-'));
  // The C client takes "ca,cert,key,passphrase": no comma may appear in them.
  if (dir.includes(',')) throw new ConfigException(`The temporary folder ${dir} has a comma in its name, which the ZooKeeper C client cannot take`);
  const passphrase = randomBytes(24).toString('hex');
  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const files: ZkTlsFiles = {
    caFile: write('ca.pem', `${context.ca.join('\n')}\n`),
    certFile: write('chain.pem', `${cert}\n`),
    keyFile: write('key.pem', createPrivateKey(key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString()),
    keyPassphrase: passphrase,
  };
  return { files, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/** Node reads no PKCS12 into PEM; OpenSSL's command does (the password through the environment, not argv). */
function pkcs12ToPem(location: string, password: string): { key: string; cert: string } {
  let text: string;
  try {
    text = execFileSync('openssl', ['pkcs12', '-in', location, '-nodes', '-passin', 'env:KAFKA_TS_STORE_PASSWORD'], { env: { ...process.env, KAFKA_TS_STORE_PASSWORD: password }, stdio: ['ignore', 'pipe', 'pipe'] }).toString('utf8');
  } catch {
    throw new ConfigException(`Failed to load SSL keystore ${location} of type PKCS12 (zookeeper.ssl.keystore.location, zookeeper.ssl.keystore.password): Keystore was tampered with, or password was incorrect`);
  }
  const blocks = (kind: RegExp): string[] => [...text.matchAll(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g)].filter((m) => kind.test(m[1] as string)).map((m) => m[0]);
  const key = blocks(/PRIVATE KEY$/)[0];
  const certs = blocks(/^CERTIFICATE$/);
  if (key === undefined || certs.length === 0) throw new ConfigException(`Failed to load SSL keystore ${location} of type PKCS12 (zookeeper.ssl.keystore.location): no private key entry`);
  return { key, cert: certs.join('\n') };
}
