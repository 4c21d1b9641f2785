// A Jest test against a real kafka-ts cluster: `npx jest examples/jest`. One cluster for the whole file.
const { Kafka, logLevel } = require('kafkajs');
const { startCluster } = require('kafka-ts');

jest.setTimeout(120000);

let cluster;
let kafka;

beforeAll(async () => {
  cluster = await startCluster({ brokers: 3 });
  kafka = new Kafka({ clientId: 'jest-example', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING });
});

afterAll(() => cluster?.stop());

test('messages survive the crash of a broker', async () => {
  await cluster.createTopic('payments', { partitions: 3, replicationFactor: 3, config: { 'min.insync.replicas': 2 } });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'payments', acks: -1, messages: [{ value: 'before' }] });
  await cluster.killBroker(2, 'SIGKILL');
  await producer.send({ topic: 'payments', acks: -1, messages: [{ value: 'after' }] });
  await producer.disconnect();
  await cluster.restartBroker(2);

  const consumer = kafka.consumer({ groupId: 'jest-example', maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: ['payments'], fromBeginning: true });
  const values = new Set();
  await new Promise((resolve) => {
    consumer.run({
      eachMessage: async ({ message }) => {
        values.add(message.value.toString());
        if (values.size === 2) resolve();
      },
    });
  });
  await consumer.disconnect();
  expect([...values].sort()).toEqual(['after', 'before']);
});
