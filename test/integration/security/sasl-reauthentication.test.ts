import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { authenticateSasl, ClientSasl } from '../../../src/client/sasl-client-authenticator';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * KIP-368 on a SASL_PLAINTEXT listener whose PLAIN sessions last 2 s
 * (`listener.name.sasl_plaintext.plain.connections.max.reauth.ms`): the project's client and kafkajs renew their
 * sessions on the same connection and keep working past several lifetimes; a connection that does not renew is
 * closed by the broker at its next request after the session ended.
 */

jest.setTimeout(120_000);

const LIFETIME_MS = 2000;
const JAAS = `
KafkaServer {
  org.apache.kafka.common.security.plain.PlainLoginModule required
    username="admin" password="admin-secret"
    user_admin="admin-secret" user_dave="dave-secret";
};
`;
const DAVE: ClientSasl = { mechanism: 'PLAIN', username: 'dave', password: 'dave-secret' };

let ensemble: ZkEnsemble;
let broker: BrokerProcess;
let saslPort: number;

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const jaas = path.join(tmpDir('sasl-reauth-jaas-'), 'kafka_server_jaas.conf');
  fs.writeFileSync(jaas, JAAS);
  const port = await freePort();
  saslPort = await freePort();
  process.env['KAFKA_OPTS'] = `-Djava.security.auth.login.config=${jaas}`;
  try {
    broker = await BrokerProcess.start({
      brokerId: 0,
      zkConnect: ensemble.connectStringWithChroot(uniqueChroot('sasl-reauth')),
      port,
      props: {
        listeners: `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
        'inter.broker.listener.name': 'PLAINTEXT',
        'sasl.enabled.mechanisms': 'PLAIN',
        'listener.name.sasl_plaintext.plain.connections.max.reauth.ms': String(LIFETIME_MS),
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

function metadata(conn: BrokerConnection): Promise<unknown> {
  return conn.send(MetadataApi, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
}

describe('SASL re-authentication (KIP-368)', () => {
  it("the project's client renews its session on the same connection, with requests in flight", async () => {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: saslPort, clientId: 'reauth', sasl: DAVE, requestTimeoutMs: 10000 });
    try {
      await conn.negotiate();
      // Three lifetimes of back-to-back bursts of five concurrent requests: every one answered, none refused for an ended session.
      const until = Date.now() + 3 * LIFETIME_MS;
      let answered = 0;
      while (Date.now() < until) {
        await Promise.all(Array.from({ length: 5 }, () => metadata(conn)));
        answered += 5;
      }
      expect(answered).toBeGreaterThan(20);
      await expect(metadata(conn)).resolves.toBeDefined();
    } finally {
      conn.close();
    }
  });

  it('closes a connection whose session ended without re-authentication', async () => {
    // Authenticated by hand: the connection does not know it holds a session, so it never renews it.
    const conn = new BrokerConnection({ host: '127.0.0.1', port: saslPort, clientId: 'no-reauth', requestTimeoutMs: 10000 });
    try {
      const lifetime = await authenticateSasl(conn, DAVE);
      expect(lifetime).toBe(LIFETIME_MS);
      await expect(metadata(conn)).resolves.toBeDefined();
      const ended = Date.now() + LIFETIME_MS + 200;
      await waitUntil(() => Date.now() >= ended, { timeoutMs: 10000, intervalMs: 50, message: 'the session to end' });
      await expect(metadata(conn)).rejects.toThrow(/disconnected|closed|failed/);
    } finally {
      conn.close();
    }
  });

  it('kafkajs produces and consumes across several session lifetimes', async () => {
    const kafka = new Kafka({
      clientId: 'reauth-kafkajs',
      brokers: [`127.0.0.1:${saslPort}`],
      sasl: { mechanism: 'plain', username: 'dave', password: 'dave-secret' },
      reauthenticationThreshold: 500,
      logLevel: logLevel.NOTHING,
    });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    const sent: string[] = [];
    const until = Date.now() + 3 * LIFETIME_MS;
    while (Date.now() < until) {
      const value = `v${sent.length}`;
      await producer.send({ topic: 'reauth', acks: -1, messages: [{ value }] });
      sent.push(value);
    }
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'reauth-group' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'reauth', fromBeginning: true });
    const got: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void got.push(message.value?.toString() ?? '') });
    await waitUntil(() => got.length >= sent.length, { timeoutMs: 30000, message: `${sent.length} records consumed` });
    await consumer.disconnect();
    expect(got).toEqual(sent);
  });
});
