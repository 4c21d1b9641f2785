import { Kafka, logLevel } from 'kafkajs';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';

describe('kafkajs 2.2.4 against the protocol test server', () => {
  let server: ProtocolTestServer;

  beforeAll(async () => {
    server = await new ProtocolTestServer().start();
  });
  afterAll(async () => {
    await server.stop();
  });

  const kafka = (): Kafka => new Kafka({ clientId: 'cap', brokers: [server.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 2 } });

  it('admin connects and fetches metadata', async () => {
    server.createTopic('admin-topic', 3);
    const admin = kafka().admin();
    await admin.connect();
    try {
      const md = await admin.fetchTopicMetadata({ topics: ['admin-topic'] });
      expect(md.topics[0]?.partitions).toHaveLength(3);
      const cluster = await admin.describeCluster();
      expect(cluster.brokers).toEqual([{ nodeId: 0, host: '127.0.0.1', port: server.port }]);
      expect(cluster.controller).toBe(0);
      expect(await admin.createTopics({ topics: [{ topic: 'created-by-admin', numPartitions: 2 }] })).toBe(true);
      expect(await admin.listTopics()).toEqual(expect.arrayContaining(['admin-topic', 'created-by-admin']));
    } finally {
      await admin.disconnect();
    }
  });

  it('produces a batch and consumes it back through a group', async () => {
    const client = kafka();
    const producer = client.producer();
    await producer.connect();
    const sent = await producer.send({
      topic: 'kjs',
      messages: [
        { key: 'k1', value: 'v1', headers: { h: 'x' } },
        { key: 'k2', value: 'v2' },
        { key: null, value: 'v3' },
      ],
    });
    expect(sent[0]).toMatchObject({ topicName: 'kjs', partition: 0, errorCode: 0, baseOffset: '0' });
    await producer.send({ topic: 'kjs', messages: [{ value: 'v4' }] });
    await producer.disconnect();

    const admin = client.admin();
    await admin.connect();
    expect(await admin.fetchTopicOffsets('kjs')).toEqual([{ partition: 0, offset: '4', high: '4', low: '0' }]);
    await admin.disconnect();

    const consumer = client.consumer({ groupId: 'g1', maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic: 'kjs', fromBeginning: true });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`only got ${seen.join(',')}`)), 20000);
      void consumer.run({
        eachMessage: async ({ message }) => {
          seen.push(`${message.offset}:${message.key?.toString() ?? 'null'}=${message.value?.toString() ?? ''}`);
          if (seen.length === 4) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    await consumer.disconnect();
    expect(seen).toEqual(['0:k1=v1', '1:k2=v2', '2:null=v3', '3:null=v4']);
  });

  it('acks=0 produce gets no response and later requests still work', async () => {
    const producer = kafka().producer();
    await producer.connect();
    await producer.send({ topic: 'acks0', acks: 0, messages: [{ value: 'a' }] });
    const r = await producer.send({ topic: 'acks0', messages: [{ value: 'b' }] });
    expect(r[0]?.baseOffset).toBe('1');
    await producer.disconnect();
  });
});
