import { performance } from 'node:perf_hooks';
import { NetworkClient } from '../src/client/network-client';
import { PartitionConsumer } from '../src/client/partition-consumer';
import { Producer } from '../src/client/producer';

const RECORD_SIZE = 100;

/**
 * End-to-end latency as Kafka's EndToEndLatency measures it, but at a fixed rate: a producer (acks=1, no linger)
 * sends `rate` records/s of 100 bytes stamped with the send time, a consumer long-polls every partition, and each
 * record's latency is the time from its send to its receipt. Returns p50/p99/p99.9 in milliseconds.
 *
 * Producer and consumer share this process's one event loop, so any pause of the harness delays both the
 * records' produce responses and their fetches. Hence nothing here is allocated per record beyond the record
 * itself: a promise per send kept until the end (a million of them) and a growing array of latencies made the
 * old generation grow through the run, and its collections paused the loop for tens of milliseconds.
 */
export async function e2eLatency(bootstrap: string, topic: string, rate: number, seconds: number): Promise<Record<string, number>> {
  const servers = bootstrap.split(',');
  const producer = new Producer({ bootstrapServers: servers, acks: 1, lingerMs: 0 });
  const client = new NetworkClient({ bootstrapServers: servers });
  const consumer = new PartitionConsumer(client, { maxWaitMs: 50 });
  const partitions = await producer.partitionsFor(topic);
  await consumer.assign(Array.from({ length: partitions }, (_, partition) => ({ topic, partition })), 'latest');
  const total = rate * seconds;
  const latencies = new Float64Array(total);
  let received = 0;
  let done = false;
  const reader = (async () => {
    while (!done || received < total) {
      // Batches rather than poll()'s records: the same decoding, without a copy of every record to label it.
      const batches = await consumer.pollBatches();
      const first = received;
      for (const { fromOffset, batch } of batches) {
        for (const r of batch.records()) if (r.offset >= fromOffset && r.value !== null && received < total) latencies[received++] = r.value.readDoubleBE(0);
      }
      const now = performance.now();
      for (let i = first; i < received; i++) latencies[i] = now - (latencies[i] as number);
      if (done && batches.length === 0) break;
    }
  })();
  let acked = 0;
  let sendError: Error | null = null;
  let allAcked: () => void = () => undefined;
  const acks = new Promise<void>((resolve) => (allAcked = resolve));
  const onAck = (err: Error | null): void => {
    sendError ??= err;
    if (++acked === total) allAcked();
  };
  const start = performance.now();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const value = Buffer.allocUnsafe(RECORD_SIZE).fill(120, 8);
    value.writeDoubleBE(performance.now(), 0);
    producer.sendWithCallback(topic, null, value, onAck);
  }
  await acks;
  done = true;
  await reader;
  await producer.close();
  client.close();
  if (sendError !== null) throw sendError;
  const sorted = latencies.subarray(0, received).sort();
  const pct = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  return { records: received, p50_ms: pct(0.5), p99_ms: pct(0.99), p999_ms: pct(0.999) };
}
