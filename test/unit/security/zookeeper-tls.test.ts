import fs from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { zooKeeperTlsFiles } from '../../../src/security/zookeeper-tls';

let certs: TestCertificates;
beforeAll(() => {
  certs = generateTestCertificates(tmpDir('zk-tls-unit-'));
}, 60000);

const lookup = (props: Record<string, string>) => (key: string): string | undefined => props[key];
const base = (): Record<string, string> => ({
  'zookeeper.ssl.client.enable': 'true',
  'zookeeper.ssl.keystore.location': certs.client.p12,
  'zookeeper.ssl.keystore.password': STORE_PASSWORD,
  'zookeeper.ssl.truststore.location': certs.truststoreJks,
  'zookeeper.ssl.truststore.password': STORE_PASSWORD,
  'zookeeper.ssl.endpoint.identification.algorithm': '',
});

describe('zooKeeperTlsFiles: Kafka\'s zookeeper.ssl.* keys as the ZooKeeper C client\'s PEM files', () => {
  it('is off unless zookeeper.ssl.client.enable=true, whatever the other keys say', () => {
    expect(zooKeeperTlsFiles(lookup({ 'zookeeper.ssl.keystore.location': '/nope' }))).toBeUndefined();
  });

  it('writes the CA, the chain and the key (encrypted with its passphrase) from PKCS12, JKS and PEM stores, types from the file names', () => {
    for (const keystore of [certs.client.p12, certs.client.jks, certs.client.pemFile]) {
      const tls = zooKeeperTlsFiles(lookup({ ...base(), 'zookeeper.ssl.keystore.location': keystore }));
      if (tls === undefined) throw new Error('no TLS');
      try {
        const { caFile, certFile, keyFile, keyPassphrase } = tls.files;
        expect(new X509Certificate(fs.readFileSync(certFile)).subject).toBe('C=US\nO=Acme\nOU=Eng\nCN=client');
        expect(fs.readFileSync(caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
        expect(fs.readFileSync(keyFile, 'utf8')).toContain('BEGIN ENCRYPTED PRIVATE KEY');
        expect(createPrivateKey({ key: fs.readFileSync(keyFile), passphrase: keyPassphrase }).asymmetricKeyType).toBe('rsa');
        expect(fs.statSync(keyFile).mode & 0o077).toBe(0);
      } finally {
        tls.dispose();
      }
      expect(fs.existsSync(tls.files.keyFile)).toBe(false);
    }
  });

  it('refuses what the C client cannot do, saying so', () => {
    const error = (props: Record<string, string | undefined>): string => {
      try {
        zooKeeperTlsFiles((key) => (key in props ? props[key] : base()[key]))?.dispose();
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(error({ 'zookeeper.ssl.endpoint.identification.algorithm': undefined })).toMatch(/^zookeeper\.ssl\.endpoint\.identification\.algorithm= cannot be honoured: .*not its host name/);
    expect(error({ 'zookeeper.ssl.endpoint.identification.algorithm': 'HTTPS' })).toMatch(/^zookeeper\.ssl\.endpoint\.identification\.algorithm=HTTPS cannot be honoured/);
    expect(error({ 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256' })).toMatch(/^zookeeper\.ssl\.cipher\.suites=TLS_AES_128_GCM_SHA256 cannot be honoured/);
    expect(error({ 'zookeeper.ssl.ocsp.enable': 'true' })).toMatch(/cannot be honoured: kafka-ts's ZooKeeper client checks no revocation lists/);
    expect(error({ 'zookeeper.ssl.keystore.location': undefined })).toMatch(/^zookeeper\.ssl\.keystore\.location= cannot be honoured: .*client certificate/);
    expect(error({ 'zookeeper.ssl.keystore.location': '/tmp/x.bin' })).toBe('Unable to auto-detect store file type from file name: /tmp/x.bin; set zookeeper.ssl.keystore.type');
    expect(error({ 'zookeeper.ssl.keystore.password': 'wrong' })).toMatch(/Keystore was tampered with, or password was incorrect/);
  });
});
