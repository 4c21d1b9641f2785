import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel, SASLOptions } from 'kafkajs';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { runTool } from '../../helpers/run-tool';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * SCRAM users managed over the wire (DescribeUserScramCredentials / AlterUserScramCredentials) with
 * kafka-configs --bootstrap-server, and the console and perf tools over SASL from their config files. One broker
 * with a PLAINTEXT and a SASL_PLAINTEXT listener; the tools' admin identity is a PLAIN user of the JAAS file.
 */

jest.setTimeout(150_000);

const JAAS = `
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin" password="admin-secret"
    user_admin="admin-secret";
};
`;

let ensemble: ZkEnsemble;
let broker: BrokerProcess;
let sasl = '';
let adminConfig = '';
let aliceConfig = '';

function aliceClient(password: string): Kafka {
  const options: SASLOptions = { mechanism: 'scram-sha-256', username: 'alice', password };
  return new Kafka({ clientId: 'scram-test', brokers: [sasl], sasl: options, logLevel: logLevel.NOTHING, retry: { retries: 0 } });
}

async function canAuthenticate(password: string): Promise<boolean> {
  const admin = aliceClient(password).admin();
  try {
    await admin.connect();
    await admin.listTopics();
    return true;
  } catch {
    return false;
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

async function configs(args: string[]): Promise<string> {
  const run = await runTool('kafka-configs', ['--bootstrap-server', sasl, '--command-config', adminConfig, '--entity-type', 'users', ...args]);
  if (run.code !== 0) throw new Error(`kafka-configs ${args.join(' ')} failed:\n${run.output}`);
  return run.output;
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const dir = tmpDir('scram-credentials-');
  const jaas = path.join(dir, 'kafka_server_jaas.conf');
  fs.writeFileSync(jaas, JAAS);
  adminConfig = path.join(dir, 'admin.properties');
  fs.writeFileSync(
    adminConfig,
    'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret";\n',
  );
  aliceConfig = path.join(dir, 'alice.properties');
  fs.writeFileSync(
    aliceConfig,
    'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="alice" password="alice-secret";\n',
  );
  const port = await freePort();
  const saslPort = await freePort();
  sasl = `127.0.0.1:${saslPort}`;
  process.env['KAFKA_OPTS'] = `-Djava.security.auth.login.config=${jaas}`;
  try {
    broker = await BrokerProcess.start({
      brokerId: 0,
      zkConnect: ensemble.connectStringWithChroot(uniqueChroot('scram-credentials')),
      port,
      logDir: tmpDir('scram-credentials-logs-'),
      props: {
        listeners: `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://${sasl}`,
        'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256',
        'offsets.topic.replication.factor': '1',
      },
    });
  } finally {
    delete process.env['KAFKA_OPTS'];
  }
});

afterAll(async () => {
  await broker?.child.stop();
  await ensemble?.close();
});

describe('SCRAM credentials through kafka-configs --bootstrap-server', () => {
  it('creates, describes and deletes a user; authentication follows each change', async () => {
    expect(await canAuthenticate('alice-secret')).toBe(false);
    const added = await configs(['--alter', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=alice-secret]']);
    expect(added).toContain('Completed updating config for user alice.');
    await waitUntil(() => canAuthenticate('alice-secret'), { timeoutMs: 20000, message: 'alice authenticates with SCRAM-SHA-256' });
    expect(await canAuthenticate('wrong')).toBe(false);
    expect(await configs(['--describe', '--entity-name', 'alice'])).toContain("SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192");
    expect(await configs(['--describe'])).toContain("SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192");

    const tooMany = await runTool('kafka-configs', ['--bootstrap-server', sasl, '--command-config', adminConfig, '--entity-type', 'users', '--entity-name', 'bob', '--alter', '--add-config', 'SCRAM-SHA-256=[iterations=16385,password=x]']);
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.output).toContain('Too many iterations');
    const missing = await runTool('kafka-configs', ['--bootstrap-server', sasl, '--command-config', adminConfig, '--entity-type', 'users', '--entity-name', 'bob', '--alter', '--delete-config', 'SCRAM-SHA-256']);
    expect(missing.code).not.toBe(0);
    expect(missing.output).toContain('Attempt to delete a user credential that does not exist');
  });

  it('console producer, console consumer and the producer perf tool authenticate from their config files', async () => {
    const produced = await runTool('kafka-console-producer', ['--bootstrap-server', sasl, '--topic', 'scram-console', '--producer.config', aliceConfig], { input: 'one\ntwo\n' });
    expect(produced.code).toBe(0);
    const consumed = await runTool('kafka-console-consumer', ['--bootstrap-server', sasl, '--topic', 'scram-console', '--from-beginning', '--max-messages', '2', '--timeout-ms', '30000', '--consumer.config', aliceConfig]);
    expect(consumed.code).toBe(0);
    expect(consumed.output).toContain('one');
    expect(consumed.output).toContain('two');
    const perf = await runTool('kafka-producer-perf-test', ['--topic', 'scram-perf', '--num-records', '200', '--record-size', '100', '--throughput', '-1', '--producer-props', `bootstrap.servers=${sasl}`, '--producer.config', aliceConfig]);
    expect(perf.code).toBe(0);
    expect(perf.output).toMatch(/200 records sent/);
  });

  it('after deleting the credential, alice can no longer authenticate', async () => {
    expect(await configs(['--alter', '--entity-name', 'alice', '--delete-config', 'SCRAM-SHA-256'])).toContain('Completed updating config for user alice.');
    await waitUntil(async () => !(await canAuthenticate('alice-secret')), { timeoutMs: 20000, message: 'alice refused once deleted' });
    expect(await configs(['--describe', '--entity-name', 'alice'])).not.toContain('SCRAM credential configs');
    const refused = await runTool('kafka-console-producer', ['--bootstrap-server', sasl, '--topic', 'scram-console', '--producer.config', aliceConfig, '--request-timeout-ms', '3000'], { input: 'three\n' });
    expect(refused.code).not.toBe(0);
  });
});
