import { Kafka, logLevel } from 'kafkajs';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';
import { NetworkClient } from '../../../src/client/network-client';
import { Producer } from '../../../src/client/producer';
import { ErrorCode } from '../../../src/common/error-codes';
import { ByteReader } from '../../../src/protocol/primitives/byte-reader';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { FetchApi, FetchResponse } from '../../../src/protocol/apis/fetch';
import { ListOffsetsApi } from '../../../src/protocol/apis/list-offsets';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records/record-batch-builder';
import { CompressionType } from '../../../src/records/compression-type';

/** Kafka 2.8's newest data-path versions: Produce 8-9, Fetch 12, ListOffsets 4-6, against 3 brokers. */
describe('data-path versions at Kafka 2.8\'s maxima on 3 brokers', () => {
  let cluster: TestCluster;
  let client: NetworkClient;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'auto.leader.rebalance.enable': 'false', 'controlled.shutdown.retry.backoff.ms': '500' } });
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
  }, 120000);
  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it('Produce v8/v9 answers a keyless record on a compacted topic with its record error and Kafka\'s message', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'compacted', '--partitions', '1', '--replication-factor', '3', '--config', 'cleanup.policy=compact'])).code).toBe(0);
    const [leader] = await cluster.waitForLeaders('compacted', 1);
    const builder = new RecordBatchBuilder({ compression: CompressionType.NONE, baseOffset: 0 });
    builder.append({ key: Buffer.from('k'), value: Buffer.from('a'), timestamp: Date.now() });
    builder.append({ key: null, value: Buffer.from('b'), timestamp: Date.now() });
    const records = builder.build();
    await client.refreshMetadata(['compacted']);
    for (const version of [8, 9]) {
      const r = await client.request(leader as number, ProduceApi, { transactionalId: null, acks: -1, timeoutMs: 10000, topicData: [{ name: 'compacted', partitionData: [{ index: 0, records }] }] }, { version });
      const p = r.responses[0]?.partitionResponses[0];
      expect(p).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD.code, baseOffset: -1, logStartOffset: 0, errorMessage: 'One or more records have been rejected' });
      expect(p?.recordErrors).toEqual([{ batchIndex: 1, batchIndexErrorMessage: 'Compacted topic cannot accept message without key in topic partition compacted-0.' }]);
    }
  });

  it('kafkajs still produces and consumes (Produce 7, Fetch 11, ListOffsets 3 negotiated)', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'data-path', logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: 'js', numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'js', messages: [{ value: 'one' }, { value: 'two' }] });
    await producer.disconnect();
    const consumer = kafka.consumer({ groupId: 'data-path-js' });
    await consumer.connect();
    await consumer.subscribe({ topic: 'js', fromBeginning: true });
    const seen: string[] = [];
    await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value?.toString() ?? '') });
    await waitUntil(() => seen.length >= 2, { timeoutMs: 60000, message: 'kafkajs consumed both records' });
    await consumer.disconnect();
    expect(seen).toEqual(['one', 'two']);
  }, 90000);

  it('after a leader change: Fetch v12 with a stale last fetched epoch gets diverging_epoch, ListOffsets v4+ fences an old epoch', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'diverge', '--replica-assignment', '0:1:2'])).code).toBe(0);
    await cluster.waitForLeaders('diverge', 1);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1, lingerMs: 1, retryBackoffMs: 50 });
    for (let i = 0; i < 3; i++) await producer.send('diverge', Buffer.from(`k${i}`), Buffer.from(`epoch0-${i}`), 0);
    // Broker 0 shuts down cleanly: leadership moves to 1 with epoch 1, which writes offsets 3 and 4.
    expect((await cluster.broker(0).child.stop({ signal: 'SIGTERM', graceMs: 30000 })).code).toBe(0);
    // The epoch is final once broker 0 is out of the ISR too (the controller may write that separately, bumping it).
    await waitUntil(
      async () => {
        const s = await cluster.partitionState('diverge', 0);
        return s?.leader === 1 && !(s.isr as number[]).includes(0);
      },
      { timeoutMs: 30000, message: 'broker 1 leads diverge-0 without broker 0 in the ISR' },
    );
    const state = await cluster.partitionState('diverge', 0);
    const epoch = state?.leader_epoch as number;
    expect(epoch).toBeGreaterThanOrEqual(1);
    for (let i = 3; i < 5; i++) await producer.send('diverge', Buffer.from(`k${i}`), Buffer.from(`epoch${epoch}-${i}`), 0);
    await producer.close();
    // Broker 1 has applied that epoch (its LeaderAndIsr may trail the znode): ListOffsets with it is not fenced.
    await client.refreshMetadata(['diverge']);
    await waitUntil(
      async () => {
        const r = await client.request(1, ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'diverge', partitions: [{ partitionIndex: 0, currentLeaderEpoch: epoch, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 6 });
        return r.topics[0]?.partitions[0]?.errorCode === ErrorCode.NONE.code;
      },
      { timeoutMs: 30000, message: `broker 1 at leader epoch ${epoch}` },
    );

    // As a replica that kept epoch 0 up to offset 5 would fetch: the leader's epoch 0 ended at 3.
    const conn = await RawConnection.open(cluster.broker(1).port);
    try {
      const body = new ByteWriter();
      FetchApi.encodeRequest(12, body, {
        replicaId: -1,
        maxWaitMs: 5000,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 'diverge', partitions: [{ partition: 0, currentLeaderEpoch: epoch, fetchOffset: 5, lastFetchedEpoch: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
        rackId: '',
      });
      conn.send(requestFrame(FetchApi.key, 12, 7, body.toBuffer(), 'raw', true));
      const frame = await conn.response(7, 10000);
      expect(frame).toBeDefined();
      const r = new ByteReader(frame as Buffer);
      r.int32();
      r.skipTaggedFields(); // response header v1
      const fetched: FetchResponse = FetchApi.decodeResponse(12, r);
      const p = fetched.responses[0]?.partitionResponses[0];
      expect(p).toMatchObject({ errorCode: 0, highWatermark: 5, divergingEpoch: { epoch: 0, endOffset: 3 } });
      expect((p?.recordSet as Buffer).length).toBe(0);
    } finally {
      conn.close();
    }

    // The same partition asked with the leader epoch before the change, then with the current one.
    await client.refreshMetadata(['diverge']);
    for (const version of [4, 5, 6]) {
      const fenced = await client.request(1, ListOffsetsApi, { replicaId: -1, isolationLevel: 1, topics: [{ name: 'diverge', partitions: [{ partitionIndex: 0, currentLeaderEpoch: epoch - 1, timestamp: -1, maxNumOffsets: 1 }] }] }, { version });
      expect(fenced.topics[0]?.partitions[0]).toMatchObject({ errorCode: ErrorCode.FENCED_LEADER_EPOCH.code, offset: -1, leaderEpoch: -1 });
    }
    const latest = await client.request(1, ListOffsetsApi, { replicaId: -1, isolationLevel: 1, topics: [{ name: 'diverge', partitions: [{ partitionIndex: 0, currentLeaderEpoch: epoch, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 6 });
    expect(latest.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, offset: 5, leaderEpoch: epoch });
    const earliest = await client.request(1, ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'diverge', partitions: [{ partitionIndex: 0, currentLeaderEpoch: epoch, timestamp: -2, maxNumOffsets: 1 }] }] }, { version: 6 });
    expect(earliest.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, offset: 0, leaderEpoch: 0 });
  }, 120000);
});
