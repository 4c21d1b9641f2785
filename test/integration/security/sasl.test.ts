import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel, SASLOptions } from 'kafkajs';
import { BrokerProcess } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { freePort } from '../../helpers/free-port';
import { createChroot } from '../../helpers/create-chroot';
import { runTool } from '../../helpers/run-tool';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * Two brokers with a PLAINTEXT and a SASL_PLAINTEXT listener; the SASL one is the inter-broker listener, with
 * SCRAM-SHA-512 (the broker's own user created with kafka-configs before the brokers start, as Kafka's docs do).
 * Real clients authenticate with PLAIN and SCRAM; wrong credentials are refused and leave the brokers serving.
 */

jest.setTimeout(240_000);

const JAAS = `
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin" password="admin-secret"
    user_admin="admin-secret" user_carol="carol-secret";
  org.apache.kafka.common.security.scram.ScramLoginModule required
    username="broker" password="broker-secret";
};
`;

let ensemble: ZkEnsemble;
let zkConnect: string;
const brokers: BrokerProcess[] = [];
const saslPorts: number[] = [];

async function kafkaConfigs(args: string[]): Promise<string> {
  const run = await runTool('kafka-configs', ['--zookeeper', zkConnect, ...args]);
  if (run.code !== 0) throw new Error(`kafka-configs ${args.join(' ')} failed:\n${run.output}`);
  return run.output;
}

function saslBootstrap(): string[] {
  return saslPorts.map((p) => `127.0.0.1:${p}`);
}

function client(sasl: SASLOptions, brokersList = saslBootstrap()): Kafka {
  return new Kafka({ clientId: 'sasl-test', brokers: brokersList, sasl, logLevel: logLevel.NOTHING });
}

async function roundTrip(kafka: Kafka, topic: string, values: string[]): Promise<string[]> {
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, acks: -1, messages: values.map((value) => ({ value })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `g-${topic}-${Math.random()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value?.toString() ?? '') });
  await waitUntil(() => values.every((v) => got.includes(v)), { timeoutMs: 60000, message: `${values.join(',')} from ${topic}` });
  await consumer.disconnect();
  return got;
}

async function run(command: string, args: string[], input?: string): Promise<string> {
  const dir = tmpDir('sasl-run-');
  const stdin = path.join(dir, 'stdin');
  fs.writeFileSync(stdin, input ?? '');
  const child = spawnChild('/bin/sh', ['-c', `exec "$0" "$@" < ${stdin}`, command, ...args]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`${command} failed (${JSON.stringify(exit)}):\n${child.tail()}`);
  return child.output();
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  zkConnect = ensemble.connectStringWithChroot(uniqueChroot('sasl'));
  // The chroot must exist for kafka-configs; the first broker would create it, but the users come first.
  await createChroot(ensemble.connectString, zkConnect.slice(zkConnect.indexOf('/')));
  await kafkaConfigs(['--alter', '--add-config', 'SCRAM-SHA-512=[iterations=4096,password=broker-secret]', '--entity-type', 'users', '--entity-name', 'broker']);
  await kafkaConfigs(['--alter', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]', '--entity-type', 'users', '--entity-name', 'alice']);
  const jaas = path.join(tmpDir('sasl-jaas-'), 'kafka_server_jaas.conf');
  fs.writeFileSync(jaas, JAAS);
  process.env['KAFKA_OPTS'] = `-Djava.security.auth.login.config=${jaas}`;
  for (let id = 0; id < 2; id++) {
    const port = await freePort();
    const sasl = await freePort();
    saslPorts.push(sasl);
    brokers.push(
      await BrokerProcess.start({
        brokerId: id,
        zkConnect,
        port,
        logDir: process.env["H21_KEEP_LOGS"] !== undefined ? fs.mkdtempSync(`/tmp/h21-keep-${id}-`) : tmpDir(`sasl-broker-${id}-logs-`),
        props: {
          listeners: `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${sasl}`,
          'inter.broker.listener.name': 'SASL_PLAINTEXT',
          'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
          'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512',
          'offsets.topic.replication.factor': '2',
          'default.replication.factor': '2',
        },
      }),
    );
  }
  delete process.env['KAFKA_OPTS'];
  const admin = client({ mechanism: 'plain', username: 'admin', password: 'admin-secret' }).admin();
  await admin.connect();
  await waitUntil(async () => (await admin.describeCluster()).brokers.length === 2, { timeoutMs: 30000, message: 'both brokers registered' });
  await admin.createTopics({ topics: [{ topic: 'replicated', numPartitions: 2, replicationFactor: 2 }], waitForLeaders: true });
  await admin.disconnect();
});

afterAll(async () => {

  for (const b of brokers) await b.child.stop();
  await ensemble?.close();
});

describe('SASL_PLAINTEXT listeners', () => {
  it('kafkajs produces and consumes with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512', async () => {
    expect(await roundTrip(client({ mechanism: 'plain', username: 'carol', password: 'carol-secret' }), 'replicated', ['p1', 'p2'])).toEqual(expect.arrayContaining(['p1', 'p2']));
    expect(await roundTrip(client({ mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' }), 'replicated', ['s256'])).toContain('s256');
    expect(await roundTrip(client({ mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' }), 'replicated', ['s512'])).toContain('s512');
  });

  it('replicates an acks=all workload over the SCRAM-SHA-512 inter-broker listener', async () => {
    const kafka = client({ mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' });
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 20; i++) await producer.send({ topic: 'replicated', acks: -1, messages: Array.from({ length: 50 }, (_, j) => ({ key: `k${j}`, value: `v${i}-${j}` })) });
    await producer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['replicated'] });
    for (const p of meta.topics[0]?.partitions ?? []) expect(p.isr.sort()).toEqual([0, 1]);
    await admin.disconnect();
    // Both brokers' logs say the inter-broker connections authenticated (no failure lines for the broker user).
    for (const b of brokers) expect(b.readLog()).not.toMatch(/Failed authentication with .*SCRAM-SHA-512/);
  });

  it('refuses a wrong password and an unknown user with SASL_AUTHENTICATION_FAILED, and keeps serving', async () => {
    const wrong = client({ mechanism: 'scram-sha-256', username: 'alice', password: 'nope' }).producer();
    await expect(wrong.connect()).rejects.toThrow(/Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-256/);
    const unknown = client({ mechanism: 'plain', username: 'mallory', password: 'x' }).producer();
    await expect(unknown.connect()).rejects.toThrow(/Authentication failed: Invalid username or password/);
    await waitUntil(() => brokers.some((b) => /Failed authentication with \/127\.0\.0\.1 \(Authentication failed: Invalid username or password\)/.test(b.readLog())), { message: 'the failure logged' });
    expect(await roundTrip(client({ mechanism: 'plain', username: 'carol', password: 'carol-secret' }), 'replicated', ['after-failures'])).toContain('after-failures');
  });

  it('a user added with kafka-configs logs in within seconds on every broker', async () => {
    await kafkaConfigs(['--alter', '--add-config', 'SCRAM-SHA-256=[password=dave-secret]', '--entity-type', 'users', '--entity-name', 'dave']);
    const described = await kafkaConfigs(['--describe', '--entity-type', 'users', '--entity-name', 'dave']);
    expect(described).toMatch(/^Configs for user-principal 'dave' are SCRAM-SHA-256=salt=[^,]+,stored_key=[^,]+,server_key=[^,]+,iterations=4096$/m);
    expect(described).not.toContain('dave-secret');
    for (const port of saslPorts) {
      await waitUntil(
        async () => {
          const admin = client({ mechanism: 'scram-sha-256', username: 'dave', password: 'dave-secret' }, [`127.0.0.1:${port}`]).admin();
          await admin.connect();
          await admin.disconnect();
          return true;
        },
        { timeoutMs: 15000, message: `dave logging in on port ${port}` },
      );
    }
    await kafkaConfigs(['--alter', '--delete-config', 'SCRAM-SHA-256', '--entity-type', 'users', '--entity-name', 'dave']);
    await waitUntil(
      async () => {
        const admin = client({ mechanism: 'scram-sha-256', username: 'dave', password: 'dave-secret' }, [saslBootstrap()[0] as string]).admin();
        try {
          await admin.connect();
          await admin.disconnect();
          return false;
        } catch {
          return true;
        }
      },
      { message: 'dave refused once deleted' },
    );
  });

  it('kafka-topics takes security.protocol, sasl.mechanism and sasl.jaas.config from --command-config', async () => {
    const dir = tmpDir('sasl-tool-');
    const props = (password: string): string => {
      const file = path.join(dir, `${password}.properties`);
      fs.writeFileSync(
        file,
        `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-512\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="${password}";\n`,
      );
      return file;
    };
    const ok = await runTool('kafka-topics', ['--bootstrap-server', saslBootstrap()[0] as string, '--command-config', props('alice-secret'), '--list']);
    expect(ok.code).toBe(0);
    expect(ok.output.split('\n')).toContain('replicated');
    const bad = await runTool('kafka-topics', ['--bootstrap-server', saslBootstrap()[0] as string, '--command-config', props('wrong'), '--list']);
    expect(bad.code).not.toBe(0);
    expect(bad.output).not.toContain('wrong');
  });

  it('kcat (librdkafka) produces and consumes with SCRAM-SHA-256', async () => {
    const common = ['-b', saslBootstrap().join(','), '-X', 'security.protocol=sasl_plaintext', '-X', 'sasl.mechanisms=SCRAM-SHA-256', '-X', 'sasl.username=alice', '-X', 'sasl.password=alice-secret', '-t', 'kcat-topic'];
    await run('kcat', [...common, '-P'], 'k1\nk2\n');
    const out = await run('kcat', [...common, '-C', '-o', 'beginning', '-e', '-q']);
    expect(out.split('\n').filter((l) => l !== '')).toEqual(['k1', 'k2']);
  });

  it('kafka-python (handshake v0, unframed tokens) and confluent-kafka authenticate with SCRAM and PLAIN', async () => {
    const bootstrap = saslBootstrap().join(',');
    const py = `
import sys
from kafka import KafkaProducer, KafkaConsumer
conf = dict(bootstrap_servers='${bootstrap}', security_protocol='SASL_PLAINTEXT', sasl_mechanism='SCRAM-SHA-512', sasl_plain_username='alice', sasl_plain_password='alice-secret')
p = KafkaProducer(acks='all', **conf)
p.send('py-topic', b'from-kafka-python').get(timeout=30)
p.close()
c = KafkaConsumer('py-topic', auto_offset_reset='earliest', consumer_timeout_ms=15000, **conf)
print([m.value.decode() for m in c])
c.close()
`;
    expect(await run('/usr/bin/python3', ['-c', py])).toContain("['from-kafka-python']");
    const ck = `
from confluent_kafka import Producer, Consumer
conf = {'bootstrap.servers': '${bootstrap}', 'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanisms': 'PLAIN', 'sasl.username': 'carol', 'sasl.password': 'carol-secret'}
p = Producer(conf)
p.produce('ck-topic', b'from-confluent-kafka')
assert p.flush(30) == 0
c = Consumer(dict(conf, **{'group.id': 'ck', 'auto.offset.reset': 'earliest'}))
c.subscribe(['ck-topic'])
m = None
for _ in range(60):
    m = c.poll(1.0)
    if m is not None and m.error() is None:
        break
print(m.value().decode())
c.close()
`;
    expect(await run('/usr/bin/python3', ['-c', ck])).toContain('from-confluent-kafka');
  });
});
