import * as fs from 'node:fs';
import { SYSTEM_CLOCK } from '../common/time';
import { formatMetrics } from '../client/client-metrics';
import { CompressionType } from '../records';
import { parseProperties } from '../common/config/properties';
import { newProducer } from './new-producer';
import { CliError } from './cli';
import { intOption, parseBrokerList, parseKeyValueArgs } from './tool-properties';
import { toolClientConnection } from './tool-client-connection';

export interface ProducerPerformanceOptions {
  topic: string;
  numRecords: string;
  recordSize?: string;
  payloadFile?: string;
  payloadDelimiter: string;
  throughput: string;
  producerProps: string[];
  producerConfig?: string;
  /** --print-metrics: the producer's metrics after the run, as Kafka's ToolsUtils.printMetrics. */
  printMetrics?: boolean;
  /** --transactional-id (Kafka's default performance-producer-default-transactional-id). */
  transactionalId?: string;
  /** --transaction-duration-ms: commit every this many ms; transactions only when positive (default 0). */
  transactionDurationMs?: string;
}

const CODECS: Record<string, CompressionType> = { none: CompressionType.NONE, gzip: CompressionType.GZIP, snappy: CompressionType.SNAPPY, lz4: CompressionType.LZ4, zstd: CompressionType.ZSTD };

/** Latencies and throughput the way Kafka's ProducerPerformance.Stats reports them. */
class Stats {
  private readonly latencies: Int32Array;
  private sampling: number;
  private index = 0;
  private count = 0;
  private bytes = 0;
  private maxLatency = 0;
  private totalLatency = 0;
  private windowCount = 0;
  private windowBytes = 0;
  private windowMaxLatency = 0;
  private windowTotalLatency = 0;
  private windowStart = SYSTEM_CLOCK.nowMs();
  private readonly start = SYSTEM_CLOCK.nowMs();

  constructor(numRecords: number, private readonly out: (line: string) => void) {
    this.sampling = Math.max(1, Math.floor(numRecords / Math.min(numRecords, 500000)));
    this.latencies = new Int32Array(Math.ceil(numRecords / this.sampling) + 1);
  }

  record(iteration: number, latency: number, bytes: number): void {
    this.count++;
    this.bytes += bytes;
    this.totalLatency += latency;
    this.maxLatency = Math.max(this.maxLatency, latency);
    this.windowCount++;
    this.windowBytes += bytes;
    this.windowTotalLatency += latency;
    this.windowMaxLatency = Math.max(this.windowMaxLatency, latency);
    if (iteration % this.sampling === 0 && this.index < this.latencies.length) this.latencies[this.index++] = latency;
    if (SYSTEM_CLOCK.nowMs() - this.windowStart >= 5000) this.printWindow();
  }

  private printWindow(): void {
    const elapsed = SYSTEM_CLOCK.nowMs() - this.windowStart;
    const rps = (1000 * this.windowCount) / elapsed;
    const mbps = (1000 * this.windowBytes) / elapsed / (1024 * 1024);
    this.out(`${this.windowCount} records sent, ${rps.toFixed(1)} records/sec (${mbps.toFixed(2)} MB/sec), ${(this.windowTotalLatency / Math.max(1, this.windowCount)).toFixed(1)} ms avg latency, ${this.windowMaxLatency.toFixed(1)} ms max latency.`);
    this.windowStart = SYSTEM_CLOCK.nowMs();
    this.windowCount = 0;
    this.windowBytes = 0;
    this.windowTotalLatency = 0;
    this.windowMaxLatency = 0;
  }

  printTotal(): { recordsPerSec: number; mbPerSec: number } {
    const elapsed = Math.max(1, SYSTEM_CLOCK.nowMs() - this.start);
    const rps = (1000 * this.count) / elapsed;
    const mbps = (1000 * this.bytes) / elapsed / (1024 * 1024);
    const sorted = this.latencies.slice(0, this.index).sort();
    const pct = (p: number): number => (sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0));
    this.out(
      `${this.count} records sent, ${rps.toFixed(6)} records/sec (${mbps.toFixed(2)} MB/sec), ${(this.totalLatency / Math.max(1, this.count)).toFixed(2)} ms avg latency, ${this.maxLatency.toFixed(2)} ms max latency, ${pct(0.5)} ms 50th, ${pct(0.95)} ms 95th, ${pct(0.99)} ms 99th, ${pct(0.999)} ms 99.9th.`,
    );
    return { recordsPerSec: rps, mbPerSec: mbps };
  }
}

/** Kafka's ThroughputThrottler: sleeps when the sender runs ahead of the target rate. */
class Throttler {
  private readonly start = SYSTEM_CLOCK.nowMs();
  constructor(private readonly perSec: number) {}
  async throttle(sent: number): Promise<void> {
    if (this.perSec < 0) return;
    const due = this.start + (1000 * sent) / this.perSec;
    const wait = due - SYSTEM_CLOCK.nowMs();
    if (wait > 0) await SYSTEM_CLOCK.sleep(wait);
  }
}

function payloads(o: ProducerPerformanceOptions): Buffer[] {
  if ((o.recordSize === undefined) === (o.payloadFile === undefined)) throw new CliError('Either --record-size or --payload-file must be specified but not both.');
  if (o.recordSize !== undefined) {
    const size = intOption(o.recordSize, '--record-size', 100);
    if (size < 0) throw new CliError(`Invalid --record-size ${size}`);
    const b = Buffer.alloc(size);
    for (let i = 0; i < size; i++) b[i] = 65 + Math.floor(Math.random() * 26);
    return [b];
  }
  let text: string;
  try {
    text = fs.readFileSync(o.payloadFile as string, 'utf8');
  } catch (err) {
    throw new CliError(`Cannot read --payload-file ${o.payloadFile}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const list = text.split(o.payloadDelimiter).filter((s) => s.length > 0).map((s) => Buffer.from(s));
  if (list.length === 0) throw new CliError(`File is empty: ${o.payloadFile}`);
  return list;
}

/** Kafka's ProducerPerformance on the project's producer. Returns the final figures for scripts. */
export async function runProducerPerformance(o: ProducerPerformanceOptions, out: (line: string) => void): Promise<{ recordsPerSec: number; mbPerSec: number }> {
  const numRecords = intOption(o.numRecords, '--num-records', 0);
  if (numRecords <= 0) throw new CliError(`Invalid --num-records ${o.numRecords}: must be positive`);
  const throughput = Number(o.throughput);
  if (!Number.isFinite(throughput) || throughput === 0) throw new CliError(`Invalid --throughput ${o.throughput}: records/sec, -1 for no limit`);
  const props = new Map<string, string>([...(o.producerConfig ? parseProperties(fs.readFileSync(o.producerConfig, 'utf8')) : []), ...parseKeyValueArgs(o.producerProps, '--producer-props')]);
  const servers = props.get('bootstrap.servers');
  if (servers === undefined) throw new CliError('--producer-props must include bootstrap.servers');
  // Unset, acks is the producer's default: 1, or all with enable.idempotence (Kafka 2.8's ProducerConfig).
  const acks = props.get('acks') === undefined ? undefined : props.get('acks') === 'all' ? -1 : intOption(props.get('acks'), 'acks', 1);
  const transactionDurationMs = intOption(o.transactionDurationMs, '--transaction-duration-ms', 0);
  // Kafka 2.8: transactions only with a positive duration; the id comes from --transactional-id then.
  const transactionsEnabled = transactionDurationMs > 0;
  const transactionalId = transactionsEnabled ? (o.transactionalId ?? 'performance-producer-default-transactional-id') : props.get('transactional.id');
  const codec = CODECS[props.get('compression.type') ?? 'none'];
  if (codec === undefined) throw new CliError(`Invalid compression.type ${props.get('compression.type')}`);
  const producer = newProducer({
    bootstrapServers: parseBrokerList(servers, 'bootstrap.servers'),
    clientId: props.get('client.id') ?? 'producer-performance',
    ...(acks === undefined ? {} : { acks }),
    ...(props.get('enable.idempotence') === undefined ? {} : { enableIdempotence: props.get('enable.idempotence') === 'true' }),
    ...(transactionalId === undefined ? {} : { transactionalId }),
    compression: codec,
    batchSize: intOption(props.get('batch.size'), 'batch.size', 16384),
    lingerMs: intOption(props.get('linger.ms'), 'linger.ms', 0),
    requestTimeoutMs: intOption(props.get('request.timeout.ms'), 'request.timeout.ms', 30000),
    maxInFlightRequestsPerConnection: intOption(props.get('max.in.flight.requests.per.connection'), 'max.in.flight.requests.per.connection', 5),
    maxRequestSize: intOption(props.get('max.request.size'), 'max.request.size', 1048576),
    ...toolClientConnection(props, '--producer.config / --producer-props'),
  });
  const bodies = payloads(o);
  const stats = new Stats(numRecords, out);
  const throttler = new Throttler(throughput);
  const maxPending = intOption(props.get('max.pending.records'), 'max.pending.records', 200000);
  let pending = 0;
  let wake: (() => void) | undefined;
  let failed: Error | undefined;
  await producer.partitionsFor(o.topic);
  if (transactionsEnabled) await producer.initTransactions();
  let acked = 0;
  const onAck = (err: Error | null, _topic: string, _partition: number, _offset: number, sentAt: number): void => {
    pending--;
    if (err !== null) failed = err;
    else stats.record(acked++, SYSTEM_CLOCK.nowMs() - sentAt, recordBytes);
    if (wake !== undefined && pending < maxPending / 2) {
      const w = wake;
      wake = undefined;
      w();
    }
  };
  const recordBytes = bodies[0]?.length ?? 0;
  let currentTransactionSize = 0;
  let transactionStartTime = 0;
  for (let i = 0; i < numRecords && failed === undefined; i++) {
    if (transactionsEnabled && currentTransactionSize === 0) {
      producer.beginTransaction();
      transactionStartTime = SYSTEM_CLOCK.nowMs();
    }
    const value = bodies.length === 1 ? (bodies[0] as Buffer) : (bodies[Math.floor(Math.random() * bodies.length)] as Buffer);
    pending++;
    producer.sendWithCallback(o.topic, null, value, onAck, SYSTEM_CLOCK.nowMs());
    currentTransactionSize++;
    if (transactionsEnabled && transactionDurationMs <= SYSTEM_CLOCK.nowMs() - transactionStartTime) {
      await producer.commitTransaction();
      currentTransactionSize = 0;
    }
    // Bounded memory, as buffer.memory bounds Kafka's producer: wait for acknowledgements to drain half the window.
    if (pending >= maxPending) await new Promise<void>((resolve) => (wake = resolve));
    if (throughput > 0 && i % 64 === 63) await throttler.throttle(i + 1);
    // Kafka's producer does its I/O on a Sender thread while send() runs; here the event loop is that thread,
    // so give it a turn now and then or responses wait until the pending window is full.
    else if (i % 1024 === 1023) await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (transactionsEnabled && currentTransactionSize !== 0 && failed === undefined) await producer.commitTransaction();
  await producer.flush();
  await producer.close();
  if (failed !== undefined) throw new CliError(`Error while sending: ${(failed as Error).message}`);
  const total = stats.printTotal();
  if (o.printMetrics) for (const line of formatMetrics(producer.metrics.snapshot())) out(line);
  return total;
}
