// A test with Node's own test runner against a real kafka-ts cluster: `node --test cluster.test.mjs`.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Kafka, logLevel } from 'kafkajs';
import { startCluster } from 'kafka-ts';

let cluster;
let kafka;

before(async () => {
  cluster = await startCluster({ brokers: 1 });
  kafka = new Kafka({ clientId: 'node-test-example', brokers: cluster.bootstrapServers.split(','), logLevel: logLevel.NOTHING });
});

after(() => cluster?.stop());

test('a message produced is consumed', async () => {
  await cluster.createTopic('greetings', { partitions: 1 });
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic: 'greetings', messages: [{ key: 'k', value: 'hello' }] });
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: 'node-test-example', maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: ['greetings'], fromBeginning: true });
  const value = await new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ message }) => resolve(message.value.toString()) });
  });
  await consumer.disconnect();
  assert.equal(value, 'hello');
});
