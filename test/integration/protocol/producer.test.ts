import { NO_RESPONSE } from '../../../src/broker/network/api-handler';
import { Producer } from '../../../src/client/producer';
import { ErrorCode } from '../../../src/common/error-codes';
import { ProduceApi, ProduceRequest, ProduceResponse } from '../../../src/protocol/apis/produce';
import { ApiDefinition } from '../../../src/protocol/api-definition';
import { BrokerConnection, SendOptions } from '../../../src/client/broker-connection';
import { batchesIn } from '../../../src/records';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';

/**
 * The producer's pipelining against a broker that answers Produce slowly: how many requests it keeps in
 * flight (max.in.flight.requests.per.connection), and that retried batches are neither lost nor duplicated.
 */
describe('producer in-flight requests and retries', () => {
  let server: ProtocolTestServer;
  let active = 0;
  let maxActive = 0;
  let failNext = 0;
  let delayMs = 0;

  beforeAll(async () => {
    server = await new ProtocolTestServer({
      overrides: {
        0: async (req: ProduceRequest): Promise<ProduceResponse | typeof NO_RESPONSE> => {
          // A broker with some latency per request, so that the producer's requests pile up in flight.
          await new Promise((resolve) => setTimeout(resolve, delayMs));
          return {
            throttleTimeMs: 0,
            responses: req.topicData.map((t) => ({
              name: t.name,
              partitionResponses: t.partitionData.map((p) => {
                if (failNext > 0) {
                  failNext--;
                  return { index: p.index, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER.code, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 };
                }
                const baseOffset = server.createTopic(t.name)[p.index]!.append(p.records ?? Buffer.alloc(0));
                return { index: p.index, errorCode: 0, baseOffset, logAppendTimeMs: -1, logStartOffset: 0 };
              }),
            })),
          };
        },
      },
    }).start();
  });
  afterAll(async () => server.stop());

  // In flight is the client's view: sent and not yet answered. The broker itself takes one request of a
  // connection at a time (Kafka's muted channel), so pipelining shows on the client side only.
  const originalSend = BrokerConnection.prototype.send;
  beforeAll(() => {
    BrokerConnection.prototype.send = function <Req, Res>(this: BrokerConnection, api: ApiDefinition<Req, Res>, body: Req, options?: SendOptions): Promise<Res> {
      if (api.key !== ProduceApi.key) return originalSend.call(this, api, body, options) as Promise<Res>;
      active++;
      maxActive = Math.max(maxActive, active);
      return (originalSend.call(this, api, body, options) as Promise<Res>).finally(() => active--);
    };
  });
  afterAll(() => {
    BrokerConnection.prototype.send = originalSend;
  });
  beforeEach(() => {
    active = 0;
    maxActive = 0;
    failNext = 0;
    delayMs = 5;
  });

  function stored(topic: string): string[] {
    return server.topics.get(topic)![0]!.batches.flatMap((b) => batchesIn(b.bytes).flatMap((batch) => batch.records().map((r) => r.value!.toString())));
  }

  async function produce(topic: string, n: number, maxInFlight?: number): Promise<number[]> {
    server.createTopic(topic, 1);
    const producer = new Producer({ bootstrapServers: [server.bootstrap], batchSize: 512, lingerMs: 0, retryBackoffMs: 10, ...(maxInFlight === undefined ? {} : { maxInFlightRequestsPerConnection: maxInFlight }) });
    const offsets = await Promise.all(Array.from({ length: n }, (_, i) => producer.send(topic, null, Buffer.from(`record-${i}`), 0).then((m) => m.offset)));
    await producer.close();
    return offsets;
  }

  it('keeps up to max.in.flight.requests.per.connection (5) Produce requests outstanding, never more', async () => {
    const offsets = await produce('pipelined', 3000);
    expect(maxActive).toBe(5);
    expect(new Set(offsets).size).toBe(3000);
    expect(stored('pipelined')).toEqual(Array.from({ length: 3000 }, (_, i) => `record-${i}`));
  });

  it('with max.in.flight.requests.per.connection=1 sends one request at a time and keeps order across retries', async () => {
    failNext = 3;
    const offsets = await produce('ordered', 2000, 1);
    expect(maxActive).toBe(1);
    expect([...offsets].sort((a, b) => a - b)).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(stored('ordered')).toEqual(Array.from({ length: 2000 }, (_, i) => `record-${i}`));
  });

  it('retries failed batches with several requests in flight: every record stored exactly once', async () => {
    failNext = 4;
    const offsets = await produce('retried', 3000);
    expect(new Set(offsets).size).toBe(3000);
    expect([...stored('retried')].sort()).toEqual(Array.from({ length: 3000 }, (_, i) => `record-${i}`).sort());
  });
});
