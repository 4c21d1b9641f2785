import { BrokerConnection } from '../../../src/client/broker-connection';
import { NetworkClient } from '../../../src/client/network-client';
import { CLOSE_CONNECTION } from '../../../src/broker/network/api-handler';
import { KafkaError } from '../../../src/common/kafka-error';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { HeartbeatApi } from '../../../src/protocol/apis/heartbeat';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';

// The record batch of a kafkajs Produce v7 captured on loopback (as in test/unit/protocol/golden.test.ts): one
// record k=v, CRC-32C 913ca1a6.
const BATCH = Buffer.from(
  '0000000000000000' + '0000003a' + '00000000' + '02' + '913ca1a6' + '0000' + '00000000' + '0000018bcfe56800' + '0000018bcfe56800' + 'ffffffffffffffff' + '0000' + '00000000' + '00000001' + '10000000026b027600',
  'hex',
);

describe('internal client (src/client) against the protocol test server', () => {
  let server: ProtocolTestServer;
  const seenCorrelationIds: number[] = [];
  let heartbeatGate: Promise<void> = Promise.resolve();
  let closeNextHeartbeats = 0;

  beforeAll(async () => {
    server = await new ProtocolTestServer({
      overrides: {
        12: async (_req, ctx) => {
          seenCorrelationIds.push(ctx.header.correlationId);
          if (closeNextHeartbeats > 0) {
            closeNextHeartbeats--;
            return CLOSE_CONNECTION;
          }
          await heartbeatGate;
          return { throttleTimeMs: 0, errorCode: 0 };
        },
      },
    }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('bootstraps metadata, produces a batch as bytes and fetches it back as bytes', async () => {
    server.createTopic('ic', 1);
    const client = new NetworkClient({ bootstrapServers: [server.bootstrap], clientId: 'replica-fetcher' });
    try {
      await client.ensureMetadata(['ic']);
      expect(client.metadata.controllerId).toBe(0);
      expect([...client.metadata.brokers.values()]).toEqual([{ nodeId: 0, host: '127.0.0.1', port: server.port, rack: null }]);
      const leader = client.metadata.leaderFor('ic', 0) as number;
      expect(leader).toBe(0);
      const produce = { transactionalId: null, acks: -1, timeoutMs: 1000, topicData: [{ name: 'ic', partitionData: [{ index: 0, records: BATCH }] }] };
      const r1 = await client.request(leader, ProduceApi, produce);
      const r2 = await client.request(leader, ProduceApi, produce);
      expect(r1.responses[0]?.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
      expect(r2.responses[0]?.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
      const conn = await client.connectionTo(leader);
      await conn.send(ProduceApi, { ...produce, acks: 0 }, { expectResponse: false });

      const fetch = await client.request(leader, FetchApi, {
        replicaId: 1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 'ic', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
        rackId: '',
      });
      const p = fetch.responses[0]?.partitionResponses[0];
      expect(p?.highWatermark).toBe(3);
      const data = p?.recordSet as Buffer;
      expect(Buffer.isBuffer(data)).toBe(true);
      expect(data.length).toBe(2 * BATCH.length);
      expect(data.readBigInt64BE(0)).toBe(1n);
      // Both stored batches come back byte for byte, only baseOffset (bytes 0-7) stamped by the broker.
      expect(data.subarray(8, BATCH.length)).toEqual(BATCH.subarray(8));
      expect(data.readBigInt64BE(BATCH.length)).toBe(2n);
      expect(data.subarray(BATCH.length + 8)).toEqual(BATCH.subarray(8));
    } finally {
      client.close();
    }
  });

  it('numbers requests from 0, caps requests in flight and releases them in order', async () => {
    let release: () => void = () => undefined;
    heartbeatGate = new Promise((r) => (release = r));
    seenCorrelationIds.length = 0;
    const conn = new BrokerConnection({ host: '127.0.0.1', port: server.port, maxInFlightRequests: 2 });
    await conn.negotiate(); // correlation id 0
    const hb = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null };
    const pending = Array.from({ length: 5 }, () => conn.send(HeartbeatApi, hb));
    const deadline = Date.now() + 5000;
    while ((seenCorrelationIds.length < 1 || conn.inFlightCount < 2) && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(conn.inFlightCount).toBe(2);
    // Two are on the wire, but the broker takes one request of a connection at a time (Kafka's muted channel).
    expect(seenCorrelationIds).toEqual([1]);
    release();
    const results = await Promise.all(pending);
    expect(results.every((r) => r.errorCode === 0)).toBe(true);
    expect(seenCorrelationIds).toEqual([1, 2, 3, 4, 5]);
    conn.close();
  });

  it('times a request out, closes that connection, and the next request uses a new one', async () => {
    heartbeatGate = new Promise(() => undefined); // never answers
    const client = new NetworkClient({ bootstrapServers: [server.bootstrap], requestTimeoutMs: 300, retries: 0 });
    try {
      await client.refreshMetadata();
      const hb = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null };
      const started = Date.now();
      await expect(client.request(0, HeartbeatApi, hb)).rejects.toMatchObject({ errorName: 'REQUEST_TIMED_OUT' });
      expect(Date.now() - started).toBeLessThan(3000);
      heartbeatGate = Promise.resolve();
      expect((await client.request(0, HeartbeatApi, hb)).errorCode).toBe(0);
    } finally {
      client.close();
    }
  });

  it('retries with backoff after the broker drops the connection', async () => {
    heartbeatGate = Promise.resolve();
    closeNextHeartbeats = 2;
    const client = new NetworkClient({ bootstrapServers: [server.bootstrap], retries: 3, retryBackoffMs: 20 });
    try {
      await client.refreshMetadata();
      const r = await client.request('any', HeartbeatApi, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null });
      expect(r.errorCode).toBe(0);
      closeNextHeartbeats = 5;
      await expect(client.request('controller', HeartbeatApi, { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null }, { retries: 1 })).rejects.toBeInstanceOf(KafkaError);
    } finally {
      closeNextHeartbeats = 0;
      client.close();
    }
  });

  it('negotiates versions with ApiVersions and fails fast on a dead bootstrap server', async () => {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: server.port });
    await conn.negotiate();
    expect(conn.versionFor(FetchApi)).toBe(12);
    conn.close();
    const dead = new NetworkClient({ bootstrapServers: ['127.0.0.1:1'], retries: 1, retryBackoffMs: 10 });
    await expect(dead.refreshMetadata()).rejects.toMatchObject({ errorName: 'NETWORK_EXCEPTION' });
    dead.close();
  });
});
