import { execFileSync } from 'node:child_process';
import { createPrivateKey, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigException } from '../common/config/config-def';
import type { TlsProtocolNumber, ZkTls } from '../zk/zk-client';
import { isTls13Suite, openSslCipherList } from './cipher-suites';
import { loadClientTls, sslSettings } from './ssl-factory';

/** A key's text as configured; undefined when unset. */
export type ZkTlsLookup = (key: string) => string | undefined;

/**
 * Kafka 2.8's KafkaConfig.ZkSslConfigToSystemPropertyMap: its ZooKeeper client TLS keys (KIP-515) and the
 * ZooKeeper client's own settings they stand for, which are also its Java system properties (ZKClientConfig,
 * X509Util: camelCase names, `zookeeper.client.secure` for the switch, `hostnameVerification` true or false).
 */
export const ZK_SSL_CONFIG_TO_SYSTEM_PROPERTY: ReadonlyMap<string, string> = new Map([
  ['zookeeper.ssl.client.enable', 'zookeeper.client.secure'],
  ['zookeeper.clientCnxnSocket', 'zookeeper.clientCnxnSocket'],
  ['zookeeper.ssl.keystore.location', 'zookeeper.ssl.keyStore.location'],
  ['zookeeper.ssl.keystore.password', 'zookeeper.ssl.keyStore.password'],
  ['zookeeper.ssl.keystore.type', 'zookeeper.ssl.keyStore.type'],
  ['zookeeper.ssl.truststore.location', 'zookeeper.ssl.trustStore.location'],
  ['zookeeper.ssl.truststore.password', 'zookeeper.ssl.trustStore.password'],
  ['zookeeper.ssl.truststore.type', 'zookeeper.ssl.trustStore.type'],
  ['zookeeper.ssl.protocol', 'zookeeper.ssl.protocol'],
  ['zookeeper.ssl.enabled.protocols', 'zookeeper.ssl.enabledProtocols'],
  ['zookeeper.ssl.cipher.suites', 'zookeeper.ssl.ciphersuites'],
  ['zookeeper.ssl.endpoint.identification.algorithm', 'zookeeper.ssl.hostnameVerification'],
  ['zookeeper.ssl.crl.enable', 'zookeeper.ssl.crl'],
  ['zookeeper.ssl.ocsp.enable', 'zookeeper.ssl.ocsp'],
]);

/** Those keys sorted, as the tools' help texts list them (`keys.toList.sorted.mkString(", ")`). */
export const ZK_SSL_CONFIG_KEYS: readonly string[] = [...ZK_SSL_CONFIG_TO_SYSTEM_PROPERTY.keys()].sort();

const BOOLEAN_KEYS = new Set(['zookeeper.ssl.client.enable', 'zookeeper.ssl.crl.enable', 'zookeeper.ssl.ocsp.enable']);
const ENDPOINT_IDENTIFICATION = 'zookeeper.ssl.endpoint.identification.algorithm';

function isTrue(value: string | undefined): boolean {
  return (value ?? '').trim().toLowerCase() === 'true';
}

/**
 * The ZooKeeper client TLS settings in effect, by Kafka key (KafkaConfig's zk*ConfigOrSystemProperty, and
 * ZKClientConfig for the tools): a key given in the configuration (server.properties, a --zk-tls-config-file, the
 * authorizer's properties) wins; else ZooKeeper's system property from KAFKA_OPTS (`-Dzookeeper.client.secure=true`
 * turns TLS on, `-Dzookeeper.ssl.hostnameVerification=false` is an empty algorithm); else undefined, and the
 * key's default applies.
 */
export function zkTlsConfig(configured: ZkTlsLookup, systemProperty: (name: string) => string | undefined): ZkTlsLookup {
  return (key) => {
    const own = configured(key);
    if (own !== undefined) return own;
    const name = ZK_SSL_CONFIG_TO_SYSTEM_PROPERTY.get(key);
    const value = name === undefined ? undefined : systemProperty(name);
    if (value === undefined) return undefined;
    // ZooKeeper reads its booleans with Boolean.parseBoolean (case-insensitive); Kafka turns them into its own forms.
    if (BOOLEAN_KEYS.has(key)) return isTrue(value) ? 'true' : 'false';
    if (key === ENDPOINT_IDENTIFICATION) return isTrue(value) ? 'HTTPS' : '';
    return value;
  };
}

/**
 * KafkaConfig.zkTlsClientAuthEnabled: TLS on, with a client connection socket and a keystore named, which is what
 * lets zookeeper.set.acl (and the tools' secure ACLs) rely on the certificate instead of a JAAS login.
 */
export function zkTlsClientAuthEnabled(get: ZkTlsLookup): boolean {
  const named = (key: string): boolean => (get(key) ?? '').trim() !== '';
  return isTrue(get('zookeeper.ssl.client.enable')) && named('zookeeper.clientCnxnSocket') && named('zookeeper.ssl.keystore.location');
}

const PROTOCOLS: Readonly<Record<string, TlsProtocolNumber>> = { TLSv1: 0x0301, 'TLSv1.1': 0x0302, 'TLSv1.2': 0x0303, 'TLSv1.3': 0x0304 };
const TLS_1_2: TlsProtocolNumber = 0x0303;
const TLS_1_3: TlsProtocolNumber = 0x0304;

/**
 * ZooKeeper 3.5.9's X509Util default cipher suites (the client Kafka 2.8 ships), in its order for Java 9 and
 * later: ECDHE with AES-GCM, then AES-CBC. No TLS 1.3 suite among them, so by default only TLS 1.2 is negotiated.
 */
const ZOOKEEPER_DEFAULT_CIPHER_SUITES: readonly string[] = [
  'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256',
  'TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384',
  'TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA',
  'TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA',
];

function invalid(key: string, value: string, reason: string): ConfigException {
  return new ConfigException(`Invalid value ${value} for configuration ${key}: ${reason}`);
}

/** A LIST key as Kafka's ConfigDef parses it: comma-separated, trimmed; undefined when unset. */
function listOf(get: ZkTlsLookup, key: string): string[] | undefined {
  const text = get(key)?.trim();
  return text === undefined ? undefined : text === '' ? [] : text.split(/\s*,\s*/);
}

/**
 * What the ZooKeeper client negotiates (ZooKeeper's SSLContextAndOptions): the protocols of
 * zookeeper.ssl.enabled.protocols, else only zookeeper.ssl.protocol's (TLSv1.2 by default); the suites of
 * zookeeper.ssl.cipher.suites (Java's names, mapped to OpenSSL's by cipher-suites.ts), else ZooKeeper's defaults.
 * OpenSSL takes a version range and two suite lists (TLS 1.3's apart), so the protocols become their lowest to
 * highest, as the broker's listeners take ssl.enabled.protocols; a version none of the suites can serve is
 * dropped, as Java's TLS does, and a configuration left with none is refused here rather than at the handshake.
 */
export function zkTlsProtocols(get: ZkTlsLookup): Pick<ZkTls, 'minVersion' | 'maxVersion' | 'cipherList' | 'cipherSuites'> {
  const enabled = listOf(get, 'zookeeper.ssl.enabled.protocols');
  const key = enabled === undefined ? 'zookeeper.ssl.protocol' : 'zookeeper.ssl.enabled.protocols';
  const protocols = enabled ?? [(get('zookeeper.ssl.protocol') ?? 'TLSv1.2').trim()];
  if (protocols.length === 0) throw invalid(key, '', 'at least one protocol must be enabled');
  const versions = protocols.map((p) => {
    const version = PROTOCOLS[p];
    if (version === undefined) throw invalid(key, protocols.join(','), `Unsupported protocol ${p} (TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)`);
    return version;
  });
  const suites = listOf(get, 'zookeeper.ssl.cipher.suites') ?? ZOOKEEPER_DEFAULT_CIPHER_SUITES;
  if (suites.length === 0) throw invalid('zookeeper.ssl.cipher.suites', '', 'at least one cipher suite must be enabled');
  const tls13 = suites.filter(isTls13Suite);
  const older = suites.filter((s) => !isTls13Suite(s));
  let cipherList: string | undefined;
  let cipherSuites: string | undefined;
  try {
    cipherList = older.length === 0 ? undefined : openSslCipherList(older);
    cipherSuites = tls13.length === 0 ? undefined : openSslCipherList(tls13);
  } catch (e) {
    throw invalid('zookeeper.ssl.cipher.suites', suites.join(','), (e as Error).message);
  }
  let minVersion = Math.min(...versions) as TlsProtocolNumber;
  let maxVersion = Math.max(...versions) as TlsProtocolNumber;
  if (cipherSuites === undefined && maxVersion > TLS_1_2) maxVersion = TLS_1_2;
  if (cipherList === undefined && minVersion < TLS_1_3) minVersion = TLS_1_3;
  if (minVersion > maxVersion) {
    throw new ConfigException(`No cipher suite of ${suites.join(',')} (zookeeper.ssl.cipher.suites) can be used with ${protocols.join(',')} (${key})`);
  }
  return { minVersion, maxVersion, ...(cipherList === undefined ? {} : { cipherList }), ...(cipherSuites === undefined ? {} : { cipherSuites }) };
}

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
 * Kafka 2.8's ZooKeeper client TLS (KIP-515, KafkaConfig.zkClientConfigFromKafkaConfig), for the broker and the
 * tools alike, from settings already resolved by zkTlsConfig: with `zookeeper.ssl.client.enable=true`, the keystore
 * and truststore (`zookeeper.ssl.keystore.*`, `zookeeper.ssl.truststore.*`, JKS, PKCS12 or PEM, the type from the
 * file name when not given) written out as the PEM files the ZooKeeper C client reads (ca, chain, key encrypted
 * with a random passphrase) in a private temporary folder, with host name verification
 * (`zookeeper.ssl.endpoint.identification.algorithm`, HTTPS by default, anything else turns it off as in Kafka),
 * protocols and cipher suites (zkTlsProtocols); undefined when TLS is off, as Kafka ignores the other keys then.
 * What the C client cannot do is refused, not ignored: CRL and OCSP checks, and a connection without a client
 * certificate or a truststore.
 */
export function zooKeeperTls(get: ZkTlsLookup): { tls: ZkTls; dispose: () => void } | undefined {
  if (!isTrue(get('zookeeper.ssl.client.enable'))) return undefined;
  const refuse = (key: string, why: string): never => {
    throw new ConfigException(`${key}=${get(key) ?? ''} cannot be honoured: ${why}; see docs/security-zookeeper.md`);
  };
  for (const key of ['zookeeper.ssl.crl.enable', 'zookeeper.ssl.ocsp.enable']) {
    if (isTrue(get(key))) refuse(key, "kafka-ts's ZooKeeper client checks no revocation lists");
  }
  const keystore = get('zookeeper.ssl.keystore.location')?.trim();
  if (keystore === undefined || keystore === '') refuse('zookeeper.ssl.keystore.location', "kafka-ts's ZooKeeper client connects with a client certificate only (the C client needs one), so set the keystore");
  const truststore = get('zookeeper.ssl.truststore.location')?.trim();
  if (truststore === undefined || truststore === '') refuse('zookeeper.ssl.truststore.location', "kafka-ts's ZooKeeper client trusts only the certificates of a truststore (not the system's), so set it");
  // Kafka: `kafkaPropValue.toString.toUpperCase == "HTTPS"`; the empty string (or any other) turns it off.
  const verifyHostname = (get(ENDPOINT_IDENTIFICATION) ?? 'HTTPS').trim().toUpperCase() === 'HTTPS';
  const protocols = zkTlsProtocols(get);
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
  const tls: ZkTls = {
    caFile: write('ca.pem', `${context.ca.join('\n')}\n`),
    certFile: write('chain.pem', `${cert}\n`),
    keyFile: write('key.pem', createPrivateKey(key).export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString()),
    keyPassphrase: passphrase,
    verifyHostname,
    ...protocols,
  };
  return { tls, dispose: () => fs.rmSync(dir, { recursive: true, force: true }) };
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
