import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { DescribeProducersApi, DescribeProducersResponse } from '../../../src/protocol/apis/describe-producers';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/**
 * DescribeProducers (61, KIP-664) on 2 brokers: the leader of a partition answers the idempotent producer that
 * wrote to it (id, epoch 0, last sequence), also after the follower took over leadership (its producer state is
 * rebuilt from the batches it replicated); a follower and an unknown partition answer their errors.
 */
describe('DescribeProducers', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 2 });
    const created = await runTool('kafka-topics', ['--create', '--zookeeper', cluster.zkConnect, '--topic', 'dp', '--replica-assignment', '0:1']);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders('dp', 1);
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  async function describe(brokerIndex: number, topic: string, partitions: number[]): Promise<DescribeProducersResponse> {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerIndex).port, clientId: 'describe-producers' });
    await conn.connect();
    try {
      return await conn.send(DescribeProducersApi, { topics: [{ name: topic, partitionIndexes: partitions }] });
    } finally {
      conn.close();
    }
  }

  it('lists the idempotent producer on the leader, errors elsewhere', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'dp-test', logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      for (let i = 0; i < 3; i++) await producer.send({ topic: 'dp', acks: -1, messages: [{ value: `a${i}` }, { value: `b${i}` }] });
    } finally {
      await producer.disconnect();
    }
    const leader = await describe(0, 'dp', [0]);
    const p = leader.topics[0]?.partitions[0];
    expect(p?.errorCode).toBe(0);
    expect(p?.activeProducers).toHaveLength(1);
    const active = p?.activeProducers[0];
    expect(active).toMatchObject({ producerEpoch: 0, lastSequence: 5, coordinatorEpoch: -1, currentTxnStartOffset: -1 });
    expect(active?.producerId).toBeGreaterThanOrEqual(0);
    expect(Math.abs((active?.lastTimestamp ?? 0) - Date.now())).toBeLessThan(120000);

    // Broker 1 follows partition 0 and does not know partition 7.
    const follower = await describe(1, 'dp', [0, 7]);
    expect(follower.topics[0]?.partitions.map((x) => [x.partitionIndex, x.errorCode, x.activeProducers.length])).toEqual([
      [0, 6, 0],
      [7, 3, 0],
    ]);

    // Broker 1 leads once broker 0 is gone, and knows the same producer from the batches it replicated.
    await cluster.broker(0).child.stop();
    const after = await waitUntil(
      async () => {
        const r = await describe(1, 'dp', [0]).catch(() => undefined);
        return r?.topics[0]?.partitions[0]?.errorCode === 0 ? r : undefined;
      },
      { timeoutMs: 60000, message: 'broker 1 leading dp-0' },
    );
    expect(after.topics[0]?.partitions[0]?.activeProducers).toEqual([active]);
  }, 120000);
});
