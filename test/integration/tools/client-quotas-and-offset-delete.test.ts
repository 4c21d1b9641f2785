import { Consumer, Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { AlterClientQuotasApi } from '../../../src/protocol/apis/alter-client-quotas';
import { ApiVersionsApi } from '../../../src/protocol/apis/api-versions';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { runTool } from '../../helpers/run-tool';
import { readJson } from '../../helpers/zk-inspect';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/**
 * DescribeClientQuotas/AlterClientQuotas through kafka-configs --bootstrap-server (a quota set, applied by the
 * broker as a throttle, described, removed; the refusals), and OffsetDelete through kafka-consumer-groups
 * --delete-offsets (an empty group's offsets deleted, a stable subscribed group refused, an unknown group).
 * Three brokers; topic q lives on broker 0, whose quotas are measured. Quota windows are 3 x 1 s.
 */
describe('client quotas and offset deletion on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  let consumer: Consumer | undefined;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'quota.window.num': '3', 'quota.window.size.seconds': '1' } });
    const created = await runTool('kafka-topics', ['--create', '--zookeeper', cluster.zkConnect, '--topic', 'q', '--replica-assignment', '0']);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders('q', 1);
    kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'quota-test', logLevel: logLevel.NOTHING });
  }, 120000);

  afterAll(async () => {
    await consumer?.disconnect();
    await cluster?.close();
  });

  const configs = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-configs', ['--bootstrap-server', cluster.bootstrap, ...args]);
  const groups = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-consumer-groups', ['--bootstrap-server', cluster.bootstrap, ...args]);

  async function produceThrottles(clientId: string, requests: number): Promise<number[]> {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(0).port, clientId, requestTimeoutMs: 60000 });
    await conn.connect();
    const throttles: number[] = [];
    try {
      for (let i = 0; i < requests; i++) {
        const b = new RecordBatchBuilder({ initialCapacity: 20_100 });
        b.append({ key: null, value: Buffer.alloc(20_000, 1), timestamp: Date.now() });
        const r = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: 'q', partitionData: [{ index: 0, records: b.build() }] }] }, { version: 7 });
        throttles.push(r.throttleTimeMs);
      }
    } finally {
      conn.close();
    }
    return throttles;
  }

  it('sets a client quota with --bootstrap-server, the broker throttles the client, describe shows it, delete removes it', async () => {
    const set = await configs(['--alter', '--entity-type', 'clients', '--entity-name', 'slow-producer', '--add-config', 'producer_byte_rate=100000']);
    expect(set.output.trim()).toBe('Completed updating config for client slow-producer.');
    expect(set.code).toBe(0);
    await cluster.broker(0).child.waitForLine(/Changing Produce quota for client-id slow-producer to 100000/, { timeoutMs: 30000 });
    const described = await configs(['--describe', '--entity-type', 'clients', '--entity-name', 'slow-producer']);
    expect(described.output.trim()).toBe("Quota configs for client-id 'slow-producer' are producer_byte_rate=100000.0");
    expect(Math.max(...(await produceThrottles('slow-producer', 15)))).toBeGreaterThan(0);
    expect((await produceThrottles('free-producer', 15)).every((t) => t === 0)).toBe(true);

    const dflt = await configs(['--alter', '--entity-type', 'clients', '--entity-default', '--add-config', 'consumer_byte_rate=5000000']);
    expect(dflt.output.trim()).toBe('Completed updating default config for clients in the cluster.');
    const all = await configs(['--describe', '--entity-type', 'clients']);
    expect(all.output.trim().split('\n').sort()).toEqual(["Quota configs for client-id 'slow-producer' are producer_byte_rate=100000.0", 'Quota configs for the default client-id are consumer_byte_rate=5000000.0']);

    const removed = await configs(['--alter', '--entity-type', 'clients', '--entity-name', 'slow-producer', '--delete-config', 'producer_byte_rate']);
    expect(removed.output.trim()).toBe('Completed updating config for client slow-producer.');
    await cluster.broker(0).child.waitForLine(/Removing Produce quota for client-id slow-producer \(kafka/, { timeoutMs: 30000 });
    expect((await configs(['--describe', '--entity-type', 'clients', '--entity-name', 'slow-producer'])).output.trim()).toBe('');
    const again = await configs(['--alter', '--entity-type', 'clients', '--entity-name', 'slow-producer', '--delete-config', 'producer_byte_rate']);
    expect(again.output.trim()).toBe('Invalid config(s): producer_byte_rate');
    expect(again.code).toBe(1);
  }, 90000);

  it("applies user quotas to the connection's principal, the most specific entity first (KIP-55's order)", async () => {
    // Every PLAINTEXT client is User:ANONYMOUS: a quota on that user throttles all of its clients together...
    const set = await configs(['--alter', '--entity-type', 'users', '--entity-name', 'ANONYMOUS', '--add-config', 'producer_byte_rate=100000']);
    expect(set.output.trim()).toBe('Completed updating config for user ANONYMOUS.');
    await cluster.broker(0).child.waitForLine(/Changing Produce quota for user ANONYMOUS to 100000/, { timeoutMs: 30000 });
    // ...except a client id with a quota of its own under that user (users/<user>/clients/<client-id> comes first).
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(1).port, clientId: 'quota-admin' });
    await conn.connect();
    try {
      const altered = await conn.send(AlterClientQuotasApi, {
        entries: [{ entity: [{ entityType: 'user', entityName: 'ANONYMOUS' }, { entityType: 'client-id', entityName: 'free-producer' }], ops: [{ key: 'producer_byte_rate', value: 1e9, remove: false }] }],
        validateOnly: false,
      });
      expect(altered.entries.map((e) => e.errorCode)).toEqual([0]);
      await cluster.broker(0).child.waitForLine(/Changing Produce quota for user ANONYMOUS client-id free-producer to 1000000000/, { timeoutMs: 30000 });
      expect(Math.max(...(await produceThrottles('some-producer', 15)))).toBeGreaterThan(0);
      expect((await produceThrottles('free-producer', 15)).every((t) => t === 0)).toBe(true);
      const described = await configs(['--describe', '--entity-type', 'users']);
      expect(described.output.trim()).toBe("Quota configs for user-principal 'ANONYMOUS' are producer_byte_rate=100000.0");
      expect(await readJson(cluster.zk, `${cluster.chroot}/config/users/ANONYMOUS/clients/free-producer`)).toEqual({ version: 1, config: { producer_byte_rate: '1000000000' } });
      await conn.send(AlterClientQuotasApi, {
        entries: [{ entity: [{ entityType: 'user', entityName: 'ANONYMOUS' }, { entityType: 'client-id', entityName: 'free-producer' }], ops: [{ key: 'producer_byte_rate', value: 0, remove: true }] }],
        validateOnly: false,
      });
    } finally {
      conn.close();
    }
    const removed = await configs(['--alter', '--entity-type', 'users', '--entity-name', 'ANONYMOUS', '--delete-config', 'producer_byte_rate']);
    expect(removed.output.trim()).toBe('Completed updating config for user ANONYMOUS.');
    await cluster.broker(0).child.waitForLine(/Removing Produce quota for user ANONYMOUS \(kafka/, { timeoutMs: 30000 });
    await cluster.broker(0).child.waitForLine(/Removing Produce quota for user ANONYMOUS client-id free-producer \(kafka/, { timeoutMs: 30000 });
  }, 90000);

  it("holds and closes new connections from an ip over its connection_creation_rate (KIP-612), until it is removed", async () => {
    const admin = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(0).port, clientId: 'quota-admin' });
    await admin.connect();
    const setRate = async (value: number | undefined): Promise<void> => {
      const r = await admin.send(AlterClientQuotasApi, {
        entries: [{ entity: [{ entityType: 'ip', entityName: '127.0.0.1' }], ops: [{ key: 'connection_creation_rate', value: value ?? 0, remove: value === undefined }] }],
        validateOnly: false,
      });
      expect(r.entries.map((e) => e.errorCode)).toEqual([0]);
    };
    /** Opens `n` connections at once; how many got an ApiVersions answer. */
    const answered = async (n: number): Promise<number> => {
      const results = await Promise.all(
        Array.from({ length: n }, async () => {
          const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(0).port, clientId: 'rate-test', requestTimeoutMs: 15000 });
          try {
            await c.connect();
            await c.send(ApiVersionsApi, { clientSoftwareName: 'rate-test', clientSoftwareVersion: '1' }, { version: 3 });
            return 1;
          } catch {
            return 0;
          } finally {
            c.close();
          }
        }),
      );
      return results.reduce<number>((a, b) => a + b, 0);
    };
    try {
      await setRate(2);
      await cluster.broker(0).child.waitForLine(/Updating max connection rate override for \/127.0.0.1 to 2 \(kafka.network.ConnectionQuotas\)/, { timeoutMs: 30000 });
      const got = await answered(12);
      // 2 per second measured over the 2 s of a young sensor (3 windows of 1 s): about 4 of 12 get in.
      expect(got).toBeGreaterThanOrEqual(1);
      expect(got).toBeLessThan(12);
      await cluster.broker(0).child.waitForLine(/Delaying closing of connection from \/127.0.0.1 for \d+ ms/, { timeoutMs: 10000 });
      await setRate(undefined);
      await cluster.broker(0).child.waitForLine(/Removing max connection rate override for \/127.0.0.1 \(kafka/, { timeoutMs: 30000 });
      expect(await answered(12)).toBe(12);
    } finally {
      admin.close();
    }
  }, 90000);

  it('refuses what no broker applies and invalid values, one line and exit 1', async () => {
    const cases: [string[], RegExp][] = [
      [['--entity-type', 'clients', '--entity-name', 'c', '--add-config', 'request_percentage=50'], /InvalidRequestException: Client quotas other than producer_byte_rate and consumer_byte_rate are not supported by this broker; refused: request_percentage$/],
      [['--entity-type', 'clients', '--entity-name', 'c', '--add-config', 'producer_byte_rate=1.5'], /InvalidRequestException: Configuration producer_byte_rate must be a LONG value$/],
      [['--entity-type', 'ips', '--entity-name', 'no-such-host.invalid', '--add-config', 'connection_creation_rate=10'], /InvalidRequestException: no-such-host.invalid is not a valid IP or resolvable host.$/],
      [['--entity-type', 'ips', '--entity-name', '10.1.2.3', '--add-config', 'producer_byte_rate=10'], /^Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: .*producer_byte_rate/],
      [['--entity-type', 'clients', '--entity-name', 'c', '--add-config', 'retention.ms=5'], /^Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: Set\(retention.ms\)$/],
      [['--entity-type', 'clients', '--entity-name', 'c', '--add-config', 'producer_byte_rate=fast'], /^Cannot parse quota configuration value for producer_byte_rate: fast$/],
    ];
    for (const [args, expected] of cases) {
      const r = await configs(['--alter', ...args]);
      expect(r.code).toBe(1);
      expect(r.output.trim().split('\n')).toHaveLength(1);
      expect(r.output.trim()).toMatch(expected);
    }
  }, 60000);

  it('deletes the offsets of an empty group, refuses those of a stable group subscribed to the topic, and an unknown group', async () => {
    const reset = await groups(['--reset-offsets', '--group', 'g-empty', '--topic', 'q', '--to-earliest', '--execute']);
    expect(reset.code).toBe(0);
    const deleted = await groups(['--delete-offsets', '--group', 'g-empty', '--topic', 'q']);
    expect(deleted.output.split('\n')).toEqual(['Request succeed for deleting offsets with topic q group g-empty', '', `${'TOPIC'.padEnd(30)} ${'PARTITION'.padEnd(15)} ${'STATUS'.padEnd(15)}`, `${'q'.padEnd(30)} ${'0'.padEnd(15)} ${'Successful'.padEnd(15)}`]);
    expect(deleted.code).toBe(0);
    // The group had nothing but these offsets: it is gone.
    expect((await groups(['--delete-offsets', '--group', 'g-empty', '--topic', 'q'])).output).toContain("Error: 'g-empty' does not exist.");

    consumer = kafka.consumer({ groupId: 'g-stable', sessionTimeout: 10000 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'q', fromBeginning: true });
    let consumed = false;
    await consumer.run({
      eachMessage: async () => {
        consumed = true;
      },
    });
    await waitUntil(() => consumed, { timeoutMs: 30000, message: 'g-stable consuming' });
    const refused = await groups(['--delete-offsets', '--group', 'g-stable', '--topic', 'q:0', '--topic', 'nosuch']);
    const lines = refused.output.split('\n');
    expect(lines.slice(0, 4)).toEqual(['', 'Error: Encounter some partition level error, see the follow-up details:', '', `${'TOPIC'.padEnd(30)} ${'PARTITION'.padEnd(15)} ${'STATUS'.padEnd(15)}`]);
    expect(lines[4]).toBe(`${'nosuch'.padEnd(30)} ${'Not Provided'.padEnd(15)} Error: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: This server does not host this topic-partition.`);
    expect(lines[5]).toBe(`${'q'.padEnd(30)} ${'0'.padEnd(15)} Error: org.apache.kafka.common.errors.GroupSubscribedToTopicException: Deleting offsets of a topic is forbidden while the consumer group is actively subscribed to it.`);
    expect(refused.code).toBe(1);
  }, 90000);

  it('answers the argument errors with one line', async () => {
    const r = await groups(['--delete-offsets', '--group', 'g']);
    expect(r.code).toBe(1);
    expect(r.output.trim()).toBe('Option [delete-offsets] takes the following options: [group], [topic]');
  });
});
