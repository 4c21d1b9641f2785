import { ErrorCode } from '../common/error-codes';
import { TopicPartition, tpKey, tpString } from '../common/topic-partition';
import { FetchApi } from '../protocol/apis/fetch';
import { ClientMetrics } from './client-metrics';
import { listOffset } from './list-offset';
import { batchesIn, Record, RecordBatch, TimestampType } from '../records';
import { NetworkClient } from './network-client';
import { authorizationError } from './authorization-error';
import { AbortedTransactionsFilter } from './aborted-transactions-filter';

export interface ConsumedRecord extends Record {
  topic: string;
  partition: number;
  timestampType: TimestampType;
}

export interface PartitionConsumerOptions {
  client: NetworkClient;
  /** fetch.max.wait.ms (default 500). */
  maxWaitMs?: number;
  /** max.partition.fetch.bytes (default 1048576). */
  partitionMaxBytes?: number;
  /** fetch.max.bytes (default 52428800). */
  maxBytes?: number;
  /** isolation.level (default read_uncommitted): read_committed reads up to the LSO and skips aborted transactions. */
  isolationLevel?: 'read_uncommitted' | 'read_committed';
}

/** A fetched batch and the position it was read from: records below `fromOffset` were consumed before. */
export interface ConsumedBatch {
  topic: string;
  partition: number;
  fromOffset: number;
  batch: RecordBatch;
}

/** earliest, latest, or an offset. */
export type StartOffset = 'earliest' | 'latest' | number;

/**
 * A consumer of explicitly assigned partitions (Kafka's consumer with assign(), no group): resolves start
 * offsets with ListOffsets, fetches from each partition's leader, follows leader moves by refreshing metadata,
 * and decodes records only here, at the edge, for printing.
 */
export class PartitionConsumer {
  private readonly positions = new Map<string, { tp: TopicPartition; offset: number }>();
  private readonly o: Required<Omit<PartitionConsumerOptions, 'client'>>;
  /** Kafka's consumer-fetch-manager-metrics that the tools print (--print-metrics). */
  readonly metrics: ClientMetrics;
  private readonly sensors: { [K in 'throttle' | 'latency' | 'fetch' | 'bytes' | 'records']: (value: number) => void };

  constructor(private readonly client: NetworkClient, options: Omit<PartitionConsumerOptions, 'client'> = {}) {
    this.o = {
      maxWaitMs: options.maxWaitMs ?? 500,
      partitionMaxBytes: options.partitionMaxBytes ?? 1048576,
      maxBytes: options.maxBytes ?? 52428800,
      isolationLevel: options.isolationLevel ?? 'read_uncommitted',
    };
    this.metrics = new ClientMetrics(client.clientId, client.clock);
    const group = 'consumer-fetch-manager-metrics';
    this.sensors = {
      throttle: this.metrics.sensor(group, 'fetch-throttle-time', ['avg', 'max']),
      latency: this.metrics.sensor(group, 'fetch-latency', ['avg', 'max']),
      fetch: this.metrics.sensor(group, 'fetch', ['total', 'rate']),
      bytes: this.metrics.sensor(group, 'bytes-consumed', ['total', 'rate']),
      records: this.metrics.sensor(group, 'records-consumed', ['total', 'rate']),
    };
  }

  async assign(tps: readonly TopicPartition[], start: StartOffset): Promise<void> {
    for (const tp of tps) {
      const offset = typeof start === 'number' ? start : await this.listOffset(tp, start === 'earliest' ? -2 : -1);
      this.positions.set(tpString(tp), { tp, offset });
    }
  }

  position(tp: TopicPartition): number | undefined {
    return this.positions.get(tpString(tp))?.offset;
  }

  /** -2 earliest, -1 latest (the high watermark; the LSO for read_committed), from the partition's leader. */
  async listOffset(tp: TopicPartition, timestamp: number): Promise<number> {
    const p = await listOffset(this.client, tp, timestamp, this.readCommitted ? 1 : 0);
    return p.offset >= 0 ? p.offset : (p.oldStyleOffsets[0] ?? 0);
  }

  /** One fetch round over every assigned partition; returns the records in offset order per partition. */
  async poll(): Promise<ConsumedRecord[]> {
    const records: ConsumedRecord[] = [];
    for (const { topic, partition, fromOffset, batch } of await this.pollBatches()) {
      for (const r of batch.records()) {
        if (r.offset >= fromOffset) records.push({ ...r, topic, partition, timestampType: batch.timestampType });
      }
    }
    return records;
  }

  /**
   * One fetch round that hands out whole batches undecoded, positions already moved past them (from the batch
   * headers). So a caller may issue the next round before looking inside these, as Kafka's consumer prefetches.
   */
  async pollBatches(): Promise<ConsumedBatch[]> {
    const topics = [...new Set([...this.positions.values()].map((p) => p.tp.topic))];
    await this.client.ensureMetadata(topics);
    // Kafka's consumer throws TopicAuthorizationException for topics the metadata refuses, rather than waiting.
    const refused = topics.filter((t) => this.client.metadata.topics.get(t)?.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code);
    if (refused.length > 0) throw authorizationError(ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, { topics: refused });
    const byLeader = new Map<number, { tp: TopicPartition; offset: number }[]>();
    let missingLeader = false;
    for (const pos of this.positions.values()) {
      const leader = this.client.metadata.leaderFor(pos.tp.topic, pos.tp.partition);
      if (leader === undefined || leader < 0) {
        missingLeader = true;
        continue;
      }
      let list = byLeader.get(leader);
      if (!list) byLeader.set(leader, (list = []));
      list.push(pos);
    }
    const results = await Promise.all([...byLeader].map(([leader, positions]) => this.fetchFrom(leader, positions)));
    if (missingLeader || results.some((r) => r.refresh)) {
      // The assigned topics' partitions too (a bare refresh reads only the brokers): a moved leader is learnt here.
      await this.client.refreshMetadata(topics).catch(() => undefined);
      if (results.every((r) => r.batches.length === 0)) await this.client.clock.sleep(100);
    }
    return results.flatMap((r) => r.batches);
  }

  private get readCommitted(): boolean {
    return this.o.isolationLevel === 'read_committed';
  }

  private async fetchFrom(leader: number, positions: { tp: TopicPartition; offset: number }[]): Promise<{ batches: ConsumedBatch[]; refresh: boolean }> {
    const topics = new Map<string, { partition: number; currentLeaderEpoch: number; fetchOffset: number; logStartOffset: number; partitionMaxBytes: number }[]>();
    for (const p of positions) {
      let list = topics.get(p.tp.topic);
      if (!list) topics.set(p.tp.topic, (list = []));
      list.push({ partition: p.tp.partition, currentLeaderEpoch: -1, fetchOffset: p.offset, logStartOffset: -1, partitionMaxBytes: this.o.partitionMaxBytes });
    }
    let response;
    const sentMs = this.client.clock.hiResClockMs();
    try {
      response = await this.client.request(
        leader,
        FetchApi,
        {
          replicaId: -1,
          maxWaitMs: this.o.maxWaitMs,
          minBytes: 1,
          maxBytes: this.o.maxBytes,
          isolationLevel: this.readCommitted ? 1 : 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [...topics].map(([topic, partitions]) => ({ topic, partitions })),
          forgottenTopicsData: [],
          rackId: '',
        },
        { timeoutMs: this.o.maxWaitMs + 30000 },
      );
    } catch {
      return { batches: [], refresh: true };
    }
    this.sensors.fetch(1);
    this.sensors.latency(this.client.clock.hiResClockMs() - sentMs);
    this.sensors.throttle(response.throttleTimeMs);
    const batches: ConsumedBatch[] = [];
    let refresh = false;
    const refused = new Set<string>();
    for (const t of response.responses) {
      for (const p of t.partitionResponses) {
        const pos = this.positions.get(tpKey(t.topic, p.partition));
        if (pos === undefined) continue;
        if (p.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code) {
          refused.add(t.topic);
          continue;
        }
        if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE.code) {
          pos.offset = await this.listOffset(pos.tp, -2);
          continue;
        }
        if (p.errorCode !== ErrorCode.NONE.code) {
          refresh = true;
          continue;
        }
        const data = Array.isArray(p.recordSet) ? Buffer.concat(p.recordSet) : (p.recordSet as Buffer);
        const filter = this.readCommitted ? new AbortedTransactionsFilter(p.abortedTransactions) : undefined;
        for (const batch of batchesIn(data)) {
          if (batch.nextOffset <= pos.offset) continue;
          if (filter === undefined ? !batch.isControlBatch : filter.accepts(batch)) {
            batches.push({ topic: t.topic, partition: p.partition, fromOffset: pos.offset, batch });
            this.sensors.bytes(batch.sizeInBytes);
            this.sensors.records(batch.recordsCount);
          }
          pos.offset = batch.nextOffset;
        }
      }
    }
    // Kafka's Fetcher: the whole fetch fails with the topics the leader refused (Read), no refresh helps.
    if (refused.size > 0) throw authorizationError(ErrorCode.TOPIC_AUTHORIZATION_FAILED.code, { topics: [...refused] });
    return { batches, refresh };
  }
}
