import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel, SASLOptions } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { OAuthBearerUnsecuredJws, base64UrlJson } from '../../../src/security/oauth-bearer-unsecured-jws';
import { BrokerProcess } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { freePort } from '../../helpers/free-port';
import { runTool } from '../../helpers/run-tool';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * Two brokers, each with two SASL_PLAINTEXT listeners offering only OAUTHBEARER with Kafka's unsecured validator:
 * INTERNAL (the inter-broker listener: the brokers log in with unsecuredLoginStringClaim_sub="broker" and
 * replicate over it) and SCOPED (unsecuredValidatorRequiredScope="kafka"). connection.failed.authentication.delay.ms
 * is 1000 so that the delayed answer to a failure is measurable.
 */

jest.setTimeout(120_000);

const MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
const DELAY_MS = 1000;
let ensemble: ZkEnsemble;
const brokers: BrokerProcess[] = [];
const internal: number[] = [];
const scoped: number[] = [];

const nowS = (): number => Date.now() / 1000;
const jwt = (claims: Record<string, unknown>): string => `${base64UrlJson({ alg: 'none' })}.${base64UrlJson(claims)}.`;

function client(ports: number[], token: () => string, retries = 5): Kafka {
  const sasl: SASLOptions = { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: token() }) };
  return new Kafka({ clientId: 'oauth-test', brokers: ports.map((p) => `127.0.0.1:${p}`), sasl, logLevel: process.env['OAUTH_DEBUG'] ? logLevel.ERROR : logLevel.NOTHING, retry: { retries } });
}

async function run(command: string, args: string[], input = ''): Promise<{ code: number | null; output: string }> {
  const stdin = path.join(tmpDir('oauth-run-'), 'stdin');
  fs.writeFileSync(stdin, input);
  const child = spawnChild('/bin/sh', ['-c', `exec "$0" "$@" < ${stdin} 2>&1`, command, ...args]);
  const exit = await child.exited;
  return { code: exit.code, output: child.output() };
}

/** The project's own client with a hand-made token: the exchange as an OAUTHBEARER client sees it. */
async function authenticateWith(port: number, value: string): Promise<{ error: Error | undefined; ms: number }> {
  // Any value, even one the token class would refuse (the client only sends `value`).
  const oauthBearer = { token: () => ({ value }) as OAuthBearerUnsecuredJws, extensions: new Map<string, string>() };
  const conn = new BrokerConnection({ host: '127.0.0.1', port, security: { securityProtocol: 'SASL_PLAINTEXT' }, sasl: { mechanism: 'OAUTHBEARER', username: '', password: '', oauthBearer } });
  const start = Date.now();
  let error: Error | undefined;
  try {
    await conn.connect();
    await conn.send(MetadataApi, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false } as never, { version: 1 });
  } catch (e) {
    error = e as Error;
  }
  conn.close();
  return { error, ms: Date.now() - start };
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const zkConnect = ensemble.connectStringWithChroot(uniqueChroot('oauth'));
  for (let id = 0; id < 2; id++) {
    const i = await freePort();
    const s = await freePort();
    internal.push(i);
    scoped.push(s);
    brokers.push(
      await BrokerProcess.start({
        brokerId: id,
        zkConnect,
        port: i,
        logDir: tmpDir(`oauth-broker-${id}-logs-`),
        props: {
          listeners: `INTERNAL://127.0.0.1:${i},SCOPED://127.0.0.1:${s}`,
          'listener.security.protocol.map': 'INTERNAL:SASL_PLAINTEXT,SCOPED:SASL_PLAINTEXT',
          'inter.broker.listener.name': 'INTERNAL',
          'sasl.enabled.mechanisms': 'OAUTHBEARER',
          'sasl.mechanism.inter.broker.protocol': 'OAUTHBEARER',
          'listener.name.internal.oauthbearer.sasl.jaas.config': `${MODULE} required unsecuredLoginStringClaim_sub="broker";`,
          'listener.name.scoped.oauthbearer.sasl.jaas.config': `${MODULE} required unsecuredValidatorRequiredScope="kafka" unsecuredValidatorAllowableClockSkewMs="1000";`,
          'connection.failed.authentication.delay.ms': String(DELAY_MS),
          'offsets.topic.replication.factor': '2',
          'default.replication.factor': '2',
        },
      }),
    );
  }
  const admin = client(internal, () => jwt({ sub: 'admin', iat: nowS(), exp: nowS() + 600 })).admin();
  await admin.connect();
  await waitUntil(async () => (await admin.describeCluster()).brokers.length === 2, { timeoutMs: 30000, message: 'both brokers registered' });
  await admin.createTopics({ topics: [{ topic: 'oauth', numPartitions: 2, replicationFactor: 2 }], waitForLeaders: true });
  await admin.disconnect();
});

afterAll(async () => {
  for (const b of brokers) await b.child.stop();
  await ensemble?.close();
});

describe('SASL/OAUTHBEARER with the unsecured JWS validator', () => {
  it('kafkajs produces acks=all and consumes with an unsecured JWT; the partitions replicate over OAUTHBEARER', async () => {
    const kafka = client(scoped, () => jwt({ sub: 'alice', iat: nowS(), exp: nowS() + 600, scope: 'kafka other' }));
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'oauth', acks: -1, messages: Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'oauth-group' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'oauth', fromBeginning: true });
    const got = new Set<string>();
    await consumer.run({ eachMessage: async ({ message }) => void got.add(message.value?.toString() ?? '') });
    await waitUntil(() => got.size >= 20, { timeoutMs: 30000, message: () => `20 records consumed (got ${got.size})` });
    await consumer.disconnect();
    const admin = kafka.admin();
    await admin.connect();
    const meta = await admin.fetchTopicMetadata({ topics: ['oauth'] });
    for (const p of meta.topics[0]?.partitions ?? []) expect([...p.isr].sort()).toEqual([0, 1]);
    await admin.disconnect();
    for (const b of brokers) {
      expect(b.readLog()).toMatch(/Successfully validated token with principal broker/);
      expect(b.readLog()).toMatch(/Successfully validated token with principal alice/);
    }
  });

  it('kcat (librdkafka) produces and consumes with its unsecured JWT; without the required scope it is refused', async () => {
    const common = (port: number, config: string): string[] => [
      '-b', `127.0.0.1:${port}`, '-X', 'security.protocol=sasl_plaintext', '-X', 'sasl.mechanisms=OAUTHBEARER',
      '-X', 'enable.sasl.oauthbearer.unsecure.jwt=true', '-X', `sasl.oauthbearer.config=${config}`, '-t', 'kcat-oauth',
    ];
    const produced = await run('kcat', [...common(internal[0] as number, 'principal=alice'), '-P'], 'a1\na2\n');
    expect(produced.code).toBe(0);
    const consumed = await run('kcat', [...common(scoped[1] as number, 'principal=alice scope=kafka'), '-C', '-o', 'beginning', '-e', '-q']);
    expect(consumed.code).toBe(0);
    expect(consumed.output.split('\n').filter((l) => l !== '')).toEqual(['a1', 'a2']);
    const refused = await run('timeout', ['20', 'kcat', ...common(scoped[0] as number, 'principal=alice'), '-L', '-m', '5']);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toMatch(/insufficient_scope|Authentication failed|SASL authentication error/i);
  });

  it('an expired token and a missing scope fail with SASL_AUTHENTICATION_FAILED and the error JSON, after the delay', async () => {
    const expired = await authenticateWith(scoped[0] as number, jwt({ sub: 'alice', exp: nowS() - 60, scope: 'kafka' }));
    expect(expired.error).toMatchObject({ errorName: 'SASL_AUTHENTICATION_FAILED', message: '{"status":"invalid_token"}' });
    expect(expired.ms).toBeGreaterThanOrEqual(DELAY_MS - 50);
    const noScope = await authenticateWith(scoped[0] as number, jwt({ sub: 'alice', exp: nowS() + 60, scope: 'other' }));
    expect(noScope.error).toMatchObject({ errorName: 'SASL_AUTHENTICATION_FAILED', message: '{"status":"insufficient_scope", "scope":"[kafka]"}' });
    const signed = await authenticateWith(internal[0] as number, `${jwt({ sub: 'alice', exp: nowS() + 60 })}c2ln`);
    expect(signed.error).toMatchObject({ errorName: 'SASL_AUTHENTICATION_FAILED', message: '{"status":"invalid_token"}' });
    // A valid token on the same listener is served at once.
    const fine = await authenticateWith(scoped[0] as number, jwt({ sub: 'alice', exp: nowS() + 60, scope: 'kafka' }));
    expect(fine.error).toBeUndefined();
    expect(fine.ms).toBeLessThan(DELAY_MS);
    // kafkajs sends no Control-A after the error JSON (it takes the challenge for success): the broker refuses its
    // next request and closes the connection, as Kafka does; either way it never gets in.
    const kafkajs = client([scoped[0] as number], () => jwt({ sub: 'alice', exp: nowS() - 60, scope: 'kafka' }), 0).admin();
    await expect(kafkajs.connect().then(() => kafkajs.listTopics())).rejects.toThrow();
    await kafkajs.disconnect();
    await waitUntil(() => /Failed authentication with \/127\.0\.0\.1 \(\{"status":"invalid_token"\}\)/.test(brokers[0]?.readLog() ?? ''), { message: 'the failure logged' });
  });

  it('the brokers are unharmed: many failed authentications at once, then a good client is served', async () => {
    const bad = jwt({ sub: 'mallory', exp: nowS() - 60 });
    const results = await Promise.all(Array.from({ length: 30 }, () => authenticateWith(scoped[0] as number, bad)));
    for (const r of results) expect(r.error).toMatchObject({ errorName: 'SASL_AUTHENTICATION_FAILED' });
    const topics = await runToolWithOAuth(internal[0] as number);
    expect(topics).toContain('oauth');
  });
});

/** kafka-topics with an OAuthBearerLoginModule sasl.jaas.config from --command-config (the tools' client side). */
async function runToolWithOAuth(port: number): Promise<string[]> {
  const file = path.join(tmpDir('oauth-tool-'), 'client.properties');
  fs.writeFileSync(file, `security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER\nsasl.jaas.config=${MODULE} required unsecuredLoginStringClaim_sub="tool";\n`);
  const r = await runTool('kafka-topics', ['--bootstrap-server', `127.0.0.1:${port}`, '--command-config', file, '--list']);
  if (r.code !== 0) throw new Error(`kafka-topics failed:\n${r.output}`);
  return r.output.split('\n');
}
