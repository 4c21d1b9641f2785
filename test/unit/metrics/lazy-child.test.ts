import { BrokerTopicStats } from '../../../src/metrics/broker-topic-stats';
import { lazyChild } from '../../../src/metrics/lazy-child';
import { RequestMetrics } from '../../../src/metrics/request-metrics';

describe('lazyChild', () => {
  it('creates a child on first use only and keeps one per key', () => {
    const cache = new Map<string, { n: number }>();
    let created = 0;
    const create = (n: number): { n: number } => ({ n: n + created++ });
    const a = lazyChild(cache, 'a', create, 10);
    expect(lazyChild(cache, 'a', create, 99)).toBe(a);
    const b = lazyChild(cache, 'b', create, 20);
    expect(b).not.toBe(a);
    expect([created, a.n, b.n]).toEqual([2, 10, 21]);
  });

  it('backs the per-topic stats, which forget drops', () => {
    const stats = new BrokerTopicStats();
    stats.recordAppend('t', 100, 3);
    stats.recordAppend('t', 50, 2);
    expect(stats.topicStats('t')).toMatchObject({ bytesIn: 150, messagesIn: 5, totalProduceRequests: 2 });
    stats.forget('t');
    expect(stats.topicStats('t').bytesIn).toBe(0);
    expect(stats.allTopics.bytesIn).toBe(150);
  });

  it('backs the per-API request metrics, listed in API key order', () => {
    const metrics = new RequestMetrics();
    const fetch = metrics.forApi(1, 'Fetch');
    metrics.forApi(0, 'Produce');
    expect(metrics.forApi(1, 'Fetch')).toBe(fetch);
    expect(metrics.all().map((m) => m.request)).toEqual(['Produce', 'Fetch']);
  });
});
