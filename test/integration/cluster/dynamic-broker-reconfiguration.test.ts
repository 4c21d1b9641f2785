import fs from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { readJson } from '../../helpers/zk-inspect';

const API_VERSIONS_V0 = (correlationId: number): Buffer => requestFrame(18, 0, correlationId, Buffer.alloc(0));

/** Established TCP connections whose local port is `port` (the broker's side of its clients), from /proc/net. */
function establishedTo(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '01' && local !== undefined && parseInt(local.split(':')[1] ?? '', 16) === port) n++;
    }
  }
  return n;
}

/** Opens `n` raw connections from 127.0.0.1; the ones the broker answered ApiVersions on, and how many it closed. */
async function connectMany(port: number, n: number): Promise<{ served: RawConnection[]; refused: number }> {
  const served: RawConnection[] = [];
  let refused = 0;
  for (let i = 0; i < n; i++) {
    let c: RawConnection;
    try {
      c = await RawConnection.open(port);
    } catch {
      refused++;
      continue;
    }
    c.send(API_VERSIONS_V0(i));
    if ((await c.response(i, 3000)) !== undefined) served.push(c);
    else {
      refused++;
      c.close();
    }
  }
  return { served, refused };
}

const PLAIN = 'org.apache.kafka.common.security.plain.PlainLoginModule required';
const JAAS_KEY = 'listener.name.sasl_plaintext.plain.sasl.jaas.config';

/**
 * Dynamic broker configs applied live on 3 brokers, set with kafka-configs --entity-default: the per-IP
 * connection limit (new connections judged at once, open ones kept), max.connection.creation.rate,
 * num.replica.fetchers (the fetchers re-partitioned while replication goes on), and a thread count Kafka
 * refuses. A fourth broker with a SASL_PLAINTEXT listener and password.encoder.secret takes a new PLAIN user
 * through its listener's JAAS entry, stored encoded.
 */
describe('dynamic broker reconfiguration: connection limits and thread pools without restart', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  const TOPIC = 'live';
  const N = 20;
  // The tools talk to broker 1: the limits are tried on broker 0.
  const configs = (...args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', `127.0.0.1:${cluster.broker(1).port}`, '--entity-type', 'brokers', '--entity-default', ...args]);

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    for (const id of [0, 1, 2]) await cluster.waitForBrokerInMetadata(id);
    const created = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', TOPIC, '--partitions', '4', '--replication-factor', '3', '--config', 'min.insync.replicas=3']);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 4);
    kafka = new Kafka({ clientId: 'reconfigure-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    // After the topic, so that none of its replicas land here.
    const port = await freePort();
    saslPort = await freePort();
    saslBroker = await BrokerProcess.start({
      brokerId: 3,
      zkConnect: cluster.zkConnect,
      port,
      props: {
        listeners: `PLAINTEXT://127.0.0.1:${port},SASL_PLAINTEXT://127.0.0.1:${saslPort}`,
        'sasl.enabled.mechanisms': 'PLAIN',
        [JAAS_KEY]: `${PLAIN} user_admin="admin-secret";`,
        'password.encoder.secret': 'encoder-secret',
      },
    });
  }, 120000);
  afterAll(async () => {
    await saslBroker?.child.stop();
    await cluster?.close();
  });
  let saslBroker: BrokerProcess | undefined;
  let saslPort = 0;

  it(`max.connections.per.ip=${N} at the cluster default: the connection past it is closed at accept, open ones stay`, async () => {
    const port = cluster.broker(0).port;
    // Unlimited before: N + 1 connections are all served, and stay open across the change.
    const before = await connectMany(port, N + 1);
    try {
      expect(before.served).toHaveLength(N + 1);
      const altered = await configs('--alter', '--add-config', `max.connections.per.ip=${N}`);
      expect(altered.output.trim().split('\n').pop()).toBe('Completed updating default config for brokers in the cluster.');
      await waitUntil(
        async () => {
          const one = await connectMany(port, 1);
          for (const c of one.served) c.close();
          return one.refused === 1;
        },
        { timeoutMs: 30000, message: 'a new connection refused on the new limit' },
      );
      // Kafka does not close the connections already open above the new limit.
      const still = before.served[0] as RawConnection;
      still.send(API_VERSIONS_V0(1000));
      expect(await still.response(1000, 5000)).toBeDefined();
    } finally {
      for (const c of before.served) c.close();
    }
    // Once those are gone: 127.0.0.1 gets exactly N, counting the inter-broker connections to broker 0.
    const counted = await waitUntil(
      async () => {
        const existing = establishedTo(port);
        const r = await connectMany(port, N + 1);
        for (const c of r.served) c.close();
        return r.served.length === N - existing && r.refused === existing + 1 ? r : undefined;
      },
      { timeoutMs: 30000, intervalMs: 500, message: `exactly ${N} connections from 127.0.0.1` },
    );
    expect(counted.served.length).toBeGreaterThan(0);
    expect(cluster.broker(0).child.output()).toContain(`Rejected connection from /127.0.0.1, address already has the configured maximum of ${N} connections.`);
    expect((await configs('--alter', '--delete-config', 'max.connections.per.ip')).code).toBe(0);
    await waitUntil(
      async () => {
        const r = await connectMany(port, N + 1);
        for (const c of r.served) c.close();
        return r.refused === 0;
      },
      { timeoutMs: 30000, intervalMs: 500, message: 'the limit lifted' },
    );
  }, 120000);

  it('num.replica.fetchers changes live with replication going on; a thread count past double is refused', async () => {
    const producer = kafka.producer();
    await producer.connect();
    const send = async (from: number): Promise<void> => {
      await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 40 }, (_, i) => ({ key: `k${from + i}`, value: `v${from + i}` })) });
    };
    try {
      await send(0);
      expect((await configs('--alter', '--add-config', 'num.replica.fetchers=2')).code).toBe(0);
      await waitUntil(() => [0, 1, 2].every((id) => cluster.broker(id).child.output().includes('Resizing fetcher thread pool size from 1 to 2')), { timeoutMs: 30000, message: 'every broker resized its fetcher pool' });
      // min.insync.replicas=3 with acks=all: each write needs both followers, now on their new fetchers.
      await send(40);
      await send(80);
      const admin = kafka.admin();
      await admin.connect();
      try {
        const offsets = await admin.fetchTopicOffsets(TOPIC);
        expect(offsets.reduce((n, o) => n + Number(o.high), 0)).toBe(120);
      } finally {
        await admin.disconnect();
      }
      for (let p = 0; p < 4; p++) expect((await cluster.partitionState(TOPIC, p))?.isr.sort()).toEqual([0, 1, 2]);
    } finally {
      await producer.disconnect();
    }

    const refused = await configs('--alter', '--add-config', 'num.replica.fetchers=5');
    expect(refused.code).toBe(1);
    expect(refused.output.trim().split('\n').pop()).toContain(
      ": org.apache.kafka.common.errors.InvalidRequestException: Invalid config value for resource ConfigResource(type=BROKER, name=''): Invalid dynamic configuration",
    );
    const described = await configs('--describe');
    expect(described.output).toContain('num.replica.fetchers=2 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:num.replica.fetchers=2');
  }, 120000);

  it('max.connection.creation.rate at the cluster default: a burst past it is refused at once, lifted on delete', async () => {
    const port = cluster.broker(0).port;
    const burst = async (): Promise<{ served: number; refused: number }> => {
      const r = await connectMany(port, 10);
      for (const c of r.served) c.close();
      return { served: r.served.length, refused: r.refused };
    };
    expect((await burst()).refused).toBe(0);
    expect((await configs('--alter', '--add-config', 'max.connection.creation.rate=4')).code).toBe(0);
    await waitUntil(async () => (await burst()).refused > 0, { timeoutMs: 30000, intervalMs: 1100, message: 'a burst of 10 connections refused past 4 per second' });
    expect(cluster.broker(0).child.output()).toContain('Rejected connection from /127.0.0.1, more than max.connection.creation.rate=4 new connections in the last second.');
    const described = await configs('--describe');
    expect(described.output).toContain('max.connection.creation.rate=4 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:max.connection.creation.rate=4');
    expect((await configs('--alter', '--delete-config', 'max.connection.creation.rate')).code).toBe(0);
    await waitUntil(async () => (await burst()).refused === 0, { timeoutMs: 30000, intervalMs: 1100, message: 'the rate lifted' });
  }, 90000);

  it('a PLAIN user added live through listener.name.<l>.plain.sasl.jaas.config logs in; the entry is stored encoded', async () => {
    const login = async (username: string, password: string): Promise<number> => {
      const admin = new Kafka({ clientId: 'sasl-live', brokers: [`127.0.0.1:${saslPort}`], sasl: { mechanism: 'plain', username, password }, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).admin();
      await admin.connect();
      try {
        return (await admin.describeCluster()).brokers.length;
      } finally {
        await admin.disconnect();
      }
    };
    expect(await login('admin', 'admin-secret')).toBe(1);
    await expect(login('dave', 'dave-secret')).rejects.toThrow();
    const bootstrap = `127.0.0.1:${(saslBroker as BrokerProcess).port}`;
    const tool = (...args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', bootstrap, '--entity-type', 'brokers', '--entity-name', '3', ...args]);
    const altered = await tool('--alter', '--add-config', `${JAAS_KEY}=[${PLAIN} user_admin="admin-secret" user_dave="dave-secret";]`);
    expect(altered.output.trim().split('\n').pop()).toBe('Completed updating config for broker 3.');
    await waitUntil(async () => (await login('dave', 'dave-secret').catch(() => 0)) === 1, { timeoutMs: 30000, message: 'dave logs in with the new JAAS entry' });
    // Kafka's PasswordEncoder form in ZooKeeper, never the text; DescribeConfigs hides it.
    const node = (await readJson(cluster.zk, `${cluster.chroot}/config/brokers/3`)) as { config: Record<string, string> } | null;
    const stored = node?.config[JAAS_KEY] ?? '';
    expect(stored).toMatch(/^encryptedPassword:[^,]+,passwordLength:\d+,salt:[^,]+,keyLength:128,iterations:4096,cipherAlgorithm:AES\/CBC\/PKCS5Padding,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,initializationVector:/);
    expect(stored).not.toContain('dave-secret');
    expect((await tool('--describe')).output).toContain(`${JAAS_KEY}=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:${JAAS_KEY}=null`);
    // admin, still in the new entry, logs in as before.
    expect(await login('admin', 'admin-secret')).toBe(1);
  }, 90000);
});
