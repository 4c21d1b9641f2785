import { Kafka, logLevel } from 'kafkajs';
import { BrokerProcess } from '../../helpers/broker-process';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { CLIENT_CERTIFICATE_OWNER, WORLD_READ, ZK_TLS_BUILT, zkTlsClientProps } from '../../helpers/zookeeper-tls-fixture';
import { waitUntil } from '../../helpers/wait-until';
import { startZkStandalone, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { ZkClient } from '../../../src/zk/zk-client';
import { ZkError } from '../../../src/zk/zk-error';

/*
 * ZooKeeper over TLS (KIP-515's zookeeper.ssl.* keys): a broker connects to ZooKeeper's secureClientPort with a
 * client certificate (a PKCS12 keystore, a JKS truststore: both converted to the PEM files the C client reads),
 * and with zookeeper.set.acl=true and no JAAS login its znodes belong to the certificate's x509 identity. The
 * server's certificate names 127.0.0.1, so the default host name verification (HTTPS) passes. Needs
 * the TLS build of the binding (scripts/build-zookeeper-tls.sh, run by scripts/setup.sh).
 */

(ZK_TLS_BUILT ? describe : describe.skip)('ZooKeeper over TLS, znodes owned by the broker certificate (x509)', () => {
  let certs: TestCertificates;
  let ensemble: ZkEnsemble;
  let broker: BrokerProcess | undefined;
  let inspect: ZkClient;
  const chroot = uniqueChroot('zk-tls');

  beforeAll(async () => {
    certs = generateTestCertificates(tmpDir('zk-tls-certs-'));
    // The server's certificate is the test "broker" one (localhost / 127.0.0.1); it trusts the test CA.
    ensemble = await startZkStandalone({ tls: { keyStore: certs.broker.p12, trustStore: certs.truststoreP12, password: STORE_PASSWORD } });
    inspect = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'inspect' });
  }, 60000);

  afterAll(async () => {
    await broker?.child.stop();
    inspect?.close();
    await ensemble?.close();
  });

  it('starts a broker over TLS whose znodes give the certificate every right and the world read', async () => {
    broker = await BrokerProcess.start({
      brokerId: 0,
      zkConnect: `${ensemble.nodes[0]?.secureHostPort ?? ''}${chroot}`,
      props: {
        ...zkTlsClientProps(certs),
        'zookeeper.set.acl': 'true',
        'offsets.topic.replication.factor': '1',
      },
    });
    const owner = CLIENT_CERTIFICATE_OWNER;
    const world = WORLD_READ;
    expect((await inspect.getAcl(`${chroot}/brokers/ids/0`)).acl).toEqual([owner, world]);
    expect((await inspect.getAcl(`${chroot}/brokers/ids`)).acl).toEqual([owner, world]);
    expect((await inspect.getAcl(chroot)).acl).toEqual([owner, world]);
    // A session without the certificate (the plain port) reads but may not write.
    await expect(inspect.setData(`${chroot}/brokers/ids/0`, Buffer.from('{}'))).rejects.toThrow(ZkError);
    // The controller's writes go over TLS too: a topic with its partition states.
    await waitUntil(async () => (await inspect.getData(`${chroot}/controller`)) !== null, { timeoutMs: 15000, message: 'a controller' });
    const admin = new Kafka({ brokers: [`127.0.0.1:${broker.port}`], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      // The broker learns the controller from its own UpdateMetadata, shortly after /controller appears.
      await waitUntil(async () => admin.createTopics({ topics: [{ topic: 'tls-t', numPartitions: 8, replicationFactor: 1 }] }).then(() => true, () => false), { timeoutMs: 15000, message: 'tls-t created' });
    } finally {
      await admin.disconnect();
    }
    await waitUntil(async () => ((await inspect.getChildren(`${chroot}/brokers/topics/tls-t/partitions`).catch(() => null)) ?? []).length === 8, { timeoutMs: 15000, message: 'the partitions of tls-t in ZooKeeper' });
    expect((await inspect.getAcl(`${chroot}/brokers/topics/tls-t/partitions/7/state`)).acl).toEqual([owner, world]);
  }, 60000);
});
