import { ErrorCode } from '../common/error-codes';
import { SYSTEM_CLOCK } from '../common/time';
import { formatLog4jTimestamp } from '../common/time-format';
import { TopicPartition, tpString } from '../common/topic-partition';
import { NetworkClient } from '../client/network-client';
import { FetchApi, FetchResponse } from '../protocol/apis/fetch';
import { ListOffsetsApi } from '../protocol/apis/list-offsets';
import { batchesIn, RecordBatch } from '../records';
import { CliError } from './cli';
import { javaHashMapOrder, topicPartitionHash } from './java-rendering';
import { intOption, parseBrokerList } from './tool-properties';

export interface ReplicaVerificationOptions {
  brokerList?: string;
  fetchSize: string;
  maxWaitMs: string;
  topicWhiteList: string;
  time: string;
  reportIntervalMs: string;
}

/** Kafka's Request.DebuggingConsumerId: a consumer fetch that any replica answers (Fetch v11+). */
const DEBUGGING_CONSUMER_ID = -2;

/** Kafka's IncludeList: commas are alternatives, blanks and surrounding quotes dropped, the whole name matches. */
export function includeListPattern(raw: string): RegExp {
  const regex = raw.trim().replace(/,/g, '|').replace(/ /g, '').replace(/^["']+/, '').replace(/["']+$/, '');
  try {
    return new RegExp(`^(?:${regex})$`);
  } catch {
    throw new CliError(`Exception in thread "main" java.lang.RuntimeException: ${raw} is an invalid regex.`);
  }
}

interface Fetched {
  highWatermark: number;
  batches: RecordBatch[];
}

/** The ReplicaBuffer's check of one round: every replica's batches up to its high watermark, batch by batch. */
export class ReplicaBuffer {
  private readonly fetchOffsets = new Map<string, number>();
  private readonly order: TopicPartition[];
  private lastReportTime = SYSTEM_CLOCK.nowMs();

  constructor(
    private readonly expectedReplicas: ReadonlyMap<string, number>,
    partitions: readonly TopicPartition[],
    initialOffsets: ReadonlyMap<string, number>,
    private readonly reportIntervalMs: number,
    private readonly println: (line: string) => void,
    private readonly now: () => number = () => SYSTEM_CLOCK.nowMs(),
  ) {
    for (const [k, v] of initialOffsets) this.fetchOffsets.set(k, v);
    // Kafka walks a ConcurrentHashMap of TopicPartition: its bucket order, which decides ties for the max lag.
    this.order = javaHashMapOrder(partitions, (tp) => topicPartitionHash(tp.topic, tp.partition));
    this.lastReportTime = this.now();
  }

  offset(tp: TopicPartition): number {
    return this.fetchOffsets.get(tpString(tp)) ?? 0;
  }

  /** Returns false when replicas disagree on offsets (Kafka exits with status 1 then). */
  verify(fetched: ReadonlyMap<string, Map<number, Fetched>>): boolean {
    let maxLag = -1;
    let offsetWithMaxLag = -1;
    let maxLagPartition: string | null = null;
    for (const tp of this.order) {
      const key = tpString(tp);
      const perReplica = fetched.get(key) ?? new Map<number, Fetched>();
      const expected = this.expectedReplicas.get(key) ?? 0;
      if (perReplica.size !== expected) throw new Error(`fetched ${perReplica.size} replicas for ${key}, but expected ${expected} replicas`);
      const iterators = [...perReplica].map(([replicaId, f]) => ({ replicaId, hw: f.highWatermark, batches: f.batches, next: 0 }));
      const maxHw = Math.max(...iterators.map((i) => i.hw));
      let inAll = true;
      while (inAll) {
        let first: { replicaId: number; offset: number; nextOffset: number; checksum: number } | undefined;
        for (const it of iterators) {
          const batch = it.batches[it.next++];
          if (batch === undefined || batch.lastOffset >= it.hw) {
            inAll = false;
            continue;
          }
          if (first === undefined) {
            first = { replicaId: it.replicaId, offset: batch.lastOffset, nextOffset: batch.nextOffset, checksum: batch.checksum };
            continue;
          }
          if (first.offset !== batch.lastOffset) {
            this.println(`${formatLog4jTimestamp(new Date(this.now()))}: partition ${key}: replica ${first.replicaId}'s offset ${first.offset} doesn't match replica ${it.replicaId}'s offset ${batch.lastOffset}`);
            return false;
          }
          if (first.checksum !== batch.checksum) {
            this.println(
              `${formatLog4jTimestamp(new Date(this.now()))}: partition ${key} has unmatched checksum at offset ${batch.lastOffset}; replica ${first.replicaId}'s checksum ${first.checksum}; replica ${it.replicaId}'s checksum ${batch.checksum}`,
            );
          }
        }
        if (inAll && first !== undefined) this.fetchOffsets.set(key, first.nextOffset);
        if (first === undefined) inAll = false;
      }
      const offset = this.offset(tp);
      if (maxHw - offset > maxLag) {
        offsetWithMaxLag = offset;
        maxLag = maxHw - offset;
        maxLagPartition = key;
      }
    }
    const current = this.now();
    if (current - this.lastReportTime > this.reportIntervalMs) {
      this.println(`${formatLog4jTimestamp(new Date(current))}: max lag is ${maxLag} for partition ${maxLagPartition ?? 'null'} at offset ${offsetWithMaxLag} among ${this.order.length} partitions`);
      this.lastReportTime = current;
    }
    return true;
  }
}

/**
 * Kafka's ReplicaVerificationTool: one fetcher per broker for the replicas it holds; each round, once all have
 * fetched, the batches of every partition are compared across its replicas up to each one's high watermark
 * (offsets and CRCs) and the verified offsets move on; every --report-interval-ms the largest lag behind the
 * high watermark is printed. Runs until killed, or exits 1 when replicas disagree on offsets.
 */
export async function runReplicaVerification(o: ReplicaVerificationOptions, println: (line: string) => void, stop: { stopped: boolean }): Promise<number> {
  if (o.brokerList === undefined) throw new CliError('Missing required argument "[broker-list]"');
  const fetchSize = intOption(o.fetchSize, '--fetch-size', 1048576);
  const maxWaitMs = intOption(o.maxWaitMs, '--max-wait-ms', 1000);
  const initialOffsetTime = intOption(o.time, '--time', -1);
  const reportInterval = intOption(o.reportIntervalMs, '--report-interval-ms', 30000);
  const pattern = includeListPattern(o.topicWhiteList);
  const brokers = parseBrokerList(o.brokerList, '--broker-list');
  const client = new NetworkClient({ bootstrapServers: brokers, clientId: 'replicaVerificationTool' });
  try {
    await client.refreshMetadata(null);
    const topics = [...client.metadata.topics.values()].filter((t) => t.errorCode === ErrorCode.NONE.code && pattern.test(t.name));
    if (topics.length === 0) throw new CliError(`No topics found. topic-white-list, if specified, is either filtering out all topics or there is no topic.`);
    const partitions: TopicPartition[] = [];
    const expected = new Map<string, number>();
    const perBroker = new Map<number, TopicPartition[]>();
    for (const t of topics) {
      for (const p of t.partitions) {
        const tp = { topic: t.name, partition: p.partition };
        partitions.push(tp);
        expected.set(tpString(tp), p.replicas.length);
        for (const r of p.replicas) {
          let list = perBroker.get(r);
          if (!list) perBroker.set(r, (list = []));
          list.push(tp);
        }
      }
    }
    const initial = new Map<string, number>();
    for (const t of topics) {
      for (const p of t.partitions) {
        const r = await client.request(p.leader, ListOffsetsApi, {
          replicaId: -1,
          isolationLevel: 0,
          topics: [{ name: t.name, partitions: [{ partitionIndex: p.partition, timestamp: initialOffsetTime, maxNumOffsets: 1 }] }],
        });
        const answer = r.topics[0]?.partitions[0];
        if (answer === undefined || answer.errorCode !== ErrorCode.NONE.code) throw new CliError(`Cannot get the initial offset of ${t.name}-${p.partition}: error code ${answer?.errorCode}`);
        initial.set(tpString({ topic: t.name, partition: p.partition }), answer.offset);
      }
    }
    const buffer = new ReplicaBuffer(expected, partitions, initial, reportInterval, println);
    println(`${formatLog4jTimestamp(new Date())}: verification process is started.`);
    while (!stop.stopped) {
      const fetched = new Map<string, Map<number, Fetched>>(partitions.map((tp) => [tpString(tp), new Map()]));
      // Kafka's fetcher barrier: every broker's fetch of this round is in before the check.
      await Promise.all(
        [...perBroker].map(async ([brokerId, tps]) => {
          let response: FetchResponse | undefined;
          try {
            response = await client.request(brokerId, FetchApi, {
              replicaId: DEBUGGING_CONSUMER_ID,
              maxWaitMs,
              minBytes: 1,
              maxBytes: 0x7fffffff,
              isolationLevel: 0,
              sessionId: 0,
              sessionEpoch: -1,
              topics: [...new Set(tps.map((tp) => tp.topic))].map((topic) => ({
                topic,
                partitions: tps.filter((tp) => tp.topic === topic).map((tp) => ({ partition: tp.partition, currentLeaderEpoch: -1, fetchOffset: buffer.offset(tp), logStartOffset: -1, partitionMaxBytes: fetchSize })),
              })),
              forgottenTopicsData: [],
              rackId: '',
            }, { timeoutMs: maxWaitMs + 30000 });
          } catch {
            response = undefined;
          }
          for (const tp of tps) fetched.get(tpString(tp))?.set(brokerId, { highWatermark: -1, batches: [] });
          for (const t of response?.responses ?? []) {
            for (const p of t.partitionResponses) {
              const data = Array.isArray(p.recordSet) ? Buffer.concat(p.recordSet) : (p.recordSet as Buffer);
              fetched.get(tpString({ topic: t.topic, partition: p.partition }))?.set(brokerId, { highWatermark: p.highWatermark, batches: p.errorCode === ErrorCode.NONE.code ? batchesIn(data) : [] });
            }
          }
        }),
      );
      if (!buffer.verify(fetched)) return 1;
    }
    return 0;
  } finally {
    client.close();
  }
}
