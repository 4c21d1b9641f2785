import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BIN, BrokerProcess } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { freePort } from '../../helpers/free-port';
import { createChroot } from '../../helpers/create-chroot';
import { runTool } from '../../helpers/run-tool';
import { STORE_PASSWORD, TestCertificates, generateTestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * SASL_SSL, the set-up Kafka's security documentation ends with: two brokers whose inter-broker listener is
 * SASL_SSL with SCRAM-SHA-512 (TLS first, then the SCRAM exchange inside it), replicating an acks=all workload;
 * kafkajs and kcat as clients over SASL_SSL with SCRAM-SHA-256; a wrong password refused.
 */
jest.setTimeout(240_000);

let ensemble: ZkEnsemble;
let certs: TestCertificates;
const brokers: BrokerProcess[] = [];
const saslSslPorts: number[] = [];

function kafka(password = 'alice-secret'): Kafka {
  return new Kafka({
    clientId: 'sasl-ssl-test',
    brokers: saslSslPorts.map((p) => `127.0.0.1:${p}`),
    ssl: { ca: [fs.readFileSync(certs.caPem, 'utf8')] },
    sasl: { mechanism: 'scram-sha-256', username: 'alice', password },
    logLevel: logLevel.NOTHING,
  });
}

beforeAll(async () => {
  certs = generateTestCertificates(tmpDir('kafka-ts-sasl-ssl-'));
  ensemble = await startZkEnsemble({ size: 3 });
  const zkConnect = ensemble.connectStringWithChroot(uniqueChroot('sasl-ssl'));
  await createChroot(ensemble.connectString, zkConnect.slice(zkConnect.indexOf('/')));
  for (const [user, mechanism] of [['broker', 'SCRAM-SHA-512'], ['alice', 'SCRAM-SHA-256']] as const) {
    const r = await runTool('kafka-configs', ['--zookeeper', zkConnect, '--alter', '--add-config', `${mechanism}=[iterations=4096,password=${user}-secret]`, '--entity-type', 'users', '--entity-name', user]);
    expect(r.code).toBe(0);
  }
  const jaas = path.join(certs.dir, 'kafka_server_jaas.conf');
  fs.writeFileSync(jaas, 'KafkaServer {\n  org.apache.kafka.common.security.scram.ScramLoginModule required\n    username="broker" password="broker-secret";\n};\n');
  process.env['KAFKA_OPTS'] = `-Djava.security.auth.login.config=${jaas}`;
  try {
    for (let id = 0; id < 2; id++) {
      const port = await freePort();
      const saslSsl = await freePort();
      saslSslPorts.push(saslSsl);
      brokers.push(
        await BrokerProcess.start({
          brokerId: id,
          zkConnect,
          port,
          props: {
            listeners: `PLAINTEXT://127.0.0.1:${port},SASL_SSL://127.0.0.1:${saslSsl}`,
            'inter.broker.listener.name': 'SASL_SSL',
            'sasl.enabled.mechanisms': 'SCRAM-SHA-256,SCRAM-SHA-512',
            'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
            'ssl.keystore.type': 'PKCS12',
            'ssl.keystore.location': certs.broker.p12,
            'ssl.keystore.password': STORE_PASSWORD,
            'ssl.key.password': STORE_PASSWORD,
            'ssl.truststore.location': certs.truststoreJks,
            'ssl.truststore.password': STORE_PASSWORD,
            'offsets.topic.replication.factor': '2',
            'offsets.topic.num.partitions': '2',
          },
        }),
      );
    }
  } finally {
    delete process.env['KAFKA_OPTS'];
  }
});

afterAll(async () => {
  for (const b of brokers) await b.child.stop();
  await ensemble?.close();
});

describe('SASL_SSL', () => {
  it('replicates an acks=all workload over the SASL_SSL inter-broker listener, read back by kafkajs and kcat', async () => {
    const admin = kafka().admin();
    await admin.connect();
    try {
      await waitUntil(async () => (await admin.describeCluster()).brokers.length === 2, { timeoutMs: 60000, message: 'both brokers over SASL_SSL' });
      await admin.createTopics({ topics: [{ topic: 'secure', numPartitions: 2, replicationFactor: 2, configEntries: [{ name: 'min.insync.replicas', value: '2' }] }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
    const producer = kafka().producer();
    await producer.connect();
    const values = Array.from({ length: 200 }, (_, i) => `v${i}`);
    try {
      // acks=all with min.insync.replicas=2: each write needs the follower, which fetches over SASL_SSL.
      for (let i = 0; i < values.length; i += 50) await producer.send({ topic: 'secure', acks: -1, messages: values.slice(i, i + 50).map((value) => ({ value })) });
    } finally {
      await producer.disconnect();
    }
    const kcat = spawnChild('kcat', [
      '-C', '-b', `127.0.0.1:${saslSslPorts[1]}`, '-t', 'secure', '-e', '-q', '-f', '%s\\n',
      '-X', 'security.protocol=sasl_ssl', '-X', 'sasl.mechanisms=SCRAM-SHA-256', '-X', 'sasl.username=alice', '-X', 'sasl.password=alice-secret',
      '-X', `ssl.ca.location=${certs.caPem}`,
    ]);
    const exit = await kcat.exited;
    expect(exit.code).toBe(0);
    expect(kcat.output().trim().split('\n').sort()).toEqual([...values].sort());
  });

  it('runs kafka-mirror-maker with both of its clients over SASL_SSL from --consumer.config and --producer.config', async () => {
    // One cluster, so the mirror copies "mm" onto itself: its records come back once more (and again, until it
    // is stopped), which shows the consumer (group coordinator, fetches) and the producer both got through.
    const admin = kafka().admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: 'mm', numPartitions: 1, replicationFactor: 2 }], waitForLeaders: true });
      const producer = kafka().producer();
      await producer.connect();
      await producer.send({ topic: 'mm', acks: -1, messages: ['m0', 'm1', 'm2'].map((value) => ({ value })) });
      await producer.disconnect();
      const client = [
        `bootstrap.servers=127.0.0.1:${saslSslPorts[0]}`,
        'security.protocol=SASL_SSL',
        'sasl.mechanism=SCRAM-SHA-256',
        'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";',
        `ssl.truststore.location=${certs.truststoreJks}`,
        `ssl.truststore.password=${STORE_PASSWORD}`,
      ].join('\n');
      const consumerConfig = path.join(certs.dir, 'mm-consumer.properties');
      const producerConfig = path.join(certs.dir, 'mm-producer.properties');
      fs.writeFileSync(consumerConfig, `${client}\ngroup.id=mm-group\nauto.offset.reset=earliest\n`);
      fs.writeFileSync(producerConfig, `${client}\n`);
      const mirror = spawnChild(BIN('kafka-mirror-maker'), ['--consumer.config', consumerConfig, '--producer.config', producerConfig, '--whitelist', 'mm'], { name: 'mirror-maker' });
      try {
        await waitUntil(async () => Number((await admin.fetchTopicOffsets('mm'))[0]?.high) >= 6, { timeoutMs: 30000, message: `the mirrored records in mm:\n${mirror.tail()}` });
      } finally {
        await mirror.stop();
      }
    } finally {
      await admin.disconnect();
    }
  });

  it('refuses a wrong password and keeps serving', async () => {
    const admin = kafka('wrong').admin();
    await expect(admin.connect()).rejects.toThrow(/SASL SCRAM SHA256 authentication failed|Authentication failed/i);
    const ok = kafka().admin();
    await ok.connect();
    expect((await ok.listTopics()).includes('secure')).toBe(true);
    await ok.disconnect();
  });
});
