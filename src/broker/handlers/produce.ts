import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { RecordValidationError } from '../../common/record-validation-error';
import { getLogger } from '../../common/logging/logging';
import { TopicPartition, tpString } from '../../common/topic-partition';
import { isInternalTopic } from '../../common/topic';
import type { LogAppendInfo } from '../../log';
import { CompressionType, CURRENT_MAGIC, LOG_OVERHEAD, MAGIC_OFFSET, MESSAGE_OVERHEAD_V0, RECORD_BATCH_OVERHEAD, RecordBatch } from '../../records';
import { ProducePartitionResponse, ProduceRequest, ProduceResponse } from '../../protocol/apis/produce';
import { ApiHandler, CLOSE_CONNECTION, NO_RESPONSE } from '../network/api-handler';
import { authorize, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.ReplicaManager');

interface Pending {
  tp: TopicPartition;
  response: ProducePartitionResponse;
  /** The offset every ISR member must have for acks=-1 (last offset + 1). */
  requiredOffset: number;
}

/**
 * Produce: each partition's batch goes to its leader's log as bytes. acks=0 gets no response at all (and a
 * closed connection if anything failed, so the client refreshes its metadata); acks=1 answers after the
 * leader's append; acks=-1 waits until the high watermark passes the batch or the request times out.
 */
export function createProduceHandler(ctx: HandlerContext): ApiHandler<ProduceRequest, ProduceResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    // Kafka's KafkaApis: only the AdminClient's reserved client id may write to internal topics.
    const internalTopicsAllowed = context.header.clientId === ADMIN_CLIENT_ID;
    const acks = request.acks;
    const pending: Pending[] = [];
    const byTopic = new Map<string, ProducePartitionResponse[]>();
    // Every partition's append starts before the first is awaited. Awaiting them one by one serialised their
    // writes (each a round trip to libuv's pool) and, worse, let a later request on the connection append to a
    // partition before this one did, reordering a producer's pipelined batches.
    const appends: { tp: TopicPartition; response: ProducePartitionResponse; bytes: number; append: Promise<LogAppendInfo> }[] = [];
    // Kafka 2.8: transactional batches need Write on the request's transactional id, or the whole request fails
    // with TRANSACTIONAL_ID_AUTHORIZATION_FAILED. Idempotent batches need nothing beyond topic Write (KIP-679).
    if (ctx.authorizer !== undefined && hasTransactionalRecords(request) && (request.transactionalId === null || !authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId))) {
      return acks === 0 ? CLOSE_CONNECTION : everyPartitionFailed(request, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code);
    }
    // Kafka's filterByAuthorized(WRITE, TOPIC): one cached lookup per topic, none without an authorizer.
    const authorized = ctx.authorizer === undefined ? undefined : filterByAuthorized(ctx, context, 'WRITE', 'TOPIC', request.topicData.map((t) => t.name));
    for (const topic of request.topicData) {
      const list: ProducePartitionResponse[] = [];
      byTopic.set(topic.name, list);
      for (const pd of topic.partitionData) {
        const response: ProducePartitionResponse = { index: pd.index, errorCode: ErrorCode.NONE.code, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 };
        list.push(response);
        const tp = { topic: topic.name, partition: pd.index };
        if (authorized !== undefined && !authorized.has(topic.name)) {
          response.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code;
          continue;
        }
        if (acks !== 0 && acks !== 1 && acks !== -1) {
          response.errorCode = ErrorCode.INVALID_REQUIRED_ACKS.code;
          continue;
        }
        try {
          // Kafka's order: an unknown partition first, then the records' format (ProduceRequest.validateRecords),
          // then internal topics (ReplicaManager.appendToLocalLog), then leadership.
          if (ctx.metadataCache.partitionState(tp) === undefined) ctx.replicaManager.leaderPartition(tp);
          let records = pd.records ?? Buffer.alloc(0);
          if (version >= 3) records = validateProduceRecords(version, records);
          if (isInternalTopic(tp.topic) && !internalTopicsAllowed) throw new KafkaError('INVALID_TOPIC_EXCEPTION', `Cannot append to internal topic ${tp.topic}`);
          if (records.length === 0) throw new KafkaError('CORRUPT_MESSAGE', 'Produce request has no records');
          const partition = ctx.replicaManager.leaderPartition(tp);
          appends.push({ tp, response, bytes: records.length, append: partition.appendRecordsToLeader(records, acks) });
        } catch (err) {
          appendFailed(ctx, tp, response, err);
          ctx.brokerTopicStats?.recordFailedAppend(tp.topic, 0);
        }
      }
    }
    const results = await Promise.allSettled(appends.map((a) => a.append));
    // Parked fetches are woken once every partition of the request is appended, not one partition at a time
    // (Kafka 2.8 completes delayed fetches from its ActionQueue after the whole append): a follower fetching
    // several partitions of this request then gets them in one response rather than in one fetch round each.
    results.forEach((result, i) => {
      if (result.status === 'fulfilled') ctx.replicaManager.watchers.notify((appends[i] as (typeof appends)[number]).tp);
    });
    const stats = ctx.brokerTopicStats;
    results.forEach((result, i) => {
      const { tp, response, bytes } = appends[i] as (typeof appends)[number];
      if (result.status === 'rejected') {
        appendFailed(ctx, tp, response, result.reason);
        // Kafka's appendToLocalLog: a record the log refused counts the batch's bytes as rejected.
        stats?.recordFailedAppend(tp.topic, result.reason instanceof RecordValidationError ? bytes : 0);
        return;
      }
      const info = result.value;
      // The batch's size and the record count its header gave the log (Kafka's bytesIn and messagesIn marks).
      stats?.recordAppend(tp.topic, bytes, info.numMessages);
      response.baseOffset = info.firstOffset;
      response.logAppendTimeMs = info.logAppendTime;
      response.logStartOffset = info.logStartOffset;
      pending.push({ tp, response, requiredOffset: info.lastOffset + 1 });
    });
    // A produce to an unknown topic creates it when auto.create.topics.enable is set; this request still gets
    // UNKNOWN_TOPIC_OR_PARTITION, which clients retry after refreshing their metadata.
    if (ctx.config.get('auto.create.topics.enable')) {
      for (const [name, list] of byTopic) {
        if (list.some((p) => p.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code) && !ctx.metadataCache.contains(name)) await ctx.autoTopicCreation.unknownTopicError(name, true);
      }
    }
    const responses = [...byTopic].map(([name, partitionResponses]) => ({ name, partitionResponses }));
    // The whole request counts against producer_byte_rate, acks=0 included (Kafka's KafkaApis.handleProduceRequest).
    const throttleTimeMs = ctx.quotas.produce.recordAndGetThrottleTimeMs(context.header.clientId ?? '', context.requestSize, undefined, context.connection.principal.name);
    context.throttleTimeMs = throttleTimeMs;
    if (acks === 0) return responses.some((t) => t.partitionResponses.some((p) => p.errorCode !== ErrorCode.NONE.code)) ? CLOSE_CONNECTION : NO_RESPONSE;
    if (acks === -1) await awaitReplication(ctx, pending, request.timeoutMs);
    return { responses, throttleTimeMs };
  };
}

/**
 * Kafka's ProduceRequest.hasTransactionalRecords: a partition's first batch (magic 2) with the transactional bit.
 * One header read per partition, and only when an authorizer is configured.
 */
function hasTransactionalRecords(request: ProduceRequest): boolean {
  return request.topicData.some((t) =>
    t.partitionData.some((pd) => {
      const records = pd.records;
      return records !== null && records !== undefined && records.length >= RECORD_BATCH_OVERHEAD && records.readInt8(MAGIC_OFFSET) === CURRENT_MAGIC && new RecordBatch(records).isTransactional;
    }),
  );
}

/** Kafka's ProduceRequest.getErrorResponse: the same error for every partition of the request. */
function everyPartitionFailed(request: ProduceRequest, errorCode: number): ProduceResponse {
  return {
    throttleTimeMs: 0,
    responses: request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((pd) => ({ index: pd.index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 })),
    })),
  };
}

/** The client id Kafka's AdminClient reserves (AdminUtils.AdminClientId): its produce may write internal topics. */
const ADMIN_CLIENT_ID = '__admin_client';

/**
 * Kafka's ProduceRequest.validateRecords (run per partition by KafkaApis from Produce v3 on): exactly one
 * complete batch, of magic 2 (legacy message sets only travel in v0-v2), and no zstd before v7. Errors are the
 * partition's: INVALID_RECORD, UNSUPPORTED_COMPRESSION_TYPE, or CORRUPT_MESSAGE for a size or magic field no
 * batch can have (Kafka's batch iterator throws CorruptRecordException there). Like Kafka's log, which appends
 * only the complete batches it iterated, an incomplete tail after the batch is dropped.
 */
function validateProduceRecords(version: number, records: Buffer): Buffer {
  const first = completeBatchSize(records, 0);
  if (first === undefined) throw new KafkaError('INVALID_RECORD', `Produce requests with version ${version} must have at least one record batch`);
  if (records.readInt8(MAGIC_OFFSET) !== CURRENT_MAGIC) {
    throw new KafkaError('INVALID_RECORD', `Produce requests with version ${version} are only allowed to contain record batches with magic version 2`);
  }
  if (version < 7 && first >= RECORD_BATCH_OVERHEAD && new RecordBatch(records).compressionId === CompressionType.ZSTD) {
    throw new KafkaError('UNSUPPORTED_COMPRESSION_TYPE', `Produce requests with version ${version} are not allowed to use ZStandard compression`);
  }
  if (completeBatchSize(records, first) !== undefined) {
    throw new KafkaError('INVALID_RECORD', `Produce requests with version ${version} are only allowed to contain exactly one record batch`);
  }
  return first === records.length ? records : records.subarray(0, first);
}

/** ByteBufferLogInputStream.nextBatch: the size of the complete batch at `pos`, or undefined if there is none. */
function completeBatchSize(records: Buffer, pos: number): number | undefined {
  const remaining = records.length - pos;
  if (remaining < LOG_OVERHEAD) return undefined;
  const size = records.readInt32BE(pos + 8);
  if (size < MESSAGE_OVERHEAD_V0) throw new KafkaError('CORRUPT_MESSAGE', `Record size ${size} is less than the minimum record overhead (${MESSAGE_OVERHEAD_V0})`);
  if (remaining < MAGIC_OFFSET + 1) return undefined;
  const magic = records.readInt8(pos + MAGIC_OFFSET);
  if (magic < 0 || magic > CURRENT_MAGIC) throw new KafkaError('CORRUPT_MESSAGE', `Invalid magic found in record: ${magic}`);
  return remaining < LOG_OVERHEAD + size ? undefined : LOG_OVERHEAD + size;
}

/**
 * A partition's failed append. Records LogValidator rejected one by one (Kafka's RecordValidationException) answer,
 * as Kafka's ReplicaManager does, with the log start offset, each record's index and reason (Produce v8+, KIP-467)
 * and the error message; other errors carry no message.
 */
function appendFailed(ctx: HandlerContext, tp: TopicPartition, response: ProducePartitionResponse, err: unknown): void {
  response.errorCode = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
  if (err instanceof RecordValidationError) {
    response.recordErrors = err.recordErrors.map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message }));
    response.errorMessage = err.message;
    response.logStartOffset = ctx.replicaManager.getPartition(tp)?.log?.logStartOffset ?? -1;
  }
  if (err instanceof KafkaError && PRODUCER_STATE_ERRORS.has(err.code)) {
    // Kafka's processFailedRecord: logged, and answered with the log start offset (the producer compares it with
    // its last acknowledged offset to tell lost state from a real gap).
    response.logStartOffset = ctx.replicaManager.getPartition(tp)?.log?.logStartOffset ?? -1;
    log.error(`Error processing append operation on partition ${tpString(tp)}`, err);
  }
  if (!(err instanceof KafkaError)) log.error(`Error processing append operation on partition ${tpString(tp)}`, err);
}

/** What the producer state refuses (ProducerAppendInfo's exceptions, which Kafka's ReplicaManager logs). */
const PRODUCER_STATE_ERRORS: ReadonlySet<number> = new Set(
  (['OUT_OF_ORDER_SEQUENCE_NUMBER', 'INVALID_PRODUCER_EPOCH', 'INVALID_TXN_STATE', 'TRANSACTION_COORDINATOR_FENCED'] as const).map((n) => ErrorCode[n].code),
);

/**
 * Kafka's DelayedProduce: done when every partition's high watermark reaches its batch (with
 * NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR has meanwhile shrunk below min.insync.replicas), when the partition
 * is no longer led here, or at the timeout.
 */
async function awaitReplication(ctx: HandlerContext, pending: Pending[], timeoutMs: number): Promise<void> {
  const deadline = ctx.clock.nowMs() + timeoutMs;
  for (;;) {
    const waiting = pending.filter((p) => {
      if (p.response.errorCode !== ErrorCode.NONE.code) return false;
      const partition = ctx.replicaManager.getPartition(p.tp);
      const check = partition === undefined ? ({ done: true, error: 'NOT_LEADER_OR_FOLLOWER' } as const) : partition.checkEnoughReplicasReachOffset(p.requiredOffset);
      if (!check.done) return true;
      if (check.error !== undefined) p.response.errorCode = ErrorCode[check.error].code;
      return false;
    });
    if (waiting.length === 0) return;
    const changed = await ctx.replicaManager.watchers.waitForChange(waiting.map((p) => p.tp), deadline - ctx.clock.nowMs());
    if (!changed && ctx.clock.nowMs() >= deadline) {
      for (const p of waiting) if (p.response.errorCode === ErrorCode.NONE.code) p.response.errorCode = ErrorCode.REQUEST_TIMED_OUT.code;
      return;
    }
  }
}
