import { performance } from 'node:perf_hooks';
import { NetworkClient } from '../src/client/network-client';
import { PartitionConsumer } from '../src/client/partition-consumer';
import { Producer } from '../src/client/producer';

/**
 * End-to-end latency as Kafka's EndToEndLatency measures it, but at a fixed rate: a producer (acks=1, no linger)
 * sends `rate` records/s stamped with the send time, a consumer long-polls every partition, and each record's
 * latency is the time from send to receipt. Returns p50/p99/p99.9 in milliseconds.
 */
export async function e2eLatency(bootstrap: string, topic: string, rate: number, seconds: number): Promise<Record<string, number>> {
  const servers = bootstrap.split(',');
  const producer = new Producer({ bootstrapServers: servers, acks: 1, lingerMs: 0 });
  const client = new NetworkClient({ bootstrapServers: servers });
  const consumer = new PartitionConsumer(client, { maxWaitMs: 50 });
  const partitions = await producer.partitionsFor(topic);
  await consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })), 'latest');
  const latencies: number[] = [];
  const total = rate * seconds;
  let done = false;
  const reader = (async () => {
    while (!done || latencies.length < total) {
      const records = await consumer.poll();
      const now = performance.now();
      for (const r of records) latencies.push(now - Number(r.value?.toString('latin1', 0, 20) ?? now));
      if (done && records.length === 0) break;
    }
  })();
  const start = performance.now();
  const padding = 'x'.repeat(80);
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    sends.push(producer.send(topic, null, Buffer.from(`${performance.now().toFixed(3).padStart(20, '0')}${padding}`, 'latin1')));
  }
  await Promise.all(sends);
  done = true;
  await reader;
  await producer.close();
  client.close();
  latencies.sort((a, b) => a - b);
  const pct = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
  return { records: latencies.length, p50_ms: pct(0.5), p99_ms: pct(0.99), p999_ms: pct(0.999) };
}
