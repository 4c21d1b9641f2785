import { Producer, ProducerConfigError } from '../../../src/client/producer';

describe('Producer enable.idempotence settings (Kafka 2.8 ProducerConfig)', () => {
  const base = { bootstrapServers: ['127.0.0.1:1'], enableIdempotence: true };

  it('refuses acks other than all, retries=0 and more than 5 requests in flight, with Kafka’s messages', () => {
    expect(() => new Producer({ ...base, acks: 1 })).toThrow(new ProducerConfigError('Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.'));
    expect(() => new Producer({ ...base, retries: 0 })).toThrow('Must set retries to non-zero when using the idempotent producer.');
    expect(() => new Producer({ ...base, maxInFlightRequestsPerConnection: 6 })).toThrow('Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.');
  });

  it('defaults acks to all when idempotence is on', async () => {
    const p = new Producer(base);
    expect((p as unknown as { o: { acks: number } }).o.acks).toBe(-1);
    await p.close();
  });
});
