import { BrokerProcess } from '../../helpers/broker-process';
import { generateIdentity, generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { CLIENT_CERTIFICATE_OWNER, WORLD_READ, ZK_TLS_BUILT, zkTlsClientProps, zkTlsKafkaOpts } from '../../helpers/zookeeper-tls-fixture';
import { startZkStandalone, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { zooKeeperTls } from '../../../src/security/zookeeper-tls';
import { ZkClient } from '../../../src/zk/zk-client';

/*
 * Host name verification of ZooKeeper's certificate (zookeeper.ssl.endpoint.identification.algorithm, HTTPS by
 * default as in Kafka 2.8), the protocols and cipher suites the C client offers, and a broker whose ZooKeeper TLS
 * comes from ZooKeeper's system properties in KAFKA_OPTS alone. Two TLS ZooKeeper servers: one whose certificate
 * names 127.0.0.1 and localhost, one whose certificate names zk.example.com only.
 */

(ZK_TLS_BUILT ? describe : describe.skip)('ZooKeeper over TLS: host name verification, protocols, system properties', () => {
  let certs: TestCertificates;
  /** Its certificate names 127.0.0.1 and localhost. */
  let named: ZkEnsemble;
  /** Its certificate names zk.example.com only. */
  let elsewhere: ZkEnsemble;
  let inspect: ZkClient;
  const brokers: BrokerProcess[] = [];
  const bare: NodeJS.ProcessEnv = { ...process.env };
  delete bare['KAFKA_OPTS'];

  /** The broker's ZooKeeper TLS keys, as server.properties gives them. */
  const tlsProps = (): Record<string, string> => zkTlsClientProps(certs);
  const secure = (zk: ZkEnsemble): string => zk.nodes[0]?.secureHostPort ?? '';
  const start = async (brokerId: number, zkConnect: string, props: Record<string, string>, env: NodeJS.ProcessEnv = bare): Promise<BrokerProcess> => {
    const broker = await BrokerProcess.start({ brokerId, zkConnect, props, env });
    brokers.push(broker);
    return broker;
  };

  beforeAll(async () => {
    certs = generateTestCertificates(tmpDir('zk-tls-hostname-certs-'));
    const other = generateIdentity(certs, 'zk-elsewhere', 'DNS:zk.example.com');
    [named, elsewhere] = await Promise.all([
      startZkStandalone({ tls: { keyStore: certs.broker.p12, trustStore: certs.truststoreP12, password: STORE_PASSWORD } }),
      startZkStandalone({ tls: { keyStore: other.p12, trustStore: certs.truststoreP12, password: STORE_PASSWORD } }),
    ]);
    inspect = await ZkClient.connect({ connectString: named.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'inspect' });
  }, 60000);

  afterAll(async () => {
    await Promise.all(brokers.map((b) => b.child.stop()));
    inspect?.close();
    await Promise.all([named?.close(), elsewhere?.close()]);
  });

  it('starts a broker whose ZooKeeper certificate names the address it connects to, verifying by default', async () => {
    const chroot = uniqueChroot('named');
    await start(0, `${secure(named)}${chroot}`, tlsProps());
    expect(await inspect.exists(`${chroot}/brokers/ids/0`)).not.toBeNull();
  }, 60000);

  it('fails the start-up against a certificate for another host, with one line naming the host', async () => {
    const broker = await BrokerProcess.spawn({ brokerId: 1, zkConnect: `${secure(elsewhere)}${uniqueChroot('elsewhere')}`, props: { ...tlsProps(), 'zookeeper.connection.timeout.ms': '2000' }, env: bare });
    brokers.push(broker);
    const exit = await broker.child.exited;
    expect(exit.code).not.toBe(0);
    const port = elsewhere.nodes[0]?.secureClientPort ?? 0;
    const line = broker.child
      .output()
      .split('\n')
      .find((l) => l.includes('host name verification failed'));
    expect(line).toMatch(new RegExp(`Timed out waiting for connection while in state: CONNECTING \\(ZooKeeper TLS: host name verification failed for 127\\.0\\.0\\.1:${port}: the server certificate does not name 127\\.0\\.0\\.1\\)`));
  }, 60000);

  it('connects anyway with an empty algorithm, which server.properties sets over -Dzookeeper.ssl.hostnameVerification=true', async () => {
    const chroot = uniqueChroot('elsewhere');
    await start(2, `${secure(elsewhere)}${chroot}`, { ...tlsProps(), 'zookeeper.ssl.endpoint.identification.algorithm': '' }, { ...bare, KAFKA_OPTS: '-Dzookeeper.ssl.hostnameVerification=true' });
    const check = await ZkClient.connect({ connectString: elsewhere.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'inspect-elsewhere' });
    try {
      expect(await check.exists(`${chroot}/brokers/ids/2`)).not.toBeNull();
    } finally {
      check.close();
    }
  }, 60000);

  it('starts a broker with ZooKeeper TLS from KAFKA_OPTS alone (-Dzookeeper.client.secure=true ...), its znodes owned by the certificate', async () => {
    const chroot = uniqueChroot('sysprops');
    const kafkaOpts = zkTlsKafkaOpts(certs);
    await start(3, `${secure(named)}${chroot}`, { 'zookeeper.set.acl': 'true' }, { ...bare, KAFKA_OPTS: kafkaOpts });
    // zookeeper.set.acl with TLS client authentication (KafkaConfig.zkTlsClientAuthEnabled) from the properties.
    expect((await inspect.getAcl(`${chroot}/brokers/ids/3`)).acl).toEqual([CLIENT_CERTIFICATE_OWNER, WORLD_READ]);
  }, 60000);

  it('offers only the protocols and cipher suites configured (zookeeper.ssl.enabled.protocols, zookeeper.ssl.cipher.suites)', async () => {
    const attempt = async (props: Record<string, string>): Promise<string> => {
      const made = zooKeeperTls((key) => ({ ...tlsProps(), ...props })[key]);
      if (made === undefined) throw new Error('no TLS');
      try {
        const zk = await ZkClient.connect({ connectString: secure(named), sessionTimeoutMs: 4000, connectionTimeoutMs: 2000, name: 'protocols', tls: made.tls });
        zk.close();
        return 'connected';
      } catch (err) {
        return (err as Error).message;
      } finally {
        made.dispose();
      }
    };
    // The test server (ZooKeeper 3.8 on Java 17) serves TLSv1.2 only.
    expect(await attempt({ 'zookeeper.ssl.cipher.suites': 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384' })).toBe('connected');
    expect(await attempt({ 'zookeeper.ssl.protocol': 'TLSv1.3', 'zookeeper.ssl.cipher.suites': 'TLS_AES_128_GCM_SHA256' })).toMatch(/\(ZooKeeper TLS: TLS handshake with 127\.0\.0\.1:\d+ failed: tlsv1 alert protocol version\)$/);
    expect(await attempt({ 'zookeeper.ssl.cipher.suites': 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256' })).toMatch(/\(ZooKeeper TLS: TLS handshake with 127\.0\.0\.1:\d+ failed: sslv3 alert handshake failure\)$/);
  }, 60000);
});
