import { randomUUID } from 'node:crypto';
import { ApiHandlers, NO_RESPONSE } from '../../src/broker/network/api-handler';
import { SocketServer, SocketServerOptions } from '../../src/broker/network/socket-server';
import { RequestDispatcher } from '../../src/broker/request-dispatcher';
import { ErrorCode } from '../../src/common/error-codes';
import { FetchPartitionResponse } from '../../src/protocol/apis/fetch';
import { MetadataResponseTopic } from '../../src/protocol/apis/metadata';

/**
 * A broker-shaped test server for the protocol layer: the real SocketServer and RequestDispatcher with simple
 * in-memory handlers. Records stay opaque: a produced v2 batch is stored as bytes with its baseOffset (bytes 0-7)
 * rewritten and its record count read from lastOffsetDelta (bytes 23-26); Fetch returns stored batches verbatim.
 * The group APIs implement just enough for one consumer at a time (immediate join, leader = the joiner).
 */
interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  maxTimestamp: number;
  bytes: Buffer;
}

class MemoryPartition {
  readonly batches: StoredBatch[] = [];
  nextOffset = 0;
  private waiters: (() => void)[] = [];

  append(records: Buffer): number {
    const base = this.nextOffset;
    let pos = 0;
    while (pos + 17 <= records.length) {
      const magic = records.readInt8(pos + 16);
      if (magic === 2) {
        const size = 12 + records.readInt32BE(pos + 8);
        if (size < 61 || pos + size > records.length) throw new Error('truncated v2 batch');
        const bytes = Buffer.from(records.subarray(pos, pos + size));
        const lastOffsetDelta = bytes.readInt32BE(23);
        bytes.writeBigInt64BE(BigInt(this.nextOffset), 0);
        this.batches.push({ baseOffset: this.nextOffset, lastOffset: this.nextOffset + lastOffsetDelta, maxTimestamp: Number(bytes.readBigInt64BE(35)), bytes });
        this.nextOffset += lastOffsetDelta + 1;
        pos += size;
      } else if (magic === 0 || magic === 1) {
        // Legacy message set entry (offset, size, message); uncompressed entries get consecutive offsets.
        const size = 12 + records.readInt32BE(pos + 8);
        if (size < 26 || pos + size > records.length) throw new Error('truncated legacy message');
        const bytes = Buffer.from(records.subarray(pos, pos + size));
        bytes.writeBigInt64BE(BigInt(this.nextOffset), 0);
        this.batches.push({ baseOffset: this.nextOffset, lastOffset: this.nextOffset, maxTimestamp: magic === 1 ? Number(bytes.readBigInt64BE(18)) : -1, bytes });
        this.nextOffset += 1;
        pos += size;
      } else {
        throw new Error(`unknown magic ${magic}`);
      }
    }
    if (pos !== records.length) throw new Error('trailing bytes after the last batch');
    const w = this.waiters;
    this.waiters = [];
    for (const wake of w) wake();
    return base;
  }

  read(fetchOffset: number, maxBytes: number): Buffer[] {
    const out: Buffer[] = [];
    let bytes = 0;
    for (const b of this.batches) {
      if (b.lastOffset < fetchOffset) continue;
      if (out.length > 0 && bytes + b.bytes.length > maxBytes) break;
      out.push(b.bytes);
      bytes += b.bytes.length;
    }
    return out;
  }

  waitForData(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

export interface ProtocolTestServerOptions {
  socket?: Partial<SocketServerOptions>;
  defaultPartitions?: number;
  /** Upper bound on Fetch long polls (keeps fuzzed MaxWaitMs values from parking connections). */
  maxWaitMs?: number;
  /** Replace or add handlers (e.g. to make one throw). */
  overrides?: ApiHandlers;
}

export class ProtocolTestServer {
  readonly topics = new Map<string, MemoryPartition[]>();
  readonly offsets = new Map<string, number>();
  readonly dispatcher: RequestDispatcher;
  readonly server: SocketServer;
  private generation = 0;
  private readonly maxWaitMs: number;
  private assignments = new Map<string, Buffer>();

  constructor(private readonly options: ProtocolTestServerOptions = {}) {
    this.maxWaitMs = options.maxWaitMs ?? 30000;
    this.dispatcher = new RequestDispatcher({ ...this.handlers(), ...(options.overrides ?? {}) });
    this.server = new SocketServer(
      {
        brokerId: 0,
        listeners: [{ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' }],
        ...(options.socket ?? {}),
      },
      this.dispatcher,
    );
  }

  async start(): Promise<this> {
    await this.server.startup();
    return this;
  }

  get port(): number {
    return this.server.boundPort('PLAINTEXT');
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  stop(): Promise<void> {
    return this.server.shutdown();
  }

  createTopic(name: string, partitions = this.options.defaultPartitions ?? 1): MemoryPartition[] {
    let t = this.topics.get(name);
    if (t === undefined) {
      t = Array.from({ length: partitions }, () => new MemoryPartition());
      this.topics.set(name, t);
    }
    return t;
  }

  private metadataTopic(name: string): MetadataResponseTopic {
    const parts = this.topics.get(name);
    if (parts === undefined) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, name, isInternal: false, partitions: [] };
    return {
      errorCode: 0,
      name,
      isInternal: false,
      partitions: parts.map((_, i) => ({ errorCode: 0, partitionIndex: i, leaderId: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] })),
    };
  }

  private handlers(): ApiHandlers {
    return {
      3: (req, ctx) => {
        const names = req.topics === null || (ctx.header.apiVersion === 0 && req.topics.length === 0) ? [...this.topics.keys()] : req.topics.map((t) => t.name ?? '');
        const autoCreate = req.topics !== null && (ctx.header.apiVersion < 4 || req.allowAutoTopicCreation);
        if (autoCreate) for (const n of names) this.createTopic(n);
        return {
          throttleTimeMs: 0,
          brokers: [{ nodeId: 0, host: '127.0.0.1', port: this.port, rack: null }],
          clusterId: 'protocol-test-cluster',
          controllerId: 0,
          topics: names.map((n) => this.metadataTopic(n)),
        };
      },
      0: (req) => {
        const responses = req.topicData.map((t) => ({
          name: t.name,
          partitionResponses: t.partitionData.map((p) => {
            const part = this.topics.get(t.name)?.[p.index];
            if (part === undefined) return { index: p.index, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 };
            try {
              const baseOffset = part.append(p.records ?? Buffer.alloc(0));
              return { index: p.index, errorCode: 0, baseOffset, logAppendTimeMs: -1, logStartOffset: 0 };
            } catch {
              return { index: p.index, errorCode: ErrorCode.CORRUPT_MESSAGE.code, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 };
            }
          }),
        }));
        if (req.acks === 0) return NO_RESPONSE;
        return { responses, throttleTimeMs: 0 };
      },
      1: async (req) => {
        const build = (): { responses: { topic: string; partitionResponses: FetchPartitionResponse[] }[]; bytes: number } => {
          let bytes = 0;
          const responses = req.topics.map((t) => ({
            topic: t.topic,
            partitionResponses: t.partitions.map((p): FetchPartitionResponse => {
              const part = this.topics.get(t.topic)?.[p.partition];
              if (part === undefined) {
                return { partition: p.partition, errorCode: 3, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, preferredReadReplica: -1, recordSet: Buffer.alloc(0) };
              }
              if (p.fetchOffset > part.nextOffset || p.fetchOffset < 0) {
                return { partition: p.partition, errorCode: 1, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, preferredReadReplica: -1, recordSet: Buffer.alloc(0) };
              }
              const data = part.read(p.fetchOffset, p.partitionMaxBytes);
              for (const d of data) bytes += d.length;
              return { partition: p.partition, errorCode: 0, highWatermark: part.nextOffset, lastStableOffset: part.nextOffset, logStartOffset: 0, abortedTransactions: [], preferredReadReplica: -1, recordSet: data };
            }),
          }));
          return { responses, bytes };
        };
        let result = build();
        if (result.bytes < Math.max(req.minBytes, 1) && req.maxWaitMs > 0) {
          const parts = req.topics.flatMap((t) => t.partitions.map((p) => this.topics.get(t.topic)?.[p.partition])).filter((p): p is MemoryPartition => p !== undefined);
          const waitMs = Math.min(req.maxWaitMs, this.maxWaitMs);
          await Promise.race([new Promise((r) => setTimeout(r, waitMs)), ...parts.map((p) => p.waitForData(waitMs))]);
          result = build();
        }
        return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: result.responses };
      },
      2: (req) => ({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const part = this.topics.get(t.name)?.[p.partitionIndex];
            if (part === undefined) return { partitionIndex: p.partitionIndex, errorCode: 3, oldStyleOffsets: [], timestamp: -1, offset: -1 };
            let offset: number;
            if (p.timestamp === -1) offset = part.nextOffset;
            else if (p.timestamp === -2) offset = 0;
            else offset = part.batches.find((b) => b.maxTimestamp >= p.timestamp)?.baseOffset ?? -1;
            return { partitionIndex: p.partitionIndex, errorCode: 0, oldStyleOffsets: [offset], timestamp: -1, offset };
          }),
        })),
      }),
      10: () => ({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 0, host: '127.0.0.1', port: this.port }),
      11: (req, ctx) => {
        const memberId = req.memberId !== '' ? req.memberId : `${ctx.header.clientId ?? ''}-${randomUUID()}`;
        this.generation++;
        const protocol = req.protocols[0];
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          generationId: this.generation,
          protocolType: req.protocolType,
          protocolName: protocol?.name ?? '',
          leader: memberId,
          memberId,
          members: [{ memberId, groupInstanceId: null, metadata: protocol?.metadata ?? Buffer.alloc(0) }],
        };
      },
      14: (req) => {
        for (const a of req.assignments) this.assignments.set(a.memberId, Buffer.from(a.assignment));
        return { throttleTimeMs: 0, errorCode: 0, protocolType: req.protocolType, protocolName: req.protocolName, assignment: this.assignments.get(req.memberId) ?? Buffer.alloc(0) };
      },
      12: () => ({ throttleTimeMs: 0, errorCode: 0 }),
      13: (req) => ({ throttleTimeMs: 0, errorCode: 0, members: req.members.map((m) => ({ ...m, errorCode: 0 })) }),
      8: (req) => ({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            this.offsets.set(`${req.groupId}/${t.name}/${p.partitionIndex}`, p.committedOffset);
            return { partitionIndex: p.partitionIndex, errorCode: 0 };
          }),
        })),
      }),
      9: (req) => ({
        throttleTimeMs: 0,
        errorCode: 0,
        topics: (req.topics ?? []).map((t) => ({
          name: t.name,
          partitions: t.partitionIndexes.map((partitionIndex) => ({
            partitionIndex,
            committedOffset: this.offsets.get(`${req.groupId}/${t.name}/${partitionIndex}`) ?? -1,
            committedLeaderEpoch: -1,
            metadata: '',
            errorCode: 0,
          })),
        })),
      }),
      16: () => ({ throttleTimeMs: 0, errorCode: 0, groups: [] }),
      15: (req) => ({
        throttleTimeMs: 0,
        groups: req.groups.map((groupId) => ({ errorCode: 0, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [], authorizedOperations: -2147483648 })),
      }),
      19: (req) => ({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => {
          if (this.topics.has(t.name)) return { name: t.name, errorCode: ErrorCode.TOPIC_ALREADY_EXISTS.code, errorMessage: `Topic '${t.name}' already exists.` };
          if (!req.validateOnly) this.createTopic(t.name, t.numPartitions > 0 ? Math.min(t.numPartitions, 64) : 1);
          return { name: t.name, errorCode: 0, errorMessage: null };
        }),
      }),
      // Inter-broker APIs answered trivially, so real clients see the same ApiVersions table as the real broker's.
      4: () => ({ errorCode: 0, partitionErrors: [] }),
      5: () => ({ errorCode: 0, partitionErrors: [] }),
      6: () => ({ errorCode: 0 }),
      7: () => ({ errorCode: 0, remainingPartitions: [] }),
      23: (req) => ({
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({
          topic: t.topic,
          partitions: t.partitions.map((p) => ({ errorCode: 0, partition: p.partition, leaderEpoch: 0, endOffset: this.topics.get(t.topic)?.[p.partition]?.nextOffset ?? -1 })),
        })),
      }),
      20: (req) => ({
        throttleTimeMs: 0,
        responses: req.topicNames.map((name) => ({ name, errorCode: this.topics.delete(name) ? 0 : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code })),
      }),
    };
  }
}
