import fs from 'node:fs';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { systemProperty } from '../../../src/security/system-property';
import { ZK_SSL_CONFIG_KEYS, zkTlsClientAuthEnabled, zkTlsConfig, zkTlsProtocols, zooKeeperTls } from '../../../src/security/zookeeper-tls';

let certs: TestCertificates;
beforeAll(() => {
  certs = generateTestCertificates(tmpDir('zk-tls-unit-'));
}, 60000);

const lookup = (props: Record<string, string | undefined>) => (key: string): string | undefined => props[key];
const base = (): Record<string, string> => ({
  'zookeeper.ssl.client.enable': 'true',
  'zookeeper.ssl.keystore.location': certs.client.p12,
  'zookeeper.ssl.keystore.password': STORE_PASSWORD,
  'zookeeper.ssl.truststore.location': certs.truststoreJks,
  'zookeeper.ssl.truststore.password': STORE_PASSWORD,
});
const TLS_1_2 = 0x0303;
const TLS_1_3 = 0x0304;

describe('systemProperty: -D<name>=<value> in KAFKA_OPTS', () => {
  it('reads plain, quoted and empty values, the last one winning as on a java command line', () => {
    const env = { KAFKA_OPTS: `-Xmx1g -Dzookeeper.client.secure=true -Dzookeeper.ssl.keyStore.location="/a b/k.p12" -Dzookeeper.ssl.hostnameVerification= -Dx.y=1 -Dx.y='2'` };
    expect(systemProperty(env, 'zookeeper.client.secure')).toBe('true');
    expect(systemProperty(env, 'zookeeper.ssl.keyStore.location')).toBe('/a b/k.p12');
    expect(systemProperty(env, 'zookeeper.ssl.hostnameVerification')).toBe('');
    expect(systemProperty(env, 'x.y')).toBe('2');
    expect(systemProperty(env, 'x')).toBeUndefined();
    expect(systemProperty({}, 'zookeeper.client.secure')).toBeUndefined();
  });
});

describe('zkTlsConfig: a configured key, else ZooKeeper\'s system property (KafkaConfig.zk*ConfigOrSystemProperty)', () => {
  const sys = (props: Record<string, string>) => (name: string): string | undefined => props[name];

  it('falls back to the camelCase system properties, translating the switch, the booleans and host name verification', () => {
    const get = zkTlsConfig(lookup({}), sys({
      'zookeeper.client.secure': 'TRUE',
      'zookeeper.clientCnxnSocket': 'org.apache.zookeeper.ClientCnxnSocketNetty',
      'zookeeper.ssl.keyStore.location': '/k.p12',
      'zookeeper.ssl.trustStore.password': 'pw',
      'zookeeper.ssl.enabledProtocols': 'TLSv1.2,TLSv1.3',
      'zookeeper.ssl.hostnameVerification': 'false',
      'zookeeper.ssl.crl': 'yes',
    }));
    expect(get('zookeeper.ssl.client.enable')).toBe('true');
    expect(get('zookeeper.clientCnxnSocket')).toBe('org.apache.zookeeper.ClientCnxnSocketNetty');
    expect(get('zookeeper.ssl.keystore.location')).toBe('/k.p12');
    expect(get('zookeeper.ssl.truststore.password')).toBe('pw');
    expect(get('zookeeper.ssl.enabled.protocols')).toBe('TLSv1.2,TLSv1.3');
    expect(get('zookeeper.ssl.endpoint.identification.algorithm')).toBe('');
    expect(get('zookeeper.ssl.crl.enable')).toBe('false');
    expect(get('zookeeper.ssl.truststore.location')).toBeUndefined();
    expect(zkTlsConfig(lookup({}), sys({ 'zookeeper.ssl.hostnameVerification': 'true' }))('zookeeper.ssl.endpoint.identification.algorithm')).toBe('HTTPS');
  });

  it('lets a configured key win over its system property, an empty value included', () => {
    const get = zkTlsConfig(
      lookup({ 'zookeeper.ssl.client.enable': 'false', 'zookeeper.ssl.keystore.location': '/mine.p12', 'zookeeper.ssl.endpoint.identification.algorithm': '' }),
      sys({ 'zookeeper.client.secure': 'true', 'zookeeper.ssl.keyStore.location': '/theirs.p12', 'zookeeper.ssl.hostnameVerification': 'true' }),
    );
    expect(get('zookeeper.ssl.client.enable')).toBe('false');
    expect(get('zookeeper.ssl.keystore.location')).toBe('/mine.p12');
    expect(get('zookeeper.ssl.endpoint.identification.algorithm')).toBe('');
  });

  it('lists Kafka\'s fourteen keys sorted, as the tools\' help texts do', () => {
    expect(ZK_SSL_CONFIG_KEYS).toHaveLength(14);
    expect(ZK_SSL_CONFIG_KEYS[0]).toBe('zookeeper.clientCnxnSocket');
    expect(ZK_SSL_CONFIG_KEYS[13]).toBe('zookeeper.ssl.truststore.type');
  });

  it('sees TLS client authentication only with TLS on, a client connection socket and a keystore (KafkaConfig.zkTlsClientAuthEnabled)', () => {
    const all = { 'zookeeper.ssl.client.enable': 'true', 'zookeeper.clientCnxnSocket': 'org.apache.zookeeper.ClientCnxnSocketNetty', 'zookeeper.ssl.keystore.location': '/k.p12' };
    expect(zkTlsClientAuthEnabled(lookup(all))).toBe(true);
    for (const key of Object.keys(all)) expect(zkTlsClientAuthEnabled(lookup({ ...all, [key]: undefined }))).toBe(false);
  });
});

describe('zkTlsProtocols: what the ZooKeeper client negotiates', () => {
  it('defaults to ZooKeeper 3.5.9\'s: zookeeper.ssl.protocol (TLSv1.2) alone, with its ECDHE suites', () => {
    const p = zkTlsProtocols(lookup({}));
    expect([p.minVersion, p.maxVersion, p.cipherSuites]).toEqual([TLS_1_2, TLS_1_2, undefined]);
    expect(p.cipherList?.split(':')).toEqual([
      'ECDHE-ECDSA-AES128-GCM-SHA256',
      'ECDHE-RSA-AES128-GCM-SHA256',
      'ECDHE-ECDSA-AES256-GCM-SHA384',
      'ECDHE-RSA-AES256-GCM-SHA384',
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-RSA-AES128-SHA256',
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-RSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA384',
      'ECDHE-RSA-AES256-SHA384',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-RSA-AES256-SHA',
    ]);
  });

  it('takes the enabled protocols as a range and the Java suite names as OpenSSL\'s two lists', () => {
    const p = zkTlsProtocols(lookup({ 'zookeeper.ssl.enabled.protocols': 'TLSv1.3, TLSv1.2', 'zookeeper.ssl.cipher.suites': 'TLS_AES_256_GCM_SHA384,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256' }));
    expect(p).toEqual({ minVersion: TLS_1_2, maxVersion: TLS_1_3, cipherList: 'ECDHE-RSA-AES128-GCM-SHA256', cipherSuites: 'TLS_AES_256_GCM_SHA384' });
    expect(zkTlsProtocols(lookup({ 'zookeeper.ssl.protocol': 'TLSv1.3', 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256' }))).toEqual({ minVersion: TLS_1_3, maxVersion: TLS_1_3, cipherSuites: 'TLS_AES_128_GCM_SHA256' });
  });

  it('drops the versions no listed suite can serve, as Java does, and refuses a configuration left with none', () => {
    // TLS 1.3 enabled, but ZooKeeper's default suites are all TLS 1.2 ones: TLS 1.2 is what Java negotiates.
    expect(zkTlsProtocols(lookup({ 'zookeeper.ssl.enabled.protocols': 'TLSv1.2,TLSv1.3' })).maxVersion).toBe(TLS_1_2);
    expect(zkTlsProtocols(lookup({ 'zookeeper.ssl.enabled.protocols': 'TLSv1.2,TLSv1.3', 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256' })).minVersion).toBe(TLS_1_3);
    expect(() => zkTlsProtocols(lookup({ 'zookeeper.ssl.protocol': 'TLSv1.3' }))).toThrow(/^No cipher suite of TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,.* \(zookeeper\.ssl\.cipher\.suites\) can be used with TLSv1\.3 \(zookeeper\.ssl\.protocol\)$/);
  });

  it('refuses unknown protocols and suites, naming the key', () => {
    expect(() => zkTlsProtocols(lookup({ 'zookeeper.ssl.enabled.protocols': 'TLSv1.2,SSLv3' }))).toThrow('Invalid value TLSv1.2,SSLv3 for configuration zookeeper.ssl.enabled.protocols: Unsupported protocol SSLv3 (TLSv1, TLSv1.1, TLSv1.2 or TLSv1.3)');
    expect(() => zkTlsProtocols(lookup({ 'zookeeper.ssl.protocol': 'TLS' }))).toThrow(/^Invalid value TLS for configuration zookeeper\.ssl\.protocol: Unsupported protocol TLS/);
    expect(() => zkTlsProtocols(lookup({ 'zookeeper.ssl.enabled.protocols': '' }))).toThrow('Invalid value  for configuration zookeeper.ssl.enabled.protocols: at least one protocol must be enabled');
    expect(() => zkTlsProtocols(lookup({ 'zookeeper.ssl.cipher.suites': 'TLS_NOPE' }))).toThrow(/^Invalid value TLS_NOPE for configuration zookeeper\.ssl\.cipher\.suites: Unsupported cipher suite TLS_NOPE/);
  });
});

describe('zooKeeperTls: Kafka\'s zookeeper.ssl.* keys as the ZooKeeper C client\'s PEM files and options', () => {
  it('is off unless zookeeper.ssl.client.enable=true, whatever the other keys say', () => {
    expect(zooKeeperTls(lookup({ 'zookeeper.ssl.keystore.location': '/nope' }))).toBeUndefined();
  });

  it('writes the CA, the chain and the key (encrypted with its passphrase) from PKCS12, JKS and PEM stores, types from the file names', () => {
    for (const keystore of [certs.client.p12, certs.client.jks, certs.client.pemFile]) {
      const made = zooKeeperTls(lookup({ ...base(), 'zookeeper.ssl.keystore.location': keystore }));
      if (made === undefined) throw new Error('no TLS');
      try {
        const { caFile, certFile, keyFile, keyPassphrase } = made.tls;
        expect(new X509Certificate(fs.readFileSync(certFile)).subject).toBe('C=US\nO=Acme\nOU=Eng\nCN=client');
        expect(fs.readFileSync(caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
        expect(fs.readFileSync(keyFile, 'utf8')).toContain('BEGIN ENCRYPTED PRIVATE KEY');
        expect(createPrivateKey({ key: fs.readFileSync(keyFile), passphrase: keyPassphrase }).asymmetricKeyType).toBe('rsa');
        expect(fs.statSync(keyFile).mode & 0o077).toBe(0);
      } finally {
        made.dispose();
      }
      expect(fs.existsSync(made.tls.keyFile)).toBe(false);
    }
  });

  it('verifies host names by default (HTTPS, any case); an empty or other algorithm turns it off, as Kafka', () => {
    const verify = (algorithm: string | undefined): boolean => {
      const made = zooKeeperTls(lookup({ ...base(), 'zookeeper.ssl.endpoint.identification.algorithm': algorithm }));
      made?.dispose();
      return made?.tls.verifyHostname ?? false;
    };
    expect([verify(undefined), verify('HTTPS'), verify('https'), verify(''), verify('none')]).toEqual([true, true, true, false, false]);
  });

  it('refuses what the C client cannot do, saying so', () => {
    const error = (props: Record<string, string | undefined>): string => {
      try {
        zooKeeperTls((key) => (key in props ? props[key] : base()[key]))?.dispose();
        return 'accepted';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(error({ 'zookeeper.ssl.ocsp.enable': 'true' })).toMatch(/cannot be honoured: kafka-ts's ZooKeeper client checks no revocation lists/);
    expect(error({ 'zookeeper.ssl.crl.enable': 'true' })).toMatch(/^zookeeper\.ssl\.crl\.enable=true cannot be honoured/);
    expect(error({ 'zookeeper.ssl.keystore.location': undefined })).toMatch(/^zookeeper\.ssl\.keystore\.location= cannot be honoured: .*client certificate/);
    expect(error({ 'zookeeper.ssl.truststore.location': undefined })).toMatch(/^zookeeper\.ssl\.truststore\.location= cannot be honoured/);
    expect(error({ 'zookeeper.ssl.keystore.location': '/tmp/x.bin' })).toBe('Unable to auto-detect store file type from file name: /tmp/x.bin; set zookeeper.ssl.keystore.type');
    expect(error({ 'zookeeper.ssl.keystore.password': 'wrong' })).toMatch(/Keystore was tampered with, or password was incorrect/);
    expect(error({ 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256' })).toMatch(/^No cipher suite of TLS_AES_128_GCM_SHA256/);
    expect(error({ 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256', 'zookeeper.ssl.protocol': 'TLSv1.3' })).toBe('accepted');
  });
});
