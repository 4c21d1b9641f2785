import { ErrorCode, isRetriable } from '../common/error-codes';
import { ClientSecurity } from '../security/client-security';
import { ClientSasl } from './sasl-client-authenticator';
import { tpString, tpKey } from '../common/topic-partition';
import { Clock, TimerHandle } from '../common/time';
import { SerialQueue } from '../common/serial-queue';
import { KafkaError } from '../common/kafka-error';
import { ProduceApi, ProduceResponse } from '../protocol/apis/produce';
import { CompressionType, RecordBatchBuilder, RecordHeader } from '../records';
import type { RecordBatchBuilderOptions } from '../records/record-batch-builder';
import { InitProducerIdApi } from '../protocol/apis/init-producer-id';
import { backoffMs } from './exponential-backoff';
import { ClientMetrics } from './client-metrics';
import { DefaultPartitioner } from './default-partitioner';
import { NetworkClient } from './network-client';
import { TransactionalOffset, TransactionManager } from './transaction-manager';
import { ProducerIdAndEpoch, SequenceBookkeeper } from './sequence-bookkeeper';
import { getLogger } from '../common/logging/logging';

export interface ProducerOptions {
  bootstrapServers: readonly string[];
  clientId?: string;
  /** security.protocol and its TLS material (default PLAINTEXT). */
  security?: ClientSecurity;
  /** SASL mechanism and credentials, for SASL_PLAINTEXT / SASL_SSL. */
  sasl?: ClientSasl;
  /** acks: 0, 1 or -1 (all). */
  acks?: number;
  compression?: CompressionType;
  /** batch.size in bytes per partition (default 16384). */
  batchSize?: number;
  /** linger.ms (default 0). */
  lingerMs?: number;
  /** request.timeout.ms (default 30000). */
  requestTimeoutMs?: number;
  /** retries on retriable errors (default 2147483647, bounded by deliveryTimeoutMs). */
  retries?: number;
  /** delivery.timeout.ms (default 120000): give up on a record after this long. */
  deliveryTimeoutMs?: number;
  /** retry.backoff.ms (default 100). */
  retryBackoffMs?: number;
  /** max.in.flight.requests.per.connection (default 5); 1 keeps records in order across retries. */
  maxInFlightRequestsPerConnection?: number;
  /** max.request.size (default 1048576): a Produce request takes batches up to this size (at least one). */
  maxRequestSize?: number;
  /**
   * enable.idempotence (default false): a producer id from InitProducerId, a sequence per partition, retries that
   * neither duplicate nor reorder. Kafka's ProducerConfig rules: acks must be all (the default then), retries
   * non-zero, max.in.flight.requests.per.connection at most 5.
   */
  enableIdempotence?: boolean;
  /**
   * transactional.id: records are sent inside transactions (initTransactions, beginTransaction, send,
   * sendOffsetsToTransaction, commitTransaction / abortTransaction). Implies enable.idempotence.
   */
  transactionalId?: string;
  /** transaction.timeout.ms (default 60000): the coordinator aborts a transaction left open longer. */
  transactionTimeoutMs?: number;
  /** max.block.ms (default 60000): how long the transactional calls wait for a coordinator. */
  maxBlockMs?: number;
  clock?: Clock;
}

/** Kafka's ConfigException: a producer setting that cannot work. */
export class ProducerConfigError extends Error {
  override readonly name = 'ConfigException';
}

/** Kafka's TransactionAbortedException: the record's batch was dropped by abortTransaction before it was sent. */
export class TransactionAbortedError extends Error {
  override readonly name = 'TransactionAbortedException';
}

export interface RecordMetadata {
  topic: string;
  partition: number;
  /** -1 with acks=0. */
  offset: number;
}

/**
 * Called once per record with its outcome. `cookie` is the number given to send, so a caller can attach
 * per-record data (a send time, an index) without allocating a closure per record, as the perf tool does.
 */
export type SendCallback = (error: Error | null, topic: string, partition: number, offset: number, cookie: number) => void;

interface Batch {
  topic: string;
  partition: number;
  /** `topic-partition`, the bookkeeper's key. */
  tp: string;
  /** The record count, fixed when the batch is first sent. */
  recordCount: number;
  /** Its sequence was rewritten after it was first sent (an epoch bump, or a failed batch ahead of it). */
  sequenceReset?: boolean;
  builder: RecordBatchBuilder;
  /** The builder's options: the producer id, epoch and sequence are set on them when the batch is first sent. */
  header: RecordBatchBuilderOptions;
  callbacks: (SendCallback | undefined)[];
  cookies: number[];
  createdMs: number;
}


/**
 * The project's producer (the shape of Kafka's KafkaProducer, RecordAccumulator and Sender): records are
 * partitioned (murmur2 of the key, as Java), appended to one open batch per partition, and a batch is sent when
 * it reaches batch.size or has waited linger.ms. Ready batches go as bytes in Produce requests, one batch per
 * partition per request, with up to max.in.flight.requests.per.connection requests outstanding per leader. While
 * a leader has that many, ready batches for it keep filling, which is how Kafka batches under load even with
 * linger.ms=0. As in Kafka without idempotence, a retried batch may land behind a later one of its partition
 * unless max.in.flight.requests.per.connection=1; with enable.idempotence each batch carries the producer id and
 * a per-partition sequence, given when it is first sent, so a retry is answered as a duplicate and batches that
 * were refused behind a failed one go again after it, in sequence order.
 */
export class Producer {
  readonly client: NetworkClient;
  private readonly partitioner = new DefaultPartitioner();
  private readonly open = new Map<string, Batch>();
  private readonly tpKeys = new Map<string, string[]>();
  private readonly queued = new Map<string, Batch[]>();
  /** Produce requests outstanding per leader, absent at zero (-1: batches whose leader is unknown, failed at once). */
  private readonly inFlightRequests = new Map<number, number>();
  /** Partitions with a batch waiting out retry.backoff.ms: nothing more of theirs is sent meanwhile. */
  private readonly retrying = new Map<string, number>();
  private readonly o: Required<Omit<ProducerOptions, 'bootstrapServers' | 'clientId' | 'clock' | 'security' | 'sasl' | 'transactionalId' | 'transactionTimeoutMs' | 'maxBlockMs'>>;
  /** With transactional.id: the transaction's state and coordinator (undefined for other producers). */
  private readonly txn: TransactionManager | undefined;
  /** Partitions whose AddPartitionsToTxn is on its way: their batches wait for it. */
  private addingPartitions: Promise<void> | undefined;
  /** Idempotence: the producer id and epoch (InitProducerId), and per partition the sequences and batches in flight. */
  private readonly sequences: SequenceBookkeeper<Batch>;
  private initializing: Promise<void> | undefined;
  private readonly logger = getLogger('org.apache.kafka.clients.producer.internals.TransactionManager');
  private readonly clock: Clock;
  private lingerTimer: TimerHandle | undefined;
  private lingerImmediate: NodeJS.Immediate | undefined;
  /** How big each partition's latest batch has grown, to size the buffer of its next one (see append). */
  private readonly lastBatchBytes = new Map<string, number>();
  private idleWaiters: (() => void)[] = [];
  private closed = false;
  /** Records waiting for their topic's metadata are appended in the order they were sent. */
  private readonly metadataWaits = new SerialQueue();
  private flushing = 0;
  private waitingForMetadata = 0;
  /** Kafka's producer-metrics that the tools print (--print-metrics). */
  readonly metrics: ClientMetrics;
  private readonly sensors: {
    throttle: (ms: number) => void;
    latency: (ms: number) => void;
    request: (n: number) => void;
    recordSend: (n: number) => void;
    recordError: (n: number) => void;
    batchSize: (bytes: number) => void;
  };

  constructor(options: ProducerOptions) {
    this.client = new NetworkClient({
      bootstrapServers: options.bootstrapServers,
      clientId: options.clientId ?? 'producer-1',
      requestTimeoutMs: options.requestTimeoutMs ?? 30000,
      allowAutoTopicCreation: true,
      maxInFlightRequestsPerConnection: Math.max(1, options.maxInFlightRequestsPerConnection ?? 5),
      ...(options.security === undefined ? {} : { security: options.security }),
      ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    this.clock = this.client.clock;
    this.metrics = new ClientMetrics(options.clientId ?? 'producer-1', this.clock);
    const group = 'producer-metrics';
    this.sensors = {
      throttle: this.metrics.sensor(group, 'produce-throttle-time', ['avg', 'max']),
      latency: this.metrics.sensor(group, 'request-latency', ['avg', 'max']),
      request: this.metrics.sensor(group, 'request', ['total', 'rate']),
      recordSend: this.metrics.sensor(group, 'record-send', ['total', 'rate']),
      recordError: this.metrics.sensor(group, 'record-error', ['total', 'rate']),
      batchSize: this.metrics.sensor(group, 'batch-size', ['avg', 'max']),
    };
    const transactional = options.transactionalId !== undefined;
    // Kafka 2.8's ProducerConfig: a transactional.id turns idempotence on, and cannot go with it switched off.
    if (transactional && options.enableIdempotence === false) throw new ProducerConfigError('Cannot set a transactional.id without also enabling idempotence.');
    const idempotent = options.enableIdempotence ?? transactional;
    this.o = {
      // Kafka 2.8: acks defaults to all when idempotence is on.
      acks: options.acks ?? (idempotent ? -1 : 1),
      enableIdempotence: idempotent,
      compression: options.compression ?? CompressionType.NONE,
      batchSize: options.batchSize ?? 16384,
      lingerMs: options.lingerMs ?? 0,
      requestTimeoutMs: options.requestTimeoutMs ?? 30000,
      retries: options.retries ?? 2147483647,
      deliveryTimeoutMs: options.deliveryTimeoutMs ?? 120000,
      retryBackoffMs: options.retryBackoffMs ?? 100,
      maxInFlightRequestsPerConnection: Math.max(1, options.maxInFlightRequestsPerConnection ?? 5),
      maxRequestSize: options.maxRequestSize ?? 1048576,
    };
    if (![0, 1, -1].includes(this.o.acks)) throw new KafkaError('INVALID_REQUIRED_ACKS', `Invalid value ${this.o.acks} for configuration acks`);
    if (idempotent) {
      // ProducerConfig.maybeOverrideEnableIdempotence's checks and messages.
      if (this.o.maxInFlightRequestsPerConnection > 5) throw new ProducerConfigError('Must set max.in.flight.requests.per.connection to at most 5 to use the idempotent producer.');
      if (this.o.retries === 0) throw new ProducerConfigError('Must set retries to non-zero when using the idempotent producer.');
      if (this.o.acks !== -1) throw new ProducerConfigError('Must set acks to all in order to use the idempotent producer. Otherwise we cannot guarantee idempotence.');
    }
    this.sequences = new SequenceBookkeeper(transactional);
    this.txn =
      options.transactionalId === undefined
        ? undefined
        : new TransactionManager(options.transactionalId, options.transactionTimeoutMs ?? 60000, this.client, this.clock, this.o.retryBackoffMs, options.maxBlockMs ?? 60000);
  }

  /** The transaction's state (Kafka's TransactionManager.State), undefined without transactional.id. */
  get transactionState(): string | undefined {
    return this.txn?.state;
  }

  private transactionManager(): TransactionManager {
    if (this.txn === undefined) throw new Error('Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property');
    return this.txn;
  }

  /**
   * initTransactions: the producer id and a new epoch for the transactional id; an older producer with the same
   * id is fenced and its open transaction aborted by the coordinator. Sequences start again at 0.
   */
  async initTransactions(): Promise<void> {
    const pe = await this.transactionManager().initTransactions();
    this.sequences.setProducerIdAndEpoch(pe);
  }

  private get producerIdAndEpoch(): ProducerIdAndEpoch | undefined {
    return this.sequences.producerIdAndEpoch;
  }

  beginTransaction(): void {
    this.transactionManager().beginTransaction();
  }

  /** The consumed offsets commit with the transaction (consume-transform-produce). */
  async sendOffsetsToTransaction(offsets: readonly TransactionalOffset[], groupId: string): Promise<void> {
    await this.transactionManager().sendOffsets(this.currentProducerIdAndEpoch(), offsets, groupId);
  }

  /** Sends what is pending, then EndTxn(commit); a record that failed makes this throw (abort, then retry). */
  async commitTransaction(): Promise<void> {
    const txn = this.transactionManager();
    txn.beginCommit();
    await this.flush();
    // A batch that failed during the flush turned the state into an abortable (or fatal) error.
    if (txn.state !== 'COMMITTING_TRANSACTION') throw txn.error ?? new Error(`Cannot commit in state ${txn.state}`);
    await txn.endTransaction(this.currentProducerIdAndEpoch(), true);
  }

  /**
   * Batches not yet sent fail (Kafka's abortUndrainedBatches), those in flight are awaited, then EndTxn(abort):
   * the partitions get ABORT markers and a read_committed consumer never sees the records.
   */
  async abortTransaction(): Promise<void> {
    const txn = this.transactionManager();
    txn.beginAbort();
    const aborted = new TransactionAbortedError('Failing batch since transaction was aborted');
    for (const [tp, b] of [...this.open]) {
      this.open.delete(tp);
      this.fail(b, aborted);
    }
    for (const [tp, q] of [...this.queued]) {
      this.queued.delete(tp);
      for (const b of q) this.fail(b, aborted);
    }
    await this.flush();
    await txn.endTransaction(this.currentProducerIdAndEpoch(), false);
  }

  private currentProducerIdAndEpoch(): { producerId: number; producerEpoch: number } {
    if (this.producerIdAndEpoch === undefined) throw new Error("Cannot perform a transactional operation before completing a call to initTransactions.");
    return this.producerIdAndEpoch;
  }

  /** Partition count of a topic, waiting (up to delivery.timeout.ms) for it to exist with leaders. */
  async partitionsFor(topic: string): Promise<number> {
    const deadline = this.clock.nowMs() + this.o.deliveryTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const md = attempt === 0 ? await this.client.ensureMetadata([topic]) : (await this.client.refreshMetadata([topic]), this.client.metadata);
      const info = md.topics.get(topic);
      if (info !== undefined && info.errorCode === ErrorCode.NONE.code && info.partitions.length > 0) return info.partitions.length;
      if (info !== undefined && info.errorCode !== ErrorCode.NONE.code && !isRetriable(info.errorCode)) throw topicError(info.errorCode, topic);
      if (this.clock.nowMs() > deadline) throw new KafkaError('REQUEST_TIMED_OUT', `Topic ${topic} not present in metadata after ${this.o.deliveryTimeoutMs} ms.`);
      await this.clock.sleep(this.o.retryBackoffMs);
    }
  }

  /**
   * Queues one record. Records given before a topic's metadata is known wait in one chain, so that every record
   * is appended in the order of the calls.
   */
  send(topic: string, key: Buffer | null, value: Buffer | null, partition?: number): Promise<RecordMetadata> {
    return new Promise((resolve, reject) => {
      this.sendWithCallback(topic, key, value, (err, t, p, offset) => (err === null ? resolve({ topic: t, partition: p, offset }) : reject(err)), 0, partition);
    });
  }

  /**
   * The allocation-free form of send (Kafka's send with a Callback): the callback runs when the record is
   * acknowledged or fails. Records given before a topic's metadata is known wait in one chain, so every record
   * is appended in the order of the calls. `timestamp` is the record's create time (ProducerRecord's), now if absent;
   * `headers` are the record's (ProducerRecord's), none if absent.
   */
  sendWithCallback(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    callback?: SendCallback,
    cookie = 0,
    partition?: number,
    timestamp?: number,
    headers?: readonly RecordHeader[],
  ): void {
    if (this.closed) {
      callback?.(new Error('Cannot send after the producer is closed.'), topic, -1, -1, cookie);
      return;
    }
    const notReady = this.txn?.failIfNotReadyForSend();
    if (notReady !== undefined) {
      callback?.(notReady, topic, -1, -1, cookie);
      return;
    }
    const info = this.client.metadata.topics.get(topic);
    if (this.waitingForMetadata === 0 && info !== undefined && info.errorCode === ErrorCode.NONE.code && info.partitions.length > 0) {
      this.append(topic, key, value, partition ?? this.partitioner.partition(key, info.partitions.length), callback, cookie, timestamp, headers);
      return;
    }
    this.waitingForMetadata++;
    this.metadataWaits.run(() => this.partitionsFor(topic)).then(
      (count) => {
        this.waitingForMetadata--;
        this.append(topic, key, value, partition ?? this.partitioner.partition(key, count), callback, cookie, timestamp, headers);
      },
      (err: unknown) => {
        this.waitingForMetadata--;
        callback?.(err as Error, topic, -1, -1, cookie);
      },
    );
  }

  /** `topic-partition` keys, built once per partition rather than once per record. */
  private partitionKey(topic: string, p: number): string {
    let keys = this.tpKeys.get(topic);
    if (keys === undefined) this.tpKeys.set(topic, (keys = []));
    return (keys[p] ??= tpKey(topic, p));
  }

  private append(topic: string, key: Buffer | null, value: Buffer | null, p: number, callback: SendCallback | undefined, cookie: number, timestamp?: number, headers?: readonly RecordHeader[]): void {
    const tp = this.partitionKey(topic, p);
    let batch = this.open.get(tp);
    if (batch === undefined) {
      // Not a batch.size buffer each time: at linger.ms=0 thousands of batches of a few records leave per second,
      // and that many fresh 16 KiB buffers (memory outside the JS heap) forced a full garbage collection several
      // times a second. Room for twice what this partition's last batch took still avoids regrowing it.
      const initialCapacity = Math.min(this.o.batchSize + 1024, Math.max(1024, 2 * (this.lastBatchBytes.get(tp) ?? this.o.batchSize)));
      // The builder keeps this options object and reads its producer fields at build(): filled in at first send.
      const header: RecordBatchBuilderOptions = { compression: this.o.compression, initialCapacity, ...(this.txn === undefined ? {} : { isTransactional: true }) };
      batch = { topic, partition: p, tp, recordCount: 0, builder: new RecordBatchBuilder(header), header, callbacks: [], cookies: [], createdMs: this.clock.nowMs() };
      this.open.set(tp, batch);
    }
    batch.callbacks.push(callback);
    batch.cookies.push(cookie);
    batch.builder.append({ key, value, timestamp: timestamp ?? this.clock.nowMs(), ...(headers === undefined ? {} : { headers }) });
    if (batch.builder.estimatedSizeInBytes() >= this.o.batchSize) this.seal(tp);
    else this.scheduleLinger();
  }

  /** Sends everything accumulated and resolves when every sent record has its answer. */
  async flush(): Promise<void> {
    await this.metadataWaits.whenIdle();
    this.flushing++;
    try {
      this.drain();
      if (this.isIdle()) return;
      await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    } finally {
      this.flushing--;
    }
  }

  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    this.lingerTimer?.cancel();
    if (this.lingerImmediate) clearImmediate(this.lingerImmediate);
    this.client.close();
  }

  private scheduleLinger(): void {
    if (this.o.lingerMs <= 0) {
      // linger.ms=0 means "send as soon as the sender runs". A 0 ms timer waits at least 1 ms in Node, which held
      // every record that long; an immediate still gathers all that is appended in this turn of the loop.
      this.lingerImmediate ??= setImmediate(() => {
        this.lingerImmediate = undefined;
        this.drain();
      });
      return;
    }
    if (this.lingerTimer !== undefined) return;
    this.lingerTimer = this.clock.setTimer(() => {
      this.lingerTimer = undefined;
      this.drain();
    }, this.o.lingerMs);
  }

  /** A full batch goes to its partition's send queue at once; it keeps the order behind earlier ones. */
  private seal(tp: string): void {
    const batch = this.open.get(tp);
    if (batch === undefined) return;
    this.open.delete(tp);
    this.enqueue(tp, batch);
    this.drain();
  }

  /** A batch leaves `open` here (full or ready): its size sets the buffer of the partition's next one. */
  private enqueue(tp: string, batch: Batch): void {
    this.lastBatchBytes.set(tp, batch.builder.estimatedSizeInBytes());
    let q = this.queued.get(tp);
    if (!q) this.queued.set(tp, (q = []));
    q.push(batch);
  }

  private leaderOf(b: Batch): number {
    return this.client.metadata.leaderFor(b.topic, b.partition) ?? -1;
  }

  private hasCapacity(leader: number): boolean {
    return (this.inFlightRequests.get(leader) ?? 0) < this.o.maxInFlightRequestsPerConnection;
  }

  /**
   * An open batch is ready once it has waited linger.ms (or a flush asks), but it is taken only when its leader
   * can take another request and nothing of its partition waits ahead of it: records arriving meanwhile join it.
   */
  private takeReadyBatches(): void {
    const now = this.clock.nowMs();
    let waiting = false;
    for (const [tp, b] of this.open) {
      if (this.flushing === 0 && now - b.createdMs < this.o.lingerMs) {
        waiting = true;
        continue;
      }
      if ((this.queued.get(tp)?.length ?? 0) > 0 || this.retrying.has(tp) || !this.hasCapacity(this.leaderOf(b))) continue;
      this.open.delete(tp);
      this.enqueue(tp, b);
    }
    if (waiting) this.scheduleLinger();
  }

  /** Sends queued batches, one per partition per request, while their leaders have requests to spare. */
  private drain(): void {
    if (this.o.enableIdempotence && this.producerIdAndEpoch !== undefined) this.resolveSequences();
    if (this.o.enableIdempotence && this.producerIdAndEpoch === undefined && this.txn === undefined) {
      // The producer id is asked for with the first record, not before.
      if (this.open.size > 0 || this.queued.size > 0) this.initProducerId();
      else this.maybeIdle();
      return;
    }
    this.takeReadyBatches();
    const byLeader = new Map<number, string[]>();
    const toAdd: Batch[] = [];
    for (const [tp, q] of this.queued) {
      const head = q[0];
      if (head === undefined || this.retrying.has(tp) || !this.mayDrain(head)) continue;
      // Kafka's Sender: no batch of a partition goes before the partition is part of the transaction.
      if (this.txn !== undefined && !this.txn.isPartitionAdded(head.topic, head.partition)) {
        toAdd.push(head);
        continue;
      }
      const leader = this.leaderOf(head);
      let list = byLeader.get(leader);
      if (!list) byLeader.set(leader, (list = []));
      list.push(tp);
    }
    for (const [leader, tps] of byLeader) {
      while (this.hasCapacity(leader)) {
        const batches: Batch[] = [];
        let size = 0;
        for (const tp of tps) {
          const head = this.queued.get(tp)?.[0];
          if (head === undefined || !this.mayDrain(head)) continue;
          const bytes = head.builder.estimatedSizeInBytes();
          if (batches.length > 0 && size + bytes > this.o.maxRequestSize) continue;
          this.queued.get(tp)?.shift();
          if (this.producerIdAndEpoch !== undefined && head.header.baseSequence === undefined) {
            head.recordCount = head.builder.numRecords;
            this.sequences.assign(head);
          }
          batches.push(head);
          size += bytes;
        }
        if (batches.length === 0) break;
        this.inFlightRequests.set(leader, (this.inFlightRequests.get(leader) ?? 0) + 1);
        void this.sendTo(leader, batches);
      }
    }
    for (const [tp, q] of [...this.queued]) if (q.length === 0) this.queued.delete(tp);
    if (toAdd.length > 0) this.addPartitionsToTransaction(toAdd);
    this.maybeIdle();
  }

  /** AddPartitionsToTxn for the partitions waiting on it; if it fails, their batches fail and the transaction must abort. */
  private addPartitionsToTransaction(batches: Batch[]): void {
    const txn = this.txn;
    if (txn === undefined || this.addingPartitions !== undefined || this.producerIdAndEpoch === undefined) return;
    this.addingPartitions = txn
      .addPartitions(this.producerIdAndEpoch, batches)
      .catch((err: unknown) => {
        const error = err instanceof Error ? err : new Error(String(err));
        txn.abortableError(error);
        for (const b of batches) {
          const tp = tpString(b);
          const q = this.queued.get(tp);
          if (q === undefined) continue;
          this.queued.delete(tp);
          for (const x of q) this.fail(x, error);
        }
      })
      .finally(() => {
        this.addingPartitions = undefined;
        this.drain();
      });
  }

  private async sendTo(leader: number, batches: Batch[]): Promise<void> {
    const bytes = batches.map((b) => b.builder.build());
    const retry: Batch[] = [];
    try {
      if (leader < 0) throw new KafkaError('LEADER_NOT_AVAILABLE');
      const topicData = new Map<string, { index: number; records: Buffer }[]>();
      batches.forEach((b, i) => {
        let list = topicData.get(b.topic);
        if (!list) topicData.set(b.topic, (list = []));
        list.push({ index: b.partition, records: bytes[i] as Buffer });
      });
      const request = { transactionalId: this.txn?.transactionalId ?? null, acks: this.o.acks, timeoutMs: this.o.requestTimeoutMs, topicData: [...topicData].map(([name, partitionData]) => ({ name, partitionData })) };
      this.sensors.request(1);
      batches.forEach((b, i) => {
        this.sensors.recordSend(b.builder.numRecords);
        this.sensors.batchSize((bytes[i] as Buffer).length);
      });
      const sentMs = this.clock.hiResClockMs();
      if (this.o.acks === 0) {
        const conn = await this.client.connectionTo(leader);
        await conn.send(ProduceApi, request, { expectResponse: false });
        for (const b of batches) this.complete(b, -1);
      } else {
        const response = await this.client.request(leader, ProduceApi, request, { retries: 0 });
        this.sensors.latency(this.clock.hiResClockMs() - sentMs);
        this.sensors.throttle(response.throttleTimeMs);
        for (const b of batches) {
          const r = findPartition(response, b.topic, b.partition);
          if (r === undefined) this.fail(b, new KafkaError('UNKNOWN_SERVER_ERROR', 'Partition missing from the produce response'));
          else if (r.errorCode === ErrorCode.NONE.code) this.complete(b, r.baseOffset);
          else this.failOrRetry(b, r.errorCode, r.logStartOffset, retry, topicError(r.errorCode, b.topic));
        }
      }
    } catch (err) {
      for (const b of batches) {
        const retriable = err instanceof KafkaError && err.retriable;
        this.failOrRetry(b, err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code, -1, retriable ? retry : undefined, err as Error);
      }
    }
    const outstanding = (this.inFlightRequests.get(leader) ?? 1) - 1;
    if (outstanding > 0) this.inFlightRequests.set(leader, outstanding);
    else this.inFlightRequests.delete(leader);
    if (retry.length > 0) await this.requeueAfterBackoff(retry);
    this.drain();
  }

  /** Kafka's reenqueue: failed batches go back to the head of their partitions after retry.backoff.ms. */
  private async requeueAfterBackoff(retry: Batch[]): Promise<void> {
    const tps = retry.map((b) => tpString(b));
    for (const tp of tps) this.retrying.set(tp, (this.retrying.get(tp) ?? 0) + 1);
    try {
      await this.clock.sleep(this.o.retryBackoffMs);
      await this.client.refreshMetadata([...new Set(retry.map((b) => b.topic))]).catch(() => undefined);
    } finally {
      for (let i = retry.length - 1; i >= 0; i--) {
        const tp = tps[i] as string;
        let q = this.queued.get(tp);
        if (!q) this.queued.set(tp, (q = []));
        const b = retry[i] as Batch;
        // Idempotent: by sequence, since batches that were behind it in flight come back in any order.
        const seq = b.header.baseSequence;
        const at = seq === undefined ? 0 : q.findIndex((x) => x.header.baseSequence === undefined || (x.header.baseSequence as number) > seq);
        q.splice(at < 0 ? q.length : at, 0, b);
        const n = (this.retrying.get(tp) ?? 1) - 1;
        if (n > 0) this.retrying.set(tp, n);
        else this.retrying.delete(tp);
      }
    }
  }

  /**
   * Kafka's Sender.completeBatch for an error: retried while delivery.timeout.ms allows and the error may be
   * retried (for an idempotent producer, TransactionManager.canRetry: the sequence errors of KIP-360, which may ask
   * for an epoch bump), but not under another producer id; otherwise failed, which for a batch the broker refused
   * for good moves the sequences on. `retry` undefined: the error is not retriable whatever its code.
   */
  private failOrRetry(b: Batch, errorCode: number, logStartOffset: number, retry: Batch[] | undefined, error: Error): void {
    const idempotent = this.o.enableIdempotence && b.header.baseSequence !== undefined;
    if (retry !== undefined && this.canRetry(b) && (idempotent ? this.sequences.canRetry(b, errorCode, logStartOffset) : isRetriable(errorCode))) {
      if (!idempotent || this.sequences.isCurrentProducerId(b)) {
        retry.push(b);
        return;
      }
      const current = this.producerIdAndEpoch?.producerId ?? -1;
      this.sequences.failed(b, errorCode, false);
      this.fail(b, new KafkaError('OUT_OF_ORDER_SEQUENCE_NUMBER', `Attempted to retry sending a batch but the producer id changed from ${b.header.producerId ?? -1} to ${current} in the mean time. This batch will be dropped.`));
      return;
    }
    if (idempotent) this.sequences.failed(b, errorCode, true);
    this.fail(b, error);
  }

  /** Kafka's RecordAccumulator drain rule for idempotent batches (see SequenceBookkeeper.canDrain). */
  private mayDrain(b: Batch): boolean {
    return this.producerIdAndEpoch === undefined || this.sequences.canDrain(b);
  }

  /**
   * Before anything is sent (Kafka's Sender.runOnce): unresolved sequences are settled, and an epoch bump asked
   * for is made; at the last epoch the producer id is dropped and InitProducerId asked again.
   */
  private resolveSequences(): void {
    const gaps = this.sequences.maybeResolveSequences();
    if (gaps.length > 0) this.txn?.abortableError(new KafkaError('UNKNOWN_SERVER_ERROR', "The client hasn't received acknowledgment for some previously sent messages and can no longer retry them. It isn't safe to continue."));
    const before = this.producerIdAndEpoch;
    const bumped = this.sequences.bumpEpochIfNeeded();
    if (bumped === 'bumped') {
      const pe = this.producerIdAndEpoch as ProducerIdAndEpoch;
      this.logger.info(`ProducerId set to ${pe.producerId} with epoch ${pe.producerEpoch}`);
    } else if (bumped === 'reset') this.logger.info(`Resetting idempotent producer ID. ID and epoch before reset are ${String(before?.producerId)}, ${String(before?.producerEpoch)}`);
  }

  private canRetry(b: Batch): boolean {
    return this.clock.nowMs() - b.createdMs < this.o.deliveryTimeoutMs;
  }

  /** InitProducerId (null transactional id) before anything is sent, retried until delivery.timeout.ms. */
  private initProducerId(): void {
    if (this.initializing !== undefined) return;
    const deadline = this.clock.nowMs() + this.o.deliveryTimeoutMs;
    this.initializing = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          const r = await this.client.request('any', InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
          if (r.errorCode === ErrorCode.NONE.code) {
            this.sequences.setProducerIdAndEpoch({ producerId: r.producerId, producerEpoch: r.producerEpoch });
            this.logger.info(`ProducerId set to ${r.producerId} with epoch ${r.producerEpoch}`);
            return;
          }
          if (!isRetriable(r.errorCode)) throw KafkaError.fromCode(r.errorCode);
        } catch (err) {
          if (!(err instanceof KafkaError && err.retriable) || this.clock.nowMs() >= deadline) throw err;
        }
        await this.clock.sleep(backoffMs(attempt, this.o.retryBackoffMs, 1000));
      }
    })()
      .catch((err: unknown) => {
        // Every record waiting fails: nothing can be sent without a producer id.
        const error = err instanceof Error ? err : new Error(String(err));
        for (const [tp, b] of [...this.open]) {
          this.open.delete(tp);
          this.fail(b, error);
        }
        for (const [tp, q] of [...this.queued]) {
          this.queued.delete(tp);
          for (const b of q) this.fail(b, error);
        }
      })
      .finally(() => {
        this.initializing = undefined;
        if (this.producerIdAndEpoch !== undefined) this.drain();
        else this.maybeIdle();
      });
  }

  private complete(b: Batch, baseOffset: number): void {
    if (b.header.baseSequence !== undefined) this.sequences.completed(b, baseOffset);
    for (let i = 0; i < b.callbacks.length; i++) b.callbacks[i]?.(null, b.topic, b.partition, baseOffset < 0 ? -1 : baseOffset + i, b.cookies[i] as number);
  }

  private fail(b: Batch, err: Error): void {
    // A batch failed outside a response (an abort, a lost producer id) leaves the books too, or its partition would
    // wait for it forever (SequenceBookkeeper.canDrain).
    if (b.header.baseSequence !== undefined) this.sequences.failed(b, ErrorCode.NONE.code, false);
    this.sensors.recordError(b.builder.numRecords);
    // Kafka's TransactionManager: a batch lost inside a transaction leaves only abortTransaction possible.
    if (this.txn !== undefined && !(err instanceof TransactionAbortedError)) this.txn.abortableError(err);
    for (let i = 0; i < b.callbacks.length; i++) b.callbacks[i]?.(err, b.topic, b.partition, -1, b.cookies[i] as number);
  }

  private isIdle(): boolean {
    return this.open.size === 0 && this.queued.size === 0 && this.inFlightRequests.size === 0 && this.retrying.size === 0 && this.initializing === undefined && this.addingPartitions === undefined;
  }

  private maybeIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

function findPartition(response: ProduceResponse, topic: string, partition: number): { errorCode: number; baseOffset: number; logStartOffset: number } | undefined {
  return response.responses.find((t) => t.name === topic)?.partitionResponses.find((p) => p.index === partition);
}

/**
 * A topic's error as Kafka's producer raises it: TOPIC_AUTHORIZATION_FAILED is a TopicAuthorizationException
 * naming the topics ("Not authorized to access topics: [t]"); other codes carry their default message.
 */
function topicError(errorCode: number, topic: string): KafkaError {
  if (errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code) return new KafkaError('TOPIC_AUTHORIZATION_FAILED', `Not authorized to access topics: [${topic}]`);
  return KafkaError.fromCode(errorCode);
}
