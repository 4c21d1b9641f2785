import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { spawnChild } from '../../helpers/child-processes';
import { NetworkClient } from '../../../src/client/network-client';
import { PartitionConsumer } from '../../../src/client/partition-consumer';
import { Producer } from '../../../src/client/producer';
import { InitProducerIdApi } from '../../../src/protocol/apis/init-producer-id';
import { ProduceApi, ProducePartitionResponse } from '../../../src/protocol/apis/produce';
import { DescribeProducersApi } from '../../../src/protocol/apis/describe-producers';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';
import { topicsTool } from '../replication/replication-helpers';
import { runTool } from '../../helpers/run-tool';

/**
 * The idempotent producer on 3 brokers (RF 3, min.insync.replicas 2): InitProducerId, sequence checks at the
 * leader, duplicates answered with their original offsets, the state rebuilt by followers (a new leader detects
 * the old one's duplicates) and by a restarted broker (from its snapshot and log, after SIGKILL and after a clean
 * stop). Real clients: kafkajs `idempotent: true` and librdkafka (confluent-kafka) `enable.idempotence=true`.
 */
describe('idempotent producer, 3 brokers', () => {
  let cluster: TestCluster;
  let client: NetworkClient;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'replica.lag.time.max.ms': '10000', 'auto.create.topics.enable': 'false' } });
    for (const [topic, extra] of [
      ['idem', ['--partitions', '2', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-raw', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-py', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-failover', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-own', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-tools', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      ['idem-kip360', ['--partitions', '1', '--replication-factor', '3', '--config', 'min.insync.replicas=2']],
      // One replica, on broker 2: its restarts are what the producer state must survive.
      ['idem-restart', ['--replica-assignment', '2', '--config', 'segment.bytes=2000']],
    ] as const) {
      const created = await topicsTool(cluster, '--create', '--topic', topic, ...extra);
      expect(created.code).toBe(0);
    }
    for (const t of ['idem', 'idem-raw', 'idem-py', 'idem-failover', 'idem-own', 'idem-tools', 'idem-kip360', 'idem-restart']) await cluster.waitForLeaders(t, t === 'idem' ? 2 : 1);
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
  }, 180000);

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  async function leaderOf(topic: string): Promise<number> {
    let leader = -1;
    await waitUntil(
      async () => {
        leader = (await cluster.partitionState(topic, 0))?.leader ?? -1;
        return leader >= 0;
      },
      { timeoutMs: 30000, message: `a leader for ${topic}-0` },
    );
    return leader;
  }

  async function consumeAll(topic: string, partition = 0): Promise<{ offset: number; value: string }[]> {
    const c = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      const consumer = new PartitionConsumer(c, { maxWaitMs: 200 });
      const tp = { topic, partition };
      const hw = await consumer.listOffset(tp, -1);
      await consumer.assign([tp], 'earliest');
      const out: { offset: number; value: string }[] = [];
      await waitUntil(
        async () => {
          for (const r of await consumer.poll()) out.push({ offset: r.offset, value: r.value?.toString() ?? '' });
          return (consumer.position(tp) ?? 0) >= hw;
        },
        { timeoutMs: 30000, message: `consuming ${topic}-${partition} up to ${hw}` },
      );
      return out;
    } finally {
      c.close();
    }
  }

  async function initProducerId(): Promise<number> {
    const r = await client.request('any', InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }, { version: 4 });
    expect(r).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    return r.producerId;
  }

  function batch(producerId: number, seq: number, values: string[], epoch = 0): Buffer {
    const b = new RecordBatchBuilder({ compression: CompressionType.NONE, producerId, producerEpoch: epoch, baseSequence: seq });
    for (const v of values) b.append({ timestamp: Date.now(), key: null, value: Buffer.from(v) });
    return b.build();
  }

  async function produceTo(node: number, topic: string, records: Buffer): Promise<ProducePartitionResponse> {
    // A fresh copy each time: the broker rewrites the base offset of what it appends, the test resends the original.
    const r = await client.request(node, ProduceApi, { transactionalId: null, acks: -1, timeoutMs: 15000, topicData: [{ name: topic, partitionData: [{ index: 0, records: Buffer.from(records) }] }] }, { version: 8 });
    return r.responses[0]?.partitionResponses[0] as ProducePartitionResponse;
  }

  it('hands out distinct producer ids (epoch 0) from every broker', async () => {
    const ids = new Set<number>();
    for (const node of [0, 1, 2]) {
      await client.ensureMetadata();
      const r = await client.request(node, InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000 }, { version: 1 });
      expect(r).toMatchObject({ errorCode: 0, producerEpoch: 0 });
      ids.add(r.producerId);
    }
    expect(ids.size).toBe(3);
    // A producer id without its epoch (v3+) is refused; a transactional id waits for the coordinator.
    expect((await client.request('any', InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: 5, producerEpoch: -1 }, { version: 3 })).errorCode).toBe(42);
  }, 60000);

  it('kafkajs idempotent: true produces every message once, in order', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'idem-kafkajs', logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    for (let i = 0; i < 20; i++) {
      await producer.send({ topic: 'idem', messages: [0, 1, 2, 3, 4].map((j) => ({ partition: (i + j) % 2, value: `m-${i * 5 + j}` })) });
    }
    await producer.disconnect();
    const values = [...(await consumeAll('idem', 0)), ...(await consumeAll('idem', 1))].map((r) => r.value);
    expect(values).toHaveLength(100);
    expect(new Set(values).size).toBe(100);
  }, 90000);

  it('librdkafka (confluent-kafka) enable.idempotence=true produces every message once', async () => {
    const script = [
      'import sys',
      'from confluent_kafka import Producer',
      "p = Producer({'bootstrap.servers': sys.argv[1], 'enable.idempotence': True, 'linger.ms': 5})",
      "errors = []",
      "for i in range(200): p.produce('idem-py', value=('py-%d' % i).encode(), partition=0, on_delivery=lambda e, m: errors.append(e) if e else None)",
      'p.flush(60)',
      "print('errors', len(errors))",
    ].join('\n');
    const child = spawnChild('/usr/bin/python3', ['-c', script, cluster.bootstrap], { name: 'confluent-kafka' });
    const exit = await child.exited;
    expect(child.output()).toContain('errors 0');
    expect(exit.code).toBe(0);
    const values = (await consumeAll('idem-py')).map((r) => r.value);
    expect(values).toEqual(Array.from({ length: 200 }, (_v, i) => `py-${i}`));
  }, 90000);

  it('the project’s producer with enableIdempotence keeps order with 5 requests in flight through a leader SIGKILL', async () => {
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), enableIdempotence: true, maxInFlightRequestsPerConnection: 5, lingerMs: 1, batchSize: 2048, requestTimeoutMs: 10000 });
    const acked: number[] = [];
    const failures: string[] = [];
    const sends: Promise<void>[] = [];
    const leader = await leaderOf('idem-own');
    for (let i = 0; i < 4000; i++) {
      sends.push(producer.send('idem-own', null, Buffer.from(`o-${i}`), 0).then((m) => void acked.push(m.offset), (err: Error) => void failures.push(err.message)));
      if (i === 1500) {
        await waitUntil(() => acked.length > 500, { timeoutMs: 30000, message: 'acknowledgements before the kill' });
        await cluster.broker(leader).child.stop({ signal: 'SIGKILL' });
      }
    }
    await Promise.all(sends);
    await producer.close();
    await cluster.startBroker(leader);
    expect(failures).toEqual([]);
    const values = (await consumeAll('idem-own')).map((r) => r.value);
    expect(values).toEqual(Array.from({ length: 4000 }, (_v, i) => `o-${i}`));
  }, 180000);

  it('kafka-producer-perf-test and kafka-console-producer take enable.idempotence=true (the console one needs acks=all, as Kafka’s)', async () => {
    const perf = await runTool('kafka-producer-perf-test', ['--topic', 'idem-tools', '--num-records', '5000', '--record-size', '50', '--throughput', '-1', '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'enable.idempotence=true']);
    expect(perf.code).toBe(0);
    expect(perf.output).toMatch(/5000 records sent/);
    const refused = await runTool('kafka-console-producer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'idem-tools', '--producer-property', 'enable.idempotence=true'], { input: 'x\n' });
    expect(refused.code).toBe(1);
    expect(refused.output).toContain('Exception in thread "main" org.apache.kafka.common.config.ConfigException: Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.');
    const console = await runTool('kafka-console-producer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'idem-tools', '--request-required-acks', 'all', '--producer-property', 'enable.idempotence=true'], { input: 'c-1\nc-2\n' });
    expect(console.code).toBe(0);
    const values = (await consumeAll('idem-tools')).map((r) => r.value);
    expect(values).toHaveLength(5002);
    expect(values.slice(-2)).toEqual(['c-1', 'c-2']);
  }, 90000);

  it('answers a raw duplicate with its original offset without writing it, and refuses a gap with 45', async () => {
    const pid = await initProducerId();
    await client.ensureMetadata(['idem-raw']);
    const leader = await leaderOf('idem-raw');
    const first = batch(pid, 0, ['a', 'b', 'c']);
    const r1 = await produceTo(leader, 'idem-raw', first);
    expect(r1).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const r2 = await produceTo(leader, 'idem-raw', batch(pid, 3, ['d']));
    expect(r2).toMatchObject({ errorCode: 0, baseOffset: 3 });
    const dup = await produceTo(leader, 'idem-raw', first);
    expect(dup).toMatchObject({ errorCode: 0, baseOffset: 0 });
    const gap = await produceTo(leader, 'idem-raw', batch(pid, 9, ['x']));
    expect(gap.errorCode).toBe(45);
    // Epoch 1 then 0 again: the old epoch is fenced with INVALID_PRODUCER_EPOCH (Kafka 2.7+ for Produce).
    expect((await produceTo(leader, 'idem-raw', batch(pid, 0, ['e'], 1))).baseOffset).toBe(4);
    expect((await produceTo(leader, 'idem-raw', batch(pid, 4, ['y'], 0))).errorCode).toBe(47);
    expect((await consumeAll('idem-raw')).map((r) => r.value)).toEqual(['a', 'b', 'c', 'd', 'e']);
  }, 60000);

  it('KIP-360: after OUT_OF_ORDER_SEQUENCE_NUMBER the project’s producer bumps its epoch and goes on from sequence 0, nothing lost or doubled', async () => {
    const topic = 'idem-kip360';
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), enableIdempotence: true, requestTimeoutMs: 10000 });
    const own = (from: number, to: number): Promise<unknown> => Promise.all(Array.from({ length: to - from }, (_, i) => producer.send(topic, null, Buffer.from(`p${from + i}`), 0)));
    const epochs = async (): Promise<{ producerId: number; producerEpoch: number; lastSequence: number }[]> => {
      const r = await client.request(await leaderOf(topic), DescribeProducersApi, { topics: [{ name: topic, partitionIndexes: [0] }] });
      return r.topics[0]?.partitions[0]?.activeProducers.map((p) => ({ producerId: p.producerId, producerEpoch: p.producerEpoch, lastSequence: p.lastSequence })) ?? [];
    };
    try {
      await client.ensureMetadata([topic]);
      await own(0, 10);
      const pe = (producer as unknown as { producerIdAndEpoch: { producerId: number; producerEpoch: number } }).producerIdAndEpoch;
      expect(pe.producerEpoch).toBe(0);
      expect(await epochs()).toEqual([{ producerId: pe.producerId, producerEpoch: 0, lastSequence: 9 }]);
      // Another writer with the producer's id takes sequences 10-11: the producer's next batch (10-19) is then
      // answered OUT_OF_ORDER_SEQUENCE_NUMBER although it is the next in line, the gap Kafka's client bumps past.
      expect((await produceTo(await leaderOf(topic), topic, batch(pe.producerId, 10, ['z0', 'z1']))).errorCode).toBe(0);
      await own(10, 20);
      expect(await epochs()).toEqual([{ producerId: pe.producerId, producerEpoch: 1, lastSequence: 9 }]);
      await own(20, 30);
      expect(await epochs()).toEqual([{ producerId: pe.producerId, producerEpoch: 1, lastSequence: 19 }]);
    } finally {
      await producer.close();
    }
    const expected = [...Array.from({ length: 10 }, (_, i) => `p${i}`), 'z0', 'z1', ...Array.from({ length: 20 }, (_, i) => `p${i + 10}`)];
    expect((await consumeAll(topic)).map((r) => r.value)).toEqual(expected);
  }, 30000);

  it('after the leader is SIGKILLed, the new leader detects the old one’s duplicates (state rebuilt from replication)', async () => {
    const pid = await initProducerId();
    await client.ensureMetadata(['idem-failover']);
    const leader = await leaderOf('idem-failover');
    const sent: Buffer[] = [];
    for (let i = 0; i < 3; i++) {
      const b = batch(pid, i * 2, [`f-${i * 2}`, `f-${i * 2 + 1}`]);
      sent.push(b);
      expect((await produceTo(leader, 'idem-failover', b)).baseOffset).toBe(i * 2);
    }
    await cluster.broker(leader).child.stop({ signal: 'SIGKILL' });
    let next = -1;
    await waitUntil(
      async () => {
        next = (await cluster.partitionState('idem-failover', 0))?.leader ?? -1;
        return next >= 0 && next !== leader;
      },
      { timeoutMs: 30000, message: `a new leader after killing broker ${leader}` },
    );
    await client.refreshMetadata(['idem-failover']);
    // Retries of all three batches (acks=all: every ISR member had them).
    for (let i = 0; i < 3; i++) {
      let r: ProducePartitionResponse | undefined;
      await waitUntil(
        async () => {
          r = await produceTo(next, 'idem-failover', sent[i] as Buffer);
          return r.errorCode !== 6; // NOT_LEADER_OR_FOLLOWER until the LeaderAndIsr arrives
        },
        { timeoutMs: 30000, message: `broker ${next} leading idem-failover-0` },
      );
      expect(r).toMatchObject({ errorCode: 0, baseOffset: i * 2 });
    }
    expect((await produceTo(next, 'idem-failover', batch(pid, 6, ['f-6']))).baseOffset).toBe(6);
    await cluster.startBroker(leader);
    expect((await consumeAll('idem-failover')).map((r) => r.value)).toEqual(['f-0', 'f-1', 'f-2', 'f-3', 'f-4', 'f-5', 'f-6']);
  }, 120000);

  it('with kafkajs retrying through a leader SIGKILL mid-stream, nothing is written twice and order is kept', async () => {
    await waitUntil(async () => ((await cluster.partitionState('idem-failover', 0))?.isr.length ?? 0) === 3, { timeoutMs: 60000, message: 'full ISR of idem-failover-0' });
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'idem-failover', logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    const start = (await consumeAll('idem-failover')).length;
    let sentCount = 0;
    let killed = -1;
    const failures: string[] = [];
    for (let i = 0; i < 60; i++) {
      if (i === 20) {
        killed = await leaderOf('idem-failover');
        // Not awaited: the kill lands while batches are in flight.
        void cluster.broker(killed).child.stop({ signal: 'SIGKILL' });
      }
      try {
        await producer.send({ topic: 'idem-failover', acks: -1, timeout: 15000, messages: [0, 1, 2].map((j) => ({ partition: 0, value: `k-${i * 3 + j}` })) });
        sentCount += 3;
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
    await producer.disconnect();
    await cluster.startBroker(killed);
    expect(failures).toEqual([]);
    const values = (await consumeAll('idem-failover')).slice(start).map((r) => r.value);
    expect(values).toEqual(Array.from({ length: sentCount }, (_v, i) => `k-${i}`));
  }, 180000);

  /** Produces to broker 2 once it leads idem-restart-0 and answers (a restarted broker first says 3 or 6). */
  async function produceWhenLed(records: Buffer): Promise<ProducePartitionResponse | undefined> {
    await waitUntil(async () => (await cluster.partitionState('idem-restart', 0))?.leader === 2, { timeoutMs: 30000, message: 'broker 2 leading idem-restart-0' });
    let r: ProducePartitionResponse | undefined;
    await waitUntil(
      async () => {
        await client.refreshMetadata(['idem-restart']).catch(() => undefined);
        r = await produceTo(2, 'idem-restart', records).catch(() => undefined);
        // UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER: its LeaderAndIsr has not arrived yet.
        return r !== undefined && ![3, 6].includes(r.errorCode);
      },
      { timeoutMs: 30000, message: 'a produce answer from broker 2' },
    );
    return r;
  }

  it('producer state survives SIGKILL and restart (snapshot + log) and a clean restart', async () => {
    const pid = await initProducerId();
    await client.ensureMetadata(['idem-restart']);
    const first = batch(pid, 0, ['r-0', 'r-1']);
    // Broker 2 may have just been restarted by an earlier test.
    expect(await produceWhenLed(first)).toMatchObject({ errorCode: 0, baseOffset: 0 });
    // Enough batches to roll segments of 2000 bytes (snapshots at each roll), the last ones only in the log tail.
    const sent: Buffer[] = [first];
    for (let i = 1; i < 40; i++) {
      const b = batch(pid, i * 2, [`r-${i * 2}-${'x'.repeat(60)}`, `r-${i * 2 + 1}`]);
      sent.push(b);
      expect((await produceTo(2, 'idem-restart', b)).errorCode).toBe(0);
    }
    const dir = path.join(cluster.broker(2).logDirs[0] as string, 'idem-restart-0');
    expect(fs.readdirSync(dir).filter((f) => f.endsWith('.snapshot')).length).toBeGreaterThan(0);

    const retryAfterRestart = async (): Promise<void> => {
      expect(await produceWhenLed(sent[39] as Buffer)).toMatchObject({ errorCode: 0, baseOffset: 78 });
    };

    await cluster.broker(2).child.stop({ signal: 'SIGKILL' });
    // Its ZooKeeper session must expire first (the controller then takes the partition offline), as in Kafka.
    await waitUntil(async () => (await cluster.partitionState('idem-restart', 0))?.leader === -1, { timeoutMs: 60000, message: 'broker 2 gone from ZooKeeper' });
    await cluster.startBroker(2);
    await retryAfterRestart();
    await cluster.broker(2).child.stop({ signal: 'SIGTERM' });
    await cluster.startBroker(2);
    await retryAfterRestart();
    // A clean stop left a snapshot at the log end.
    expect(fs.readdirSync(dir)).toContain('00000000000000000080.snapshot');
    const next = await produceTo(2, 'idem-restart', batch(pid, 80, ['r-80']));
    expect(next).toMatchObject({ errorCode: 0, baseOffset: 80 });
    expect((await produceTo(2, 'idem-restart', batch(pid, 90, ['gap']))).errorCode).toBe(45);
    expect(await consumeAll('idem-restart')).toHaveLength(81);
  }, 180000);
});
