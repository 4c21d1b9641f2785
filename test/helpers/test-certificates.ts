import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The password every generated store and encrypted key uses. */
export const STORE_PASSWORD = 'test-secret';

export interface Identity {
  /** PEM certificate and (unencrypted) PKCS#8 key. */
  readonly cert: string;
  readonly key: string;
  /** The same key encrypted with STORE_PASSWORD (PKCS#8, for ssl.key.password). */
  readonly encryptedKey: string;
  /** openssl-made PKCS12 and keytool-made JKS keystores holding the key and its chain. */
  readonly p12: string;
  readonly jks: string;
  /** A PEM file with the key and the certificate (ssl.keystore.type=PEM). */
  readonly pemFile: string;
}

export interface TestCertificates {
  readonly dir: string;
  /** The trusted CA: PEM file, keytool-made JKS and PKCS12 truststores. */
  readonly caPem: string;
  readonly truststoreJks: string;
  readonly truststoreP12: string;
  /** localhost / 127.0.0.1 in its subject alternative names. */
  readonly broker: Identity;
  /** A second broker certificate with the same subject (a keystore reload swaps one for the other). */
  readonly broker2: Identity;
  /** Subject C=US,O=Acme,OU=Eng,CN=client. */
  readonly client: Identity;
  /** Signed by a CA nobody trusts. */
  readonly rogue: Identity;
  /** The rogue CA's certificate file. */
  readonly rogueCaPem: string;
}

function run(cmd: string, args: string[], cwd: string): void {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function ca(dir: string, name: string): void {
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.pem`, '-days', '2', '-subj', `/CN=${name}`], dir);
}

function identity(dir: string, name: string, subject: string, caName: string, subjectAltName = 'DNS:localhost,IP:127.0.0.1'): Identity {
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${name}.raw.key`, '-out', `${name}.csr`, '-subj', subject], dir);
  fs.writeFileSync(path.join(dir, `${name}.ext`), `subjectAltName=${subjectAltName}\n`);
  run('openssl', ['x509', '-req', '-in', `${name}.csr`, '-CA', `${caName}.pem`, '-CAkey', `${caName}.key`, '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`], dir);
  run('openssl', ['pkcs8', '-topk8', '-nocrypt', '-in', `${name}.raw.key`, '-out', `${name}.key`], dir);
  run('openssl', ['pkcs8', '-topk8', '-v2', 'aes-256-cbc', '-in', `${name}.raw.key`, '-out', `${name}.enc.key`, '-passout', `pass:${STORE_PASSWORD}`], dir);
  run('openssl', ['pkcs12', '-export', '-in', `${name}.pem`, '-inkey', `${name}.key`, '-certfile', `${caName}.pem`, '-name', name, '-out', `${name}.p12`, '-passout', `pass:${STORE_PASSWORD}`], dir);
  run('keytool', ['-importkeystore', '-noprompt', '-srckeystore', `${name}.p12`, '-srcstoretype', 'PKCS12', '-srcstorepass', STORE_PASSWORD, '-destkeystore', `${name}.jks`, '-deststoretype', 'JKS', '-deststorepass', STORE_PASSWORD], dir);
  const cert = fs.readFileSync(path.join(dir, `${name}.pem`), 'utf8');
  const key = fs.readFileSync(path.join(dir, `${name}.key`), 'utf8');
  fs.writeFileSync(path.join(dir, `${name}.keystore.pem`), `${key}\n${cert}`);
  return {
    cert,
    key,
    encryptedKey: fs.readFileSync(path.join(dir, `${name}.enc.key`), 'utf8'),
    p12: path.join(dir, `${name}.p12`),
    jks: path.join(dir, `${name}.jks`),
    pemFile: path.join(dir, `${name}.keystore.pem`),
  };
}

/** Generates a CA, broker and client certificates and their stores with openssl and keytool into `dir`. */
export function generateTestCertificates(dir: string): TestCertificates {
  ca(dir, 'ca');
  ca(dir, 'rogue-ca');
  for (const type of ['JKS', 'PKCS12']) {
    const file = type === 'JKS' ? 'truststore.jks' : 'truststore.p12';
    run('keytool', ['-import', '-noprompt', '-alias', 'ca', '-file', 'ca.pem', '-keystore', file, '-storetype', type, '-storepass', STORE_PASSWORD], dir);
  }
  return {
    dir,
    caPem: path.join(dir, 'ca.pem'),
    truststoreJks: path.join(dir, 'truststore.jks'),
    truststoreP12: path.join(dir, 'truststore.p12'),
    broker: identity(dir, 'broker', '/CN=localhost', 'ca'),
    broker2: identity(dir, 'broker2', '/CN=localhost', 'ca'),
    client: identity(dir, 'client', '/C=US/O=Acme/OU=Eng/CN=client', 'ca'),
    rogue: identity(dir, 'rogue', '/CN=rogue', 'rogue-ca'),
    rogueCaPem: path.join(dir, 'rogue-ca.pem'),
  };
}

/**
 * One more identity signed by the test CA of `certs`, with the given subject alternative names (OpenSSL's form,
 * `DNS:zk.example.com,IP:10.0.0.1`): for host name verification, a server certificate that names other hosts.
 */
export function generateIdentity(certs: TestCertificates, name: string, subjectAltName: string): Identity {
  const firstName = subjectAltName.split(',')[0]?.replace(/^(DNS|IP):/, '') ?? name;
  return identity(certs.dir, name, `/CN=${firstName}`, 'ca', subjectAltName);
}
