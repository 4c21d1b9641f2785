import fs from 'node:fs';
import path from 'node:path';
import { X509Certificate } from 'node:crypto';
import { connect as tlsConnect } from 'node:tls';
import { Kafka, KafkaConfig as KafkaJsConfig, logLevel } from 'kafkajs';
import { BrokerProcess } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { freePort } from '../../helpers/free-port';
import { runTool } from '../../helpers/run-tool';
import { generateTestCertificates, STORE_PASSWORD, TestCertificates } from '../../helpers/test-certificates';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

const TOPIC = 'tls-replicated';
const COUNT = 200;

interface Ports {
  plaintext: number;
  ssl: number;
  mtls: number;
}

async function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawnChild(command, args);
  const exit = await child.exited;
  return { code: exit.code, output: child.output() };
}

/** The SHA-256 fingerprint of the certificate a listener presents to a new connection. */
function presentedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fp = s.getPeerX509Certificate()?.fingerprint256 ?? '';
      s.destroy();
      resolve(fp);
    });
    s.once('error', reject);
  });
}

/**
 * Two brokers with PLAINTEXT, SSL (the inter-broker listener: replication and the controller's requests run over
 * it) and MTLS (an SSL listener whose listener.name.mtls.* keys require a client certificate and map its subject).
 * MTLS is also the control plane listener. Broker 0 reads a JKS keystore, broker 1 a PKCS12 one.
 */
describe('TLS listeners with real clients', () => {
  let ensemble: ZkEnsemble;
  let certs: TestCertificates;
  const brokers: BrokerProcess[] = [];
  const ports: Ports[] = [];
  let clientProps: string;
  let sslBootstrap: string;
  let mtlsBootstrap: string;

  const kafkajs = (extra: Partial<KafkaJsConfig> & { brokers: string[] }): Kafka =>
    new Kafka({ clientId: 'tls-test', logLevel: logLevel.NOTHING, connectionTimeout: 5000, requestTimeout: 10000, ...extra });

  beforeAll(async () => {
    const dir = tmpDir('kafka-ts-tls-');
    certs = generateTestCertificates(dir);
    clientProps = path.join(dir, 'client-ssl.properties');
    fs.writeFileSync(clientProps, `security.protocol=SSL\nssl.truststore.location=${certs.truststoreJks}\nssl.truststore.password=${STORE_PASSWORD}\n`);
    // The request log at DEBUG shows each request's principal.
    const log4j = path.join(dir, 'log4j.properties');
    const stock = fs.readFileSync(path.resolve(__dirname, '../../../config/log4j.properties'), 'utf8');
    fs.writeFileSync(log4j, stock.replace('log4j.logger.kafka.request.logger=WARN', 'log4j.logger.kafka.request.logger=DEBUG'));
    process.env['KAFKA_LOG4J_OPTS'] = `-Dlog4j.configuration=file:${log4j}`;
    ensemble = await startZkEnsemble({ size: 3 });
    const zkConnect = ensemble.connectStringWithChroot(uniqueChroot('tls'));
    for (let id = 0; id < 2; id++) ports.push({ plaintext: await freePort(), ssl: await freePort(), mtls: await freePort() });
    const started = await Promise.all(
      ports.map((p, id) =>
        BrokerProcess.start({
          brokerId: id,
          zkConnect,
          port: p.plaintext,
          props: {
            listeners: `PLAINTEXT://127.0.0.1:${p.plaintext},SSL://127.0.0.1:${p.ssl},MTLS://127.0.0.1:${p.mtls}`,
            'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL',
            'inter.broker.listener.name': 'SSL',
            // KIP-291: the controller's requests go over MTLS, with the broker's keystore as its client certificate.
            'control.plane.listener.name': 'MTLS',
            'ssl.keystore.type': id === 0 ? 'JKS' : 'PKCS12',
            'ssl.keystore.location': id === 0 ? certs.broker.jks : certs.broker.p12,
            'ssl.keystore.password': STORE_PASSWORD,
            'ssl.key.password': STORE_PASSWORD,
            'ssl.truststore.location': certs.truststoreJks,
            'ssl.truststore.password': STORE_PASSWORD,
            'listener.name.mtls.ssl.client.auth': 'required',
            'listener.name.mtls.ssl.principal.mapping.rules': 'RULE:^CN=([^,]*),OU=([^,]*),.*$/$1@$2/L,DEFAULT',
            'offsets.topic.replication.factor': '2',
            'offsets.topic.num.partitions': '2',
          },
        }),
      ),
    );
    brokers.push(...started);
    sslBootstrap = ports.map((p) => `127.0.0.1:${p.ssl}`).join(',');
    mtlsBootstrap = `127.0.0.1:${ports[0]?.mtls}`;
    const admin = kafkajs({ brokers: sslBootstrap.split(','), ssl: { ca: [fs.readFileSync(certs.caPem, 'utf8')] } }).admin();
    await admin.connect();
    await waitUntil(async () => (await admin.describeCluster()).brokers.length === 2, { timeoutMs: 60000, message: 'both brokers in the metadata over SSL' });
    await admin.disconnect();
  }, 240_000);

  afterAll(async () => {
    await Promise.all(brokers.map((b) => b.child.stop({ graceMs: 10000 })));
    const keep = process.env['KEEP_TLS_TEST_LOGS'];
    if (keep !== undefined) for (const b of brokers) fs.cpSync(b.logDir, path.join(keep, `broker-${b.brokerId}`), { recursive: true });
    await ensemble?.close();
  }, 60_000);

  it('kafka-topics over SSL (--command-config) creates a topic whose replicas fetch over SSL, and kafkajs writes it with acks=all', async () => {
    const create = await runTool('kafka-topics', ['--bootstrap-server', sslBootstrap, '--command-config', clientProps, '--create', '--topic', TOPIC, '--partitions', '2', '--replication-factor', '2', '--config', 'min.insync.replicas=2']);
    expect(create.output).toContain(`Created topic ${TOPIC}.`);
    expect(create.code).toBe(0);
    await waitUntil(
      async () => {
        const d = await runTool('kafka-topics', ['--bootstrap-server', sslBootstrap, '--command-config', clientProps, '--describe', '--topic', TOPIC]);
        return d.code === 0 && (d.output.match(/Isr: (0,1|1,0)/g) ?? []).length === 2;
      },
      { timeoutMs: 60000, message: 'both partitions with both replicas in sync' },
    );
    const producer = kafkajs({ brokers: sslBootstrap.split(','), ssl: { ca: [fs.readFileSync(certs.caPem, 'utf8')] } }).producer();
    await producer.connect();
    const messages = Array.from({ length: COUNT }, (_, i) => ({ key: `k${i}`, value: `v${i}` }));
    for (let i = 0; i < COUNT; i += 50) await producer.send({ topic: TOPIC, acks: -1, messages: messages.slice(i, i + 50) });
    await producer.disconnect();
    // The follower's copy is there: its fetcher reached the leader over the SSL listener.
    const plaintext = await runTool('kafka-topics', ['--bootstrap-server', `127.0.0.1:${ports[0]?.plaintext}`, '--describe', '--topic', TOPIC]);
    expect((plaintext.output.match(/Isr: (0,1|1,0)/g) ?? []).length).toBe(2);
    const controllerLog = brokers.map((b) => b.readLog('controller.log')).join('\n');
    expect(controllerLog).toMatch(/connected to 127\.0\.0\.1:\d+ \(id: \d+ rack: null\) for sending state change requests|connected to .* for sending state change requests/);
  });

  it('kcat (librdkafka) reads it over SSL', async () => {
    const r = await run('kcat', ['-b', sslBootstrap, '-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${certs.caPem}`, '-C', '-t', TOPIC, '-o', 'beginning', '-e', '-q', '-f', '%s\n']);
    expect(r.code).toBe(0);
    expect(r.output.split('\n').filter((l) => /^v\d+$/.test(l))).toHaveLength(COUNT);
  });

  it('kafka-python produces and confluent-kafka consumes over SSL, confluent-kafka with a client certificate too', async () => {
    const script = `
import sys
from kafka import KafkaProducer
import confluent_kafka
bootstrap, ca, mtls, cert, key = sys.argv[1:6]
p = KafkaProducer(bootstrap_servers=bootstrap, security_protocol='SSL', ssl_cafile=ca, acks='all')
for i in range(10):
    p.send('${TOPIC}', key=b'py', value=b'python-%d' % i)
p.flush(); p.close()
def consume(conf):
    c = confluent_kafka.Consumer(dict(conf, **{'group.id': conf['bootstrap.servers'], 'auto.offset.reset': 'earliest'}))
    c.subscribe(['${TOPIC}'])
    seen = 0
    import time
    deadline = time.time() + 60
    while seen < ${COUNT + 10} and time.time() < deadline:
        m = c.poll(1.0)
        if m is not None and m.error() is None:
            seen += 1
    c.close()
    return seen
print('one-way', consume({'bootstrap.servers': bootstrap, 'security.protocol': 'SSL', 'ssl.ca.location': ca}))
print('mutual', consume({'bootstrap.servers': mtls, 'security.protocol': 'SSL', 'ssl.ca.location': ca, 'ssl.certificate.location': cert, 'ssl.key.location': key}))
`;
    const dir = tmpDir('tls-py-');
    const file = path.join(dir, 'clients.py');
    fs.writeFileSync(file, script);
    fs.writeFileSync(path.join(dir, 'client.pem'), certs.client.cert);
    fs.writeFileSync(path.join(dir, 'client.key'), certs.client.key);
    const r = await run('/usr/bin/python3', [file, sslBootstrap, certs.caPem, mtlsBootstrap, path.join(dir, 'client.pem'), path.join(dir, 'client.key')]);
    expect(r.output).toContain(`one-way ${COUNT + 10}`);
    expect(r.output).toContain(`mutual ${COUNT + 10}`);
    expect(r.code).toBe(0);
  }, 180_000);

  it('mutual TLS: the certificate subject, mapped by the listener rules, is the principal', async () => {
    const client = kafkajs({ brokers: [mtlsBootstrap], ssl: { ca: [fs.readFileSync(certs.caPem, 'utf8')], cert: certs.client.cert, key: certs.client.key } }).admin();
    await client.connect();
    expect((await client.listTopics()).includes(TOPIC)).toBe(true);
    await client.disconnect();
    await waitUntil(() => /securityProtocol:SSL,principal:User:client@eng,listener:MTLS/.test(brokers[0]?.readLog('kafka-request.log') ?? ''), { timeoutMs: 20000, message: 'the mapped principal in the request log' });
    // The controller's requests came over the control plane listener, as the brokers' certificate principal.
    const requestLogs = brokers.map((b) => b.readLog('kafka-request.log')).join('\n');
    expect(requestLogs).toMatch(/Completed request:\{?[^\n]*LEADER_AND_ISR[^\n]*securityProtocol:SSL,principal:User:CN=localhost,listener:MTLS/);
    expect(requestLogs).not.toMatch(/LEADER_AND_ISR[^\n]*listener:(SSL|PLAINTEXT),/);
    // One-way TLS clients stay anonymous.
    expect(brokers.map((b) => b.readLog('kafka-request.log')).join('\n')).toMatch(/securityProtocol:SSL,principal:User:ANONYMOUS,listener:SSL/);
  });

  it('refuses an untrusted client certificate and a missing one, and keeps serving', async () => {
    const ca = [fs.readFileSync(certs.caPem, 'utf8')];
    // kafkajs gives a handshake 1 s by default; on a loaded machine it would hang up first, and a client that hangs
    // up is a disconnection, not a refusal. The broker must be the one to refuse.
    const connectionTimeout = 15000;
    // First a client that hangs up halfway through its handshake: a disconnection, which must neither be logged as a
    // failed authentication nor use up the rate-limited line the refusals below need.
    await new Promise<void>((resolve) => {
      const quitter = tlsConnect({ host: '127.0.0.1', port: ports[0]?.mtls as number, rejectUnauthorized: false });
      quitter.once('connect', () => quitter.destroy());
      quitter.once('close', () => resolve());
      quitter.on('error', () => undefined);
    });
    for (const ssl of [{ ca, cert: certs.rogue.cert, key: certs.rogue.key }, { ca }]) {
      const admin = kafkajs({ brokers: [mtlsBootstrap], ssl, connectionTimeout, retry: { retries: 0 } }).admin();
      await expect(admin.connect().then(() => admin.listTopics())).rejects.toThrow();
      await admin.disconnect();
    }
    // A client that does not trust the broker's CA gives up too.
    const distrustful = kafkajs({ brokers: sslBootstrap.split(','), ssl: { ca: [fs.readFileSync(certs.rogueCaPem, 'utf8')] }, connectionTimeout, retry: { retries: 0 } }).admin();
    await expect(distrustful.connect()).rejects.toThrow();
    await distrustful.disconnect();
    await waitUntil(() => /Failed authentication with \/(::ffff:)?127\.0\.0\.1 \(SSL handshake failed/.test(brokers[0]?.readLog() ?? ''), { timeoutMs: 20000, message: 'the failed handshakes logged' });
    expect(brokers[0]?.readLog()).not.toMatch(/Failed authentication with [^\n]*(unknown|hang up|disconnected)/);
    const good = kafkajs({ brokers: [mtlsBootstrap], ssl: { ca, cert: certs.client.cert, key: certs.client.key } }).admin();
    await good.connect();
    expect(await good.listTopics()).toContain(TOPIC);
    await good.disconnect();
    expect(brokers.every((b) => b.child.isRunning())).toBe(true);
  });

  it('reloads a keystore through kafka-configs: new connections get the new certificate; a different subject is refused', async () => {
    const port = ports[0]?.ssl as number;
    const before = new X509Certificate(certs.broker.cert).fingerprint256;
    const after = new X509Certificate(certs.broker2.cert).fingerprint256;
    expect(await presentedFingerprint(port)).toBe(before);
    const refused = await runTool('kafka-configs', ['--bootstrap-server', `127.0.0.1:${port}`, '--command-config', clientProps, '--entity-type', 'brokers', '--entity-name', '0', '--alter', '--add-config', `listener.name.ssl.ssl.keystore.location=${certs.rogue.jks}`]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain('Invalid dynamic configuration');
    const ok = await runTool('kafka-configs', ['--bootstrap-server', `127.0.0.1:${port}`, '--command-config', clientProps, '--entity-type', 'brokers', '--entity-name', '0', '--alter', '--add-config', `listener.name.ssl.ssl.keystore.location=${certs.broker2.jks}`]);
    expect(ok.output).toContain("Completed updating config for broker 0.");
    expect(ok.code).toBe(0);
    await waitUntil(async () => (await presentedFingerprint(port)) === after, { timeoutMs: 30000, message: 'the new certificate presented' });
    // Only that listener changed.
    expect(await presentedFingerprint(ports[0]?.mtls as number)).toBe(before);
  });

  it('kafka-console-producer (--producer.config) and kafka-console-consumer (--consumer-property) over SSL', async () => {
    const produced = await runTool('kafka-console-producer', ['--bootstrap-server', sslBootstrap, '--producer.config', clientProps, '--topic', 'console-tls'], { input: 'one\ntwo\nthree\n' });
    expect(produced.code).toBe(0);
    const consumed = await runTool('kafka-console-consumer', [
      '--bootstrap-server', sslBootstrap, '--consumer-property', 'security.protocol=SSL', '--consumer-property', 'ssl.truststore.type=PEM',
      '--consumer-property', `ssl.truststore.location=${certs.caPem}`, '--topic', 'console-tls', '--from-beginning', '--max-messages', '3',
    ]);
    expect(consumed.output).toMatch(/one\ntwo\nthree\n/);
    expect(consumed.code).toBe(0);
  });

  it('stops start-up with one line naming the keystore when its password is wrong, never printing the password', async () => {
    const wrong = 'wrong-password-42';
    const port = await freePort();
    const broker = await BrokerProcess.spawn({
      brokerId: 9,
      zkConnect: ensemble.connectStringWithChroot(uniqueChroot('tls-bad')),
      port,
      props: { listeners: `SSL://127.0.0.1:${port}`, 'security.inter.broker.protocol': 'SSL', 'ssl.keystore.location': certs.broker.jks, 'ssl.keystore.password': wrong, 'ssl.truststore.location': certs.truststoreJks, 'ssl.truststore.password': STORE_PASSWORD },
    });
    const exit = await broker.child.exited;
    expect(exit.code).not.toBe(0);
    expect(broker.child.output()).toContain(`Failed to load SSL keystore ${certs.broker.jks} of type JKS (ssl.keystore.location): Keystore was tampered with, or password was incorrect`);
    expect(broker.child.output()).not.toContain(wrong);
    expect(broker.readLog()).not.toContain(wrong);
  });
});
