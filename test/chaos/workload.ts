import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, Partitioners } from 'kafkajs';
import type { Consumer, Producer } from 'kafkajs';
import { errorName } from '../../src/common/error-codes';
import { KafkaError } from '../../src/common/kafka-error';
import { Producer as ProjectProducer } from '../../src/client/producer';
import type { Ack, LoggedRecord, SendError } from './history-checker';

// kafkajs' table of Kafka's error codes, with its own message for each: its log of a failed produce response
// names only the message. The names printed are Kafka 2.8's (kafkajs still says NOT_LEADER_FOR_PARTITION for 6).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { errorCodes } = require('kafkajs/src/protocol/error') as { errorCodes: { code: number; message: string }[] };
const ERROR_BY_MESSAGE = new Map(errorCodes.map((e) => [e.message, kafkaError(e.code)]));

function kafkaError(code: number): string {
  return `${errorName(code)} (${code})`;
}

/** A produce response's error code, as the producer saw it on one attempt (retried or not). */
export interface ResponseError {
  at: number;
  /** Kafka's name and code, e.g. NOT_ENOUGH_REPLICAS (19). */
  error: string;
}

export interface WorkloadOptions {
  bootstrap: string[];
  topic: string;
  partitions: number;
  /** Writes started per partition per second. */
  ratePerPartition?: number;
  /** Sends outstanding per partition, and the producer's max.in.flight: 1, or 5 with idempotence. */
  maxInFlight?: 1 | 5;
  idempotent?: boolean;
  /** A consumer group reading throughout (default true). */
  consume?: boolean;
}

export interface WorkloadRecord {
  startedAt: number;
  endedAt: number;
  sent: Map<string, number>;
  sentAt: Map<string, number>;
  acks: Ack[];
  errors: SendError[];
  /** Every produce response error, retries included (a send that then succeeded has some too). */
  responseErrors: ResponseError[];
  reads: LoggedRecord[];
  committed: Map<number, number>;
  groupId: string;
}

/**
 * The chaos workload: a producer (acks=all, retries; kafkajs with max.in.flight 1, or with idempotence the
 * project's own producer with max.in.flight 5, because kafkajs 2.2.4's idempotent producer hands the sequence
 * numbers of a failed request back and reuses them, see docs/reliability.md, run F) writing
 * unique values `<run>-p<partition>-<seq>` to every partition at a steady rate, recording each acknowledgement
 * and each error with its time; and a consumer group reading the topic throughout. It runs in the test
 * process, in the root namespace, which is the mesh's client host.
 */
export class Workload {
  private readonly run = randomBytes(3).toString('hex');
  private readonly kafka: Kafka;
  private producer: Producer | undefined;
  /** The idempotent runs' producer (enable.idempotence=true, Kafka's sequence and epoch handling, KIP-360). */
  private idempotentProducer: ProjectProducer | undefined;
  private consumer: Consumer | undefined;
  private producing = false;
  private loops: Promise<void>[] = [];
  private readonly outstanding = new Set<Promise<void>>();
  private readonly record: WorkloadRecord;

  constructor(private readonly options: WorkloadOptions) {
    this.kafka = new Kafka({
      clientId: 'chaos-workload',
      brokers: options.bootstrap,
      // Nothing is printed: the error level only lets kafkajs' log of each failed produce response through.
      logLevel: logLevel.ERROR,
      logCreator: () => (entry) => this.noteLogEntry(entry.log),
      connectionTimeout: 3000,
      requestTimeout: 10000,
      retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 2000 },
    });
    this.record = { startedAt: 0, endedAt: 0, sent: new Map(), sentAt: new Map(), acks: [], errors: [], responseErrors: [], reads: [], committed: new Map(), groupId: `chaos-group-${this.run}` };
  }

  async start(): Promise<void> {
    const inFlight = this.options.maxInFlight ?? 1;
    if (this.options.idempotent === true) {
      this.idempotentProducer = new ProjectProducer({
        bootstrapServers: this.options.bootstrap,
        clientId: 'chaos-workload',
        acks: -1,
        enableIdempotence: true,
        maxInFlightRequestsPerConnection: inFlight,
        lingerMs: 0,
        requestTimeoutMs: 10000,
        // As kafkajs' 20 retries of up to 2 s: a write is given up after about a minute.
        deliveryTimeoutMs: 60000,
        retryBackoffMs: 200,
      });
    } else {
      this.producer = this.kafka.producer({
        idempotent: false,
        maxInFlightRequests: inFlight,
        createPartitioner: Partitioners.DefaultPartitioner,
        retry: { retries: 5, initialRetryTime: 200, maxRetryTime: 2000 },
      });
      await this.producer.connect();
    }
    if (this.options.consume ?? true) {
      const consumer = this.kafka.consumer({ groupId: this.record.groupId, sessionTimeout: 10000, heartbeatInterval: 1000, retry: { retries: 1000, initialRetryTime: 200, maxRetryTime: 2000 } });
      this.consumer = consumer;
      await consumer.connect();
      await consumer.subscribe({ topic: this.options.topic, fromBeginning: true });
      void consumer.run({
        autoCommitInterval: 2000,
        eachMessage: async ({ partition, message }) => {
          this.record.reads.push({ partition, offset: Number(message.offset), value: message.value?.toString('utf8') ?? '' });
        },
      }).catch(() => undefined);
    }
    this.record.startedAt = Date.now();
    this.producing = true;
    this.loops = Array.from({ length: this.options.partitions }, (_, p) => this.produceLoop(p, inFlight));
  }

  /** Acknowledged writes so far (for waiting on progress). */
  ackCount(partition?: number): number {
    return partition === undefined ? this.record.acks.length : this.record.acks.filter((a) => a.partition === partition).length;
  }

  acksFor(partition: number): Ack[] {
    return this.record.acks.filter((a) => a.partition === partition);
  }

  errorsFor(partition: number): SendError[] {
    return this.record.errors.filter((e) => e.partition === partition);
  }

  errorCount(): number {
    return this.record.errors.length;
  }

  /** The produce response errors seen since `since` (ms), retries included. */
  responseErrorsSince(since: number): ResponseError[] {
    return this.record.responseErrors.filter((e) => e.at >= since);
  }

  lastAckAt(partition: number): number {
    for (let i = this.record.acks.length - 1; i >= 0; i--) if (this.record.acks[i]?.partition === partition) return this.record.acks[i]?.at ?? 0;
    return 0;
  }

  /** Stops producing (waits up to `drainMs` for outstanding sends), lets the group catch up, and returns the record. */
  async stop(options: { drainMs?: number } = {}): Promise<WorkloadRecord> {
    this.producing = false;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.loops), new Promise((r) => (timer = setTimeout(r, options.drainMs ?? 30000)))]);
    clearTimeout(timer);
    this.record.endedAt = Date.now();
    await this.producer?.disconnect().catch(() => undefined);
    await this.idempotentProducer?.close().catch(() => undefined);
    return this.record;
  }

  /** After a failed run: stop everything without waiting for outstanding sends. */
  async abort(): Promise<void> {
    this.producing = false;
    await this.consumer?.disconnect().catch(() => undefined);
    await this.producer?.disconnect().catch(() => undefined);
    // No flush after a failed run: closing its connections fails what is outstanding at once.
    this.idempotentProducer?.client.close();
  }

  /** Waits until the group has read up to `ends` (partition -> high watermark) or `timeoutMs`, then leaves it. */
  async finishConsuming(ends: Map<number, number>, timeoutMs: number): Promise<void> {
    const consumer = this.consumer;
    if (!consumer) return;
    const deadline = Date.now() + timeoutMs;
    const caughtUp = (): boolean => [...ends].every(([p, end]) => end === 0 || this.record.reads.some((r) => r.partition === p && r.offset === end - 1));
    while (!caughtUp() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    await consumer.disconnect().catch(() => undefined);
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      const [offsets] = await admin.fetchOffsets({ groupId: this.record.groupId, topics: [this.options.topic] });
      for (const o of offsets?.partitions ?? []) if (Number(o.offset) >= 0) this.record.committed.set(o.partition, Number(o.offset));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  private async produceLoop(partition: number, inFlight: number): Promise<void> {
    const intervalMs = 1000 / (this.options.ratePerPartition ?? 20);
    let seq = 0;
    let nextAt = Date.now();
    const mine = new Set<Promise<void>>();
    while (this.producing) {
      if (mine.size >= inFlight) {
        await Promise.race(mine);
        continue;
      }
      const wait = nextAt - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (!this.producing) break;
      nextAt = Math.max(nextAt + intervalMs, Date.now() - 1000);
      const value = `${this.run}-p${partition}-${seq++}`;
      this.record.sent.set(value, partition);
      this.record.sentAt.set(value, Date.now());
      const send = this.sendOne(partition, value);
      const tracked = send.finally(() => {
        mine.delete(tracked);
        this.outstanding.delete(tracked);
      });
      mine.add(tracked);
      this.outstanding.add(tracked);
    }
    await Promise.all(mine);
  }

  private async sendOne(partition: number, value: string): Promise<void> {
    try {
      let offset: number;
      if (this.idempotentProducer !== undefined) {
        offset = (await this.idempotentProducer.send(this.options.topic, null, Buffer.from(value), partition)).offset;
      } else {
        const [meta] = await (this.producer as Producer).send({ topic: this.options.topic, acks: -1, timeout: 10000, messages: [{ partition, value }] });
        offset = Number(meta?.baseOffset ?? meta?.offset ?? -1);
      }
      this.record.acks.push({ partition, offset, value, at: Date.now() });
    } catch (err) {
      this.record.errors.push({ partition, value, at: Date.now(), message: (err as Error).message, error: rootError(err) });
    }
  }

  /** kafkajs logs each produce response with an error as `Response Produce(...)` with the error's message. */
  private noteLogEntry(log: { message: string; error?: unknown }): void {
    if (!log.message.startsWith('Response Produce') || typeof log.error !== 'string') return;
    this.record.responseErrors.push({ at: Date.now(), error: ERROR_BY_MESSAGE.get(log.error) ?? log.error });
  }
}

/** Kafka's error name and code behind a failed send (kafkajs wraps it in its retry errors), else the error's name. */
function rootError(err: unknown): string {
  if (err instanceof KafkaError) return kafkaError(err.code);
  for (let e = err as { name?: string; type?: string; code?: number; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (typeof e.type === 'string' && typeof e.code === 'number') return kafkaError(e.code);
    if (e.cause === undefined) return e.name ?? 'Error';
  }
  return 'Error';
}

/** "NOT_ENOUGH_REPLICAS (19) x12, REQUEST_TIMED_OUT (7) x1", most frequent first; "none" for none. */
export function countErrors(errors: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const e of errors) counts.set(e, (counts.get(e) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1]);
  return sorted.length ? sorted.map(([e, n]) => `${e} x${n}`).join(', ') : 'none';
}
