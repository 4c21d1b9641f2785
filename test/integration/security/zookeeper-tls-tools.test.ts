import fs from 'node:fs';
import path from 'node:path';
import { brokerInfo } from '../../helpers/recording-controller-channel';
import { runTool } from '../../helpers/run-tool';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { CLIENT_CERTIFICATE_OWNER, WORLD_READ, ZK_TLS_BUILT, zkTlsKafkaOpts } from '../../helpers/zookeeper-tls-fixture';
import { startZkStandalone, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { OPEN_ACL_UNSAFE } from '../../../src/zk/zk-acls';
import { ZkClient } from '../../../src/zk/zk-client';
import { BrokerInfoZNode } from '../../../src/zk/znodes/broker-info';

/*
 * The tools that talk to ZooKeeper, over TLS as Kafka 2.8's do (KIP-515): zookeeper-shell and kafka-configs with
 * -zk-tls-config-file / --zk-tls-config-file, kafka-acls with ZooKeeper TLS keys among its authorizer properties
 * (and `authorizer.`-prefixed ones winning), zookeeper-security-migration with --zk-tls-config-file and no JAAS
 * login (the znodes then belong to the certificate), kafka-topics, kafka-reassign-partitions,
 * kafka-preferred-replica-election and kafka-consumer-groups --zookeeper with ZooKeeper's system properties in
 * KAFKA_OPTS. The server's certificate names 127.0.0.1, so every run also verifies the host name (HTTPS, the
 * default). One TLS ZooKeeper; a session on its plain port inspects what the tools did.
 */

(ZK_TLS_BUILT ? describe : describe.skip)('ZooKeeper tools over TLS (--zk-tls-config-file, authorizer properties, KAFKA_OPTS)', () => {
  let certs: TestCertificates;
  let ensemble: ZkEnsemble;
  let inspect: ZkClient;
  let secure: string;
  /** A --zk-tls-config-file: Kafka's keys, and one it ignores. */
  let tlsFile: string;
  /** The environment without KAFKA_OPTS: no JAAS login, no system properties. */
  const bare: NodeJS.ProcessEnv = { ...process.env };
  delete bare['KAFKA_OPTS'];

  beforeAll(async () => {
    certs = generateTestCertificates(tmpDir('zk-tls-tools-certs-'));
    ensemble = await startZkStandalone({ tls: { keyStore: certs.broker.p12, trustStore: certs.truststoreP12, password: STORE_PASSWORD } });
    secure = ensemble.nodes[0]?.secureHostPort ?? '';
    inspect = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10000, connectionTimeoutMs: 10000, name: 'inspect' });
    tlsFile = path.join(certs.dir, 'zk-tls.properties');
    fs.writeFileSync(
      tlsFile,
      [
        'zookeeper.ssl.client.enable=true',
        'zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty',
        `zookeeper.ssl.keystore.location=${certs.client.p12}`,
        `zookeeper.ssl.keystore.password=${STORE_PASSWORD}`,
        `zookeeper.ssl.truststore.location=${certs.truststoreJks}`,
        `zookeeper.ssl.truststore.password=${STORE_PASSWORD}`,
        // Not a ZooKeeper TLS key: ignored, as the option's help says.
        'zookeeper.connect=127.0.0.1:1',
        '',
      ].join('\n'),
    );
  }, 60000);

  afterAll(async () => {
    inspect?.close();
    await ensemble?.close();
  });

  it('zookeeper-shell -zk-tls-config-file creates and reads a znode over TLS', async () => {
    const node = `/shell-${uniqueChroot().slice(1)}`;
    const created = await runTool('zookeeper-shell', [secure, '-zk-tls-config-file', tlsFile, 'create', node, 'over-tls'], { env: bare });
    expect(created.output).toContain(`Created ${node}`);
    expect(created.code).toBe(0);
    expect((await inspect.getData(node))?.data?.toString()).toBe('over-tls');
    // ZooKeeperMainWithTlsSupportForKafka's refusal of the option without its file.
    const noFile = await runTool('zookeeper-shell', [secure, 'ls', '/', '-zk-tls-config-file'], { env: bare });
    expect(noFile.output).toContain('Exception in thread "main" java.lang.IllegalArgumentException: Error: no filename provided with option -zk-tls-config-file');
    expect(noFile.code).toBe(1);
  }, 60000);

  it('kafka-configs --zookeeper --zk-tls-config-file writes a client config owned by the certificate', async () => {
    const chroot = uniqueChroot('configs');
    await inspect.ensurePath(chroot);
    const connect = `${secure}${chroot}`;
    const entity = ['--entity-type', 'clients', '--entity-name', 'tls-client'];
    const altered = await runTool('kafka-configs', ['--zookeeper', connect, '--zk-tls-config-file', tlsFile, ...entity, '--alter', '--add-config', 'producer_byte_rate=1024'], { env: bare });
    expect(altered.output).toContain("Completed updating config for entity: client-id 'tls-client'.");
    expect(altered.code).toBe(0);
    // KafkaConfig.zkTlsClientAuthEnabled: TLS, a client connection socket and a keystore make its nodes secure.
    expect((await inspect.getAcl(`${chroot}/config/clients/tls-client`)).acl).toEqual([CLIENT_CERTIFICATE_OWNER, WORLD_READ]);
    const described = await runTool('kafka-configs', ['--zookeeper', connect, '--zk-tls-config-file', tlsFile, ...entity, '--describe'], { env: bare });
    expect(described.output).toContain("Configs for client-id 'tls-client' are producer_byte_rate=1024");
  }, 60000);

  it('kafka-acls takes the ZooKeeper TLS keys from its authorizer properties (authorizer.-prefixed ones first) or --zk-tls-config-file', async () => {
    const chroot = uniqueChroot('acls');
    const connect = `${secure}${chroot}`;
    const authorizer = [
      `zookeeper.connect=${connect}`,
      'zookeeper.ssl.client.enable=true',
      `zookeeper.ssl.keystore.location=${certs.client.p12}`,
      `zookeeper.ssl.keystore.password=${STORE_PASSWORD}`,
      // The prefixed key wins (AclAuthorizer.zkClientConfigFromKafkaConfigAndMap): the plain one names no file.
      'zookeeper.ssl.truststore.location=/no/such/truststore.jks',
      `authorizer.zookeeper.ssl.truststore.location=${certs.truststoreJks}`,
      `zookeeper.ssl.truststore.password=${STORE_PASSWORD}`,
      // Without a JAAS login, secure ACLs are asked for explicitly, as Kafka's help says.
      'zookeeper.set.acl=true',
    ].flatMap((p) => ['--authorizer-properties', p]);
    const added = await runTool('kafka-acls', [...authorizer, '--add', '--allow-principal', 'User:alice', '--operation', 'Read', '--topic', 'tls-topic'], { env: bare });
    expect(added.output).toContain('Adding ACLs for resource `ResourcePattern(resourceType=TOPIC, name=tls-topic, patternType=LITERAL)`: \n \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) \n');
    expect(added.code).toBe(0);
    expect((await inspect.getAcl(`${chroot}/kafka-acl/Topic/tls-topic`)).acl).toEqual([CLIENT_CERTIFICATE_OWNER, WORLD_READ]);
    const listed = await runTool('kafka-acls', ['--authorizer-properties', `zookeeper.connect=${connect}`, '--zk-tls-config-file', tlsFile, '--list', '--topic', 'tls-topic'], { env: bare });
    expect(listed.output).toContain('Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=tls-topic, patternType=LITERAL)`: \n \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) \n');
    expect(listed.code).toBe(0);
  }, 60000);

  it('zookeeper-security-migration --zk-tls-config-file secures a tree with no JAAS login: the znodes belong to the certificate', async () => {
    const chroot = uniqueChroot('migrate');
    await inspect.createRecursive(`${chroot}/config/topics/old`, Buffer.from('{"version":1,"config":{}}'));
    expect((await inspect.getAcl(`${chroot}/config/topics/old`)).acl).toEqual(OPEN_ACL_UNSAFE);
    const run = await runTool('zookeeper-security-migration', ['--zookeeper.acl=secure', `--zookeeper.connect=${secure}${chroot}`, '--zk-tls-config-file', tlsFile], { env: bare });
    expect(run.code).toBe(0);
    for (const p of [chroot, `${chroot}/config`, `${chroot}/config/topics/old`, `${chroot}/brokers`]) {
      expect((await inspect.getAcl(p)).acl).toEqual([CLIENT_CERTIFICATE_OWNER, WORLD_READ]);
    }
  }, 60000);

  it('kafka-topics --zookeeper connects over TLS with ZooKeeper\'s system properties in KAFKA_OPTS', async () => {
    const chroot = uniqueChroot('topics');
    await inspect.ensurePath(chroot);
    const kafkaOpts = zkTlsKafkaOpts(certs);
    const created = await runTool('kafka-topics', ['--zookeeper', `${secure}${chroot}`, '--create', '--topic', 'sys-topic', '--replica-assignment', '0'], { env: { ...bare, KAFKA_OPTS: kafkaOpts } });
    expect(created.output).toContain('Created topic sys-topic.');
    expect(created.code).toBe(0);
    // TopicCommand's client is secure with a JAAS login only (JaasUtils.isZkSaslEnabled): its nodes stay open.
    expect((await inspect.getAcl(`${chroot}/brokers/topics/sys-topic`)).acl).toEqual(OPEN_ACL_UNSAFE);
  }, 60000);

  it('kafka-reassign-partitions, kafka-preferred-replica-election and kafka-consumer-groups --zookeeper connect over TLS with KAFKA_OPTS', async () => {
    const chroot = uniqueChroot('admin');
    // Three registered brokers (the reassignment names live ones only) and a ZooKeeper consumer group's offset.
    for (const id of [0, 1, 2]) await inspect.createRecursive(`${chroot}/brokers/ids/${id}`, BrokerInfoZNode.encode(brokerInfo(id)));
    await inspect.createRecursive(`${chroot}/consumers/zk-group/offsets/moved/0`, Buffer.from('5'));
    const connect = `${secure}${chroot}`;
    const env = { ...bare, KAFKA_OPTS: zkTlsKafkaOpts(certs) };
    expect((await runTool('kafka-topics', ['--zookeeper', connect, '--create', '--topic', 'moved', '--replica-assignment', '0:1'], { env })).code).toBe(0);

    const plan = path.join(tmpDir('zk-tls-reassign-'), 'plan.json');
    fs.writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'moved', partition: 0, replicas: [1, 2] }] }));
    const reassigned = await runTool('kafka-reassign-partitions', ['--zookeeper', connect, '--execute', '--reassignment-json-file', plan], { env });
    expect(reassigned.output).toContain('Successfully started reassignment of partitions.');
    expect(reassigned.code).toBe(0);
    const admin = JSON.parse((await inspect.getData(`${chroot}/admin/reassign_partitions`))?.data?.toString() ?? '{}') as unknown;
    expect(admin).toEqual({ version: 1, partitions: [{ topic: 'moved', partition: 0, replicas: [1, 2] }] });

    const elected = await runTool('kafka-preferred-replica-election', ['--zookeeper', connect], { env });
    expect(elected.output).toMatch(/Successfully started preferred replica election for partitions Set\(moved-0\)/);
    expect(elected.code).toBe(0);
    expect(await inspect.exists(`${chroot}/admin/preferred_replica_election`)).not.toBeNull();

    const groups = await runTool('kafka-consumer-groups', ['--zookeeper', connect, '--list'], { env });
    expect(groups.output.split('\n')).toContain('zk-group');
    expect(groups.code).toBe(0);
  }, 90000);
});
