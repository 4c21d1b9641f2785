import { readFileSync } from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { toPem } from 'jks-js';
import { ConfigException } from '../common/config/config-def';
import { openSslCipherList } from './cipher-suites';
import { SslPrincipalMapper } from './ssl-principal-mapper';
import { rfc2253Name } from './distinguished-name';

/** A key's text as configured (the listener-prefixed value first for a broker listener); undefined when unset. */
export type ConfigLookup = (key: string) => string | undefined;

export type SslClientAuth = 'none' | 'requested' | 'required';
export type TlsVersion = 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';

/** What Node's tls.createSecureContext needs, built from Kafka's ssl.* keys (no socket is opened here). */
export interface TlsContextOptions {
  key?: string;
  cert?: string;
  pfx?: Buffer;
  passphrase?: string;
  /** Trusted certificates; absent means the system's default roots (Java's cacerts). */
  ca?: string[];
  minVersion: TlsVersion;
  maxVersion: TlsVersion;
  ciphers?: string;
}

/** A broker listener's TLS: the context, the client-certificate policy and the principal mapping. */
export interface ServerTlsOptions {
  readonly context: TlsContextOptions;
  readonly clientAuth: SslClientAuth;
  readonly principalMapper: SslPrincipalMapper;
}

/** A client's TLS (the broker's own clients and the tools): the context and whether the host name is verified. */
export interface ClientTlsOptions {
  readonly context: TlsContextOptions;
  /** ssl.endpoint.identification.algorithm=https (the default); empty turns host name verification off. */
  readonly verifyHostname: boolean;
}

const PROTOCOL_ORDER: readonly TlsVersion[] = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
/** ssl.protocol names an SSLContext; the enabled protocols decide what is negotiated. */
const SSL_CONTEXT_PROTOCOLS = new Set(['TLS', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3']);
const STORE_TYPES = new Set(['JKS', 'PKCS12', 'PEM']);

/**
 * Kafka's SslFactory / DefaultSslEngineFactory configuration, checked without touching files: the values
 * parse, the protocols and suites are known, the principal rules are well formed. `key material` is loaded
 * by loadServerTls / loadClientTls.
 */
export interface SslSettings {
  readonly keystoreType: string;
  readonly keystoreLocation: string | undefined;
  readonly keystorePassword: string | undefined;
  readonly keyPassword: string | undefined;
  readonly keystoreKey: string | undefined;
  readonly keystoreCertificateChain: string | undefined;
  readonly truststoreType: string;
  readonly truststoreLocation: string | undefined;
  readonly truststorePassword: string | undefined;
  readonly truststoreCertificates: string | undefined;
  readonly clientAuth: SslClientAuth;
  readonly minVersion: TlsVersion;
  readonly maxVersion: TlsVersion;
  readonly ciphers: string | undefined;
  readonly verifyHostname: boolean;
  readonly principalMapper: SslPrincipalMapper;
}

function invalid(key: string, value: string, reason: string): ConfigException {
  return new ConfigException(`Invalid value ${value} for configuration ${key}: ${reason}`);
}

function list(text: string | undefined, fallback: string): string[] {
  return (text ?? fallback).split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function nonEmpty(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

/** Reads and checks the ssl.* keys through `get` with Kafka's defaults; throws ConfigException naming the key. */
export function sslSettings(get: ConfigLookup): SslSettings {
  const keystoreType = (get('ssl.keystore.type') ?? 'JKS').trim().toUpperCase();
  if (!STORE_TYPES.has(keystoreType)) throw invalid('ssl.keystore.type', keystoreType, `KeyStore type ${keystoreType} is not supported (JKS, PKCS12 or PEM)`);
  const truststoreType = (get('ssl.truststore.type') ?? 'JKS').trim().toUpperCase();
  if (!STORE_TYPES.has(truststoreType)) throw invalid('ssl.truststore.type', truststoreType, `KeyStore type ${truststoreType} is not supported (JKS, PKCS12 or PEM)`);
  const clientAuth = (get('ssl.client.auth') ?? 'none').trim().toLowerCase();
  if (clientAuth !== 'none' && clientAuth !== 'requested' && clientAuth !== 'required') throw invalid('ssl.client.auth', clientAuth, 'String must be one of: required, requested, none');
  const protocol = (get('ssl.protocol') ?? 'TLSv1.3').trim();
  if (!SSL_CONTEXT_PROTOCOLS.has(protocol)) throw new ConfigException(`Invalid value ${protocol} for configuration ssl.protocol: ${protocol} SSLContext not available`);
  const enabled = list(get('ssl.enabled.protocols'), 'TLSv1.2,TLSv1.3');
  for (const p of enabled) if (!PROTOCOL_ORDER.includes(p as TlsVersion)) throw invalid('ssl.enabled.protocols', enabled.join(','), `Unsupported protocol ${p} (TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)`);
  if (enabled.length === 0) throw invalid('ssl.enabled.protocols', '', 'at least one protocol must be enabled');
  const indexes = enabled.map((p) => PROTOCOL_ORDER.indexOf(p as TlsVersion));
  const minVersion = PROTOCOL_ORDER[Math.min(...indexes)] as TlsVersion;
  const maxVersion = PROTOCOL_ORDER[Math.max(...indexes)] as TlsVersion;
  const suites = list(get('ssl.cipher.suites'), '');
  let ciphers: string | undefined;
  try {
    ciphers = suites.length === 0 ? undefined : openSslCipherList(suites);
  } catch (e) {
    throw invalid('ssl.cipher.suites', suites.join(','), (e as Error).message);
  }
  const rules = get('ssl.principal.mapping.rules') ?? 'DEFAULT';
  let principalMapper: SslPrincipalMapper;
  try {
    principalMapper = SslPrincipalMapper.fromRules(rules);
  } catch (e) {
    throw invalid('ssl.principal.mapping.rules', rules, (e as Error).message);
  }
  const settings: SslSettings = {
    keystoreType,
    keystoreLocation: nonEmpty(get('ssl.keystore.location')),
    keystorePassword: get('ssl.keystore.password'),
    keyPassword: get('ssl.key.password'),
    keystoreKey: nonEmpty(get('ssl.keystore.key')),
    keystoreCertificateChain: nonEmpty(get('ssl.keystore.certificate.chain')),
    truststoreType,
    truststoreLocation: nonEmpty(get('ssl.truststore.location')),
    truststorePassword: get('ssl.truststore.password'),
    truststoreCertificates: nonEmpty(get('ssl.truststore.certificates')),
    clientAuth,
    minVersion,
    maxVersion,
    ciphers,
    verifyHostname: (get('ssl.endpoint.identification.algorithm') ?? 'https').trim() !== '',
    principalMapper,
  };
  checkCombinations(settings);
  return settings;
}

/** DefaultSslEngineFactory's rules on which keys go together (its messages). */
function checkCombinations(s: SslSettings): void {
  if (s.keystoreKey !== undefined || s.keystoreCertificateChain !== undefined) {
    if (s.keystoreType !== 'PEM') throw new ConfigException(`SSL private key can be specified only for PEM, but key store type is ${s.keystoreType}.`);
    if (s.keystoreCertificateChain === undefined) throw new ConfigException('SSL certificate chain must be specified with SSL private key');
    if (s.keystoreKey === undefined) throw new ConfigException('SSL private key must be specified with SSL certificate chain');
    if (s.keystoreLocation !== undefined) throw new ConfigException('Both SSL key store location and separate private key are specified.');
  } else if (s.keystoreType === 'PEM' && s.keystoreLocation !== undefined && s.keystorePassword !== undefined) {
    throw new ConfigException('SSL key store password cannot be specified with PEM format, only key password may be specified');
  } else if (s.keystoreType !== 'PEM' && s.keystoreLocation !== undefined && s.keystorePassword === undefined) {
    throw new ConfigException('SSL key store is specified, but key store password is not specified.');
  }
  if (s.truststoreCertificates !== undefined) {
    if (s.truststoreType !== 'PEM') throw new ConfigException(`SSL trust store certs can be specified only for PEM, but trust store type is ${s.truststoreType}.`);
    if (s.truststoreLocation !== undefined) throw new ConfigException('Both SSL trust store location and separate trust certificates are specified.');
  } else if (s.truststoreType === 'PEM' && s.truststoreLocation !== undefined && s.truststorePassword !== undefined) {
    throw new ConfigException('SSL trust store password cannot be specified for PEM format.');
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string, kinds: readonly string[]): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => kinds.includes(m[1] as string)).map((m) => m[0]);
}

function readStore(key: string, location: string, type: string): Buffer {
  try {
    return readFileSync(location);
  } catch (e) {
    throw new ConfigException(`Failed to load SSL keystore ${location} of type ${type} (${key}): ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}

/** A PEM private key, decrypted with ssl.key.password when encrypted (KIP-651); errors never show the password. */
function pemKey(keyText: string, keyPassword: string | undefined, what: string): string {
  const blocks = pemBlocks(keyText, ['PRIVATE KEY', 'ENCRYPTED PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY']);
  if (blocks.length !== 1) throw new ConfigException(`Invalid PEM keystore configs (${what}): expected one private key, found ${blocks.length}`);
  const block = blocks[0] as string;
  const encrypted = block.startsWith('-----BEGIN ENCRYPTED PRIVATE KEY-----') || /Proc-Type: 4,ENCRYPTED/.test(block);
  if (encrypted && keyPassword === undefined) throw new ConfigException(`Invalid PEM keystore configs (${what}): the private key is encrypted and ssl.key.password is not set`);
  try {
    const key = createPrivateKey(encrypted ? { key: block, format: 'pem', passphrase: keyPassword as string } : { key: block, format: 'pem' });
    return key.export({ format: 'pem', type: 'pkcs8' }).toString();
  } catch {
    throw new ConfigException(`Invalid PEM keystore configs (${what}): the private key cannot be read${encrypted ? ' with ssl.key.password' : ''}`);
  }
}

interface KeyMaterial {
  key?: string;
  cert?: string;
  pfx?: Buffer;
  passphrase?: string;
}

/** The keystore: inline PEM, a PEM file (key and chain), PKCS12 (Node's own pfx reader) or JKS (jks-js). */
function loadKeystore(s: SslSettings): KeyMaterial | undefined {
  if (s.keystoreKey !== undefined && s.keystoreCertificateChain !== undefined) {
    const chain = pemBlocks(s.keystoreCertificateChain, ['CERTIFICATE']);
    if (chain.length === 0) throw new ConfigException('Invalid PEM keystore configs (ssl.keystore.certificate.chain): no certificate found');
    return { key: pemKey(s.keystoreKey, s.keyPassword, 'ssl.keystore.key'), cert: chain.join('\n') };
  }
  const location = s.keystoreLocation;
  if (location === undefined) return undefined;
  const data = readStore('ssl.keystore.location', location, s.keystoreType);
  if (s.keystoreType === 'PEM') {
    const text = data.toString('utf8');
    const chain = pemBlocks(text, ['CERTIFICATE']);
    if (chain.length === 0) throw new ConfigException(`Invalid PEM keystore configs (ssl.keystore.location ${location}): no certificate found`);
    return { key: pemKey(text, s.keyPassword, `ssl.keystore.location ${location}`), cert: chain.join('\n') };
  }
  if (s.keystoreType === 'PKCS12') {
    // Node checks the password when the secure context is built (the network layer names this key then).
    return { pfx: data, passphrase: s.keystorePassword ?? '' };
  }
  let entries: ReturnType<typeof toPem>;
  try {
    entries = toPem(data, s.keystorePassword ?? '', s.keyPassword ?? s.keystorePassword ?? '');
  } catch (e) {
    throw new ConfigException(`Failed to load SSL keystore ${location} of type JKS (ssl.keystore.location): ${storeError(e)}`);
  }
  const keyEntry = Object.values(entries).find((e) => e.key !== undefined && e.cert !== undefined);
  if (keyEntry === undefined) throw new ConfigException(`Failed to load SSL keystore ${location} of type JKS (ssl.keystore.location): no private key entry`);
  return { key: keyEntry.key as string, cert: keyEntry.cert as string };
}

/** jks-js's messages name wrong passwords plainly; anything else is reported as unreadable. */
function storeError(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if (/password|MAC could not be verified/i.test(message)) return 'Keystore was tampered with, or password was incorrect';
  return `not a readable key store (${message})`;
}

/** The truststore's certificates: inline PEM, a PEM file, or a JKS / PKCS12 store (jks-js reads both). */
function loadTruststore(s: SslSettings): string[] | undefined {
  if (s.truststoreCertificates !== undefined) {
    const certs = pemBlocks(s.truststoreCertificates, ['CERTIFICATE']);
    if (certs.length === 0) throw new ConfigException('Invalid PEM truststore configs (ssl.truststore.certificates): no certificate found');
    return certs;
  }
  const location = s.truststoreLocation;
  if (location === undefined) return undefined;
  const data = readStore('ssl.truststore.location', location, s.truststoreType);
  if (s.truststoreType === 'PEM') {
    const certs = pemBlocks(data.toString('utf8'), ['CERTIFICATE']);
    if (certs.length === 0) throw new ConfigException(`Invalid PEM truststore configs (ssl.truststore.location ${location}): no certificate found`);
    return certs;
  }
  let entries: ReturnType<typeof toPem>;
  try {
    entries = toPem(data, s.truststorePassword ?? '');
  } catch (e) {
    throw new ConfigException(`Failed to load SSL keystore ${location} of type ${s.truststoreType} (ssl.truststore.location): ${storeError(e)}`);
  }
  const certs = Object.values(entries).flatMap((e) => (e.ca !== undefined ? [e.ca] : e.cert !== undefined ? pemBlocks(e.cert, ['CERTIFICATE']) : []));
  if (certs.length === 0) throw new ConfigException(`Failed to load SSL keystore ${location} of type ${s.truststoreType} (ssl.truststore.location): no certificate found`);
  return certs;
}

function contextOptions(s: SslSettings): TlsContextOptions {
  const out: TlsContextOptions = { minVersion: s.minVersion, maxVersion: s.maxVersion };
  const keys = loadKeystore(s);
  if (keys !== undefined) Object.assign(out, keys);
  const ca = loadTruststore(s);
  if (ca !== undefined) out.ca = ca;
  if (s.ciphers !== undefined) out.ciphers = s.ciphers;
  return out;
}

/** A broker listener's TLS: a keystore is required (Kafka: "SSL key store is not specified" otherwise). */
export function loadServerTls(s: SslSettings): ServerTlsOptions {
  if (s.keystoreLocation === undefined && s.keystoreKey === undefined) throw new ConfigException('The ssl.keystore.location (or ssl.keystore.key and ssl.keystore.certificate.chain) must be set for an SSL listener: SSL key store is not specified');
  return { context: contextOptions(s), clientAuth: s.clientAuth, principalMapper: s.principalMapper };
}

/** A client's TLS: the keystore is optional (needed for mutual TLS), the truststore defaults to the system's. */
export function loadClientTls(s: SslSettings): ClientTlsOptions {
  return { context: contextOptions(s), verifyHostname: s.verifyHostname };
}

/**
 * Node's tls.createSecureContext failed on material loaded here (a PKCS12 password, a key that does not match
 * its certificate): one line naming the keys, as Kafka's "Failed to load SSL keystore" does, without secrets.
 */
export function secureContextError(err: unknown, where: string, context: TlsContextOptions): ConfigException {
  const message = err instanceof Error ? err.message : String(err);
  if (context.pfx !== undefined && /mac verify failure|bad decrypt|PKCS12|pfx/i.test(message)) {
    return new ConfigException(`Failed to load SSL keystore of type PKCS12 for ${where} (ssl.keystore.location, ssl.keystore.password): Keystore was tampered with, or password was incorrect`);
  }
  if (/key values mismatch/i.test(message)) return new ConfigException(`Invalid SSL key material for ${where} (ssl.keystore.*): the private key does not match the certificate`);
  return new ConfigException(`Invalid SSL configuration for ${where}: ${message}`);
}

/** The subject (RFC 2253) of a context's own certificate, when it is PEM (a PKCS12 store is opened by Node's TLS). */
function keystoreSubject(context: TlsContextOptions): string | undefined {
  const first = context.cert === undefined ? undefined : pemBlocks(context.cert, ['CERTIFICATE'])[0];
  return first === undefined ? undefined : rfc2253Name(new X509Certificate(first).subject);
}

/**
 * A keystore swapped at run time must keep the certificate's subject, so clients that check it keep working
 * (Kafka's SslFactory.CertificateEntries.ensureCompatible, its message).
 */
export function ensureCompatibleKeystore(current: ServerTlsOptions, next: ServerTlsOptions): void {
  const existing = keystoreSubject(current.context);
  const proposed = keystoreSubject(next.context);
  if (existing !== undefined && proposed !== undefined && existing !== proposed) {
    throw new ConfigException(`Keystore DistinguishedName does not match: existing={${existing}}, new={${proposed}}`);
  }
}
