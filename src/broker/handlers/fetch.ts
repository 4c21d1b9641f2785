import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { TopicPartition, tpString } from '../../common/topic-partition';
import { FetchPartitionResponse, FetchRequest, FetchResponse } from '../../protocol/apis/fetch';
import type { LogConfig } from '../../common/config/log-config';
import { downConvertUntilError, inflateCap } from '../../records';
import { ApiHandler, RequestContext } from '../network/api-handler';
import { authorizeCluster, filterByAuthorized } from './auth-helper';
import { HandlerContext } from './handler-context';
import { divergingEpoch } from '../diverging-epoch';
import type { Partition } from '../partition';

const log = getLogger('kafka.server.ReplicaManager');

const EMPTY = Buffer.alloc(0);
/** IsolationLevel.READ_COMMITTED's wire value. */
const READ_COMMITTED = 1;

interface Slot {
  key: string;
  tp: TopicPartition;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  /** Fetch v12's epoch of the fetcher's last record (-1: not checked). */
  lastFetchedEpoch: number;
  /** The fetcher's log start offset (Fetch v5+; -1 from consumers and older versions). */
  logStartOffset: number;
  response: FetchPartitionResponse;
}

/**
 * Fetch: whole stored batches as bytes from the leader's log, up to the high watermark for consumers and the
 * log end offset for followers (replicaId >= 0, whose fetch offsets advance the leader's view of them). The
 * response never exceeds fetch.max.bytes for consumers (replica.fetch.response.max.bytes for followers), whatever
 * the request asks, and for v0-v2, which ask nothing. A partition named twice is answered once. A fetch with less
 * than minBytes available waits up to maxWait (Kafka's DelayedFetch) holding only its offsets: it checks the
 * log's positions when woken and reads once, when it completes. Versions below 4 get the old message formats
 * their clients understand. Which partitions are read and answered comes from the request's fetch session
 * (KIP-227, `../fetch-manager.ts`): all of a sessionless or full fetch; for an incremental one, all of the
 * session's partitions are read and only those with news answered.
 */
export function createFetchHandler(ctx: HandlerContext): ApiHandler<FetchRequest, FetchResponse> {
  const consumerMaxBytes = ctx.config.get('fetch.max.bytes');
  const followerMaxBytes = ctx.config.get('replica.fetch.response.max.bytes');
  return async (request, context) => {
    const version = context.header.apiVersion;
    const isFollower = request.replicaId >= 0;
    // Kafka's FetchIsolation: followers read to the log end, read_committed consumers to the LSO, others to the HW.
    const readCommitted = !isFollower && version >= 4 && request.isolationLevel === READ_COMMITTED;
    const fetchContext = ctx.fetchManager.newContext(request, version, isFollower);
    if (fetchContext.errorCode !== ErrorCode.NONE.code) return { throttleTimeMs: 0, errorCode: fetchContext.errorCode, sessionId: 0, responses: [] };
    const all: Slot[] = fetchContext.partitions.map((p) => ({ ...p, response: emptyResponse(p.tp.partition) }));
    // Kafka's handleFetchRequest: a follower needs ClusterAction on the cluster, a consumer Read on each topic;
    // refused partitions answer TOPIC_AUTHORIZATION_FAILED and are neither read nor counted as follower state.
    const slots = ctx.authorizer === undefined ? all : authorizedSlots(ctx, context, all, isFollower);
    if (isFollower) for (const s of slots) updateFollower(ctx, request.replicaId, s);
    const asked = version >= 3 ? request.maxBytes : Number.MAX_SAFE_INTEGER;
    const clientId = context.header.clientId ?? '';
    // A consumer never asks more than its quota lets it have in one window: more would throttle it for sure.
    const maxBytes = isFollower ? Math.min(asked, followerMaxBytes) : Math.min(asked, consumerMaxBytes, ctx.quotas.fetch.maxValueInQuotaWindow(clientId));
    const minBytes = Math.max(request.minBytes, 1);
    // Kafka's shouldLeaderThrottle: without throttled partitions (the usual case) nothing is looked at.
    const leaderQuota = isFollower && ctx.replicaManager.replicationQuotas.leader.isActive ? ctx.replicaManager.replicationQuotas.leader : undefined;
    const throttle = leaderQuota === undefined ? undefined : (partition: Partition, tp: TopicPartition): boolean => !partition.isr.includes(request.replicaId) && leaderQuota.isThrottled(tp) && leaderQuota.isQuotaExceeded();
    let bytes = readAll(ctx, slots, maxBytes, version, isFollower, readCommitted, throttle);
    // An error or a diverging log is answered at once (Kafka's fetchMessages: errorReadingData, hasDivergingEpoch).
    // Nothing left to read once authorization refused every partition: Kafka answers without parking.
    const answerNow = (slots.length === 0 && all.length > 0) || slots.some((s) => s.response.errorCode !== ErrorCode.NONE.code || s.response.divergingEpoch);
    if (bytes < minBytes && !answerNow && request.maxWaitMs > 0) {
      // Parked: let go of what was read; only offsets are held while waiting.
      for (const s of slots) s.response.recordSet = EMPTY;
      const satisfied = (): boolean => availableBytes(ctx, slots, isFollower, readCommitted, minBytes, version, throttle) >= minBytes;
      await ctx.replicaManager.watchers.waitUntil(satisfied, slots.map((s) => s.tp), request.maxWaitMs);
      bytes = readAll(ctx, slots, maxBytes, version, isFollower, readCommitted, throttle);
    }
    // KafkaApis.sizeOfThrottledPartitions: what throttled partitions send counts towards the leader rate.
    if (leaderQuota !== undefined) {
      let throttledBytes = 0;
      for (const s of slots) if (leaderQuota.isThrottled(s.tp)) throttledBytes += s.response.recordSet?.length ?? 0;
      if (throttledBytes > 0) leaderQuota.record(throttledBytes);
    }
    if (!isFollower) {
      const throttleTimeMs = ctx.quotas.fetch.recordAndGetThrottleTimeMs(clientId, bytes, undefined, context.connection.principal.name);
      if (throttleTimeMs > 0) {
        // Over consumer_byte_rate: an empty answer, and the bytes not sent are not counted (Kafka's unrecord).
        ctx.quotas.fetch.unrecord(clientId, bytes, undefined, context.connection.principal.name);
        context.throttleTimeMs = throttleTimeMs;
        return { throttleTimeMs, ...fetchContext.throttled(), responses: [] };
      }
    }
    const stats = ctx.brokerTopicStats;
    if (stats !== undefined) {
      // Once per partition of the answer: a follower's bytes are replication traffic, not BytesOut (Kafka's
      // updateBytesOut), and the record set is counted as the bytes it is, never record by record.
      for (const s of slots) stats.recordRead(s.tp.topic, isFollower ? 0 : recordsBytes(s.response.recordSet), s.response.errorCode !== ErrorCode.NONE.code);
    }
    // A session's answer holds only the partitions with something new (all of them for a full fetch).
    const answer = fetchContext.respond(all);
    const byTopic = new Map<string, FetchPartitionResponse[]>();
    for (const s of answer.partitions) {
      let list = byTopic.get(s.tp.topic);
      if (!list) byTopic.set(s.tp.topic, (list = []));
      list.push(s.response);
    }
    return {
      throttleTimeMs: 0,
      errorCode: answer.errorCode,
      sessionId: answer.sessionId,
      responses: [...byTopic].map(([topic, partitionResponses]) => ({ topic, partitionResponses })),
    };
  };
}

function authorizedSlots(ctx: HandlerContext, context: RequestContext, all: Slot[], isFollower: boolean): Slot[] {
  const allowed = isFollower
    ? authorizeCluster(ctx, context, 'CLUSTER_ACTION')
      ? undefined
      : new Set<string>()
    : filterByAuthorized(ctx, context, 'READ', 'TOPIC', all.map((s) => s.tp.topic));
  if (allowed === undefined) return all;
  const readable: Slot[] = [];
  for (const s of all) {
    if (allowed.has(s.tp.topic)) readable.push(s);
    else s.response.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED.code;
  }
  return readable;
}

/** The bytes of a response's record set (one buffer, or down-converted chunks). */
function recordsBytes(records: FetchPartitionResponse['recordSet']): number {
  if (records === null) return 0;
  if (Buffer.isBuffer(records)) return records.length;
  let n = 0;
  for (const b of records as readonly Buffer[]) n += b.length;
  return n;
}

function emptyResponse(partition: number): FetchPartitionResponse {
  return { partition, errorCode: ErrorCode.NONE.code, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, preferredReadReplica: -1, recordSet: EMPTY };
}

/**
 * A follower's fetch offset is its log end offset: the leader may move its high watermark and ISR. Its log start
 * offset moves the low watermark (Kafka's updateFollowerFetchState: leaderLWIncremented).
 */
function updateFollower(ctx: HandlerContext, replicaId: number, s: Slot): void {
  const partition = ctx.replicaManager.getPartition(s.tp);
  if (partition === undefined || !partition.isLeader || partition.log === undefined) return;
  // A replica on another leader epoch may hold a diverging log: its offset says nothing about ours.
  if (s.currentLeaderEpoch >= 0 && s.currentLeaderEpoch !== partition.leaderEpoch) return;
  // Beyond our log end the follower's log diverges (it will truncate after OFFSET_OUT_OF_RANGE): not in sync.
  if (s.fetchOffset > partition.logEndOffset) return;
  // Nor is a follower told its log diverges (Kafka's updateFollowerFetchState skips it).
  const logRef = partition.log;
  if (divergingEpoch((e) => logRef.endOffsetForEpoch(e), s.lastFetchedEpoch, s.fetchOffset) !== null) return;
  // Only this follower's log start offset can move the low watermark here: the walk over the followers is done
  // only when it changed (rarely: after a DeleteRecords), not on every fetch of every partition.
  const startMoved = partition.followers.get(replicaId)?.logStartOffset !== s.logStartOffset;
  const isAlive = (id: number): boolean => ctx.metadataCache.isBrokerAlive(id);
  const lowBefore = startMoved ? partition.lowWatermarkIfLeader(isAlive) : 0;
  const hwMoved = partition.updateFollowerFetchState(replicaId, s.fetchOffset, s.logStartOffset);
  // A moved high watermark completes acks=-1 produces and fetches; a moved low watermark, DeleteRecords.
  if (hwMoved || (startMoved && partition.lowWatermarkIfLeader(isAlive) !== lowBefore)) ctx.replicaManager.watchers.notify(s.tp);
}

/**
 * Kafka 2.8's ReplicaManager.fetchMessages: followers, and consumers without client metadata (Fetch below v11),
 * read the leader only; a v11+ consumer may read any replica (KIP-392), as ReplicaVerificationTool does.
 */
function fetchOnlyFromLeader(isFollower: boolean, version: number): boolean {
  return isFollower || version < 11;
}

/** KIP-320: a replica that knows another leader epoch than ours is fenced (older) or must wait (newer). */
function checkLeaderEpoch(currentLeaderEpoch: number, leaderEpoch: number): void {
  if (currentLeaderEpoch < 0) return;
  if (currentLeaderEpoch < leaderEpoch) throw new KafkaError('FENCED_LEADER_EPOCH');
  if (currentLeaderEpoch > leaderEpoch) throw new KafkaError('UNKNOWN_LEADER_EPOCH');
}

/**
 * What a parked fetch may answer with now, from log positions only (Kafka's DelayedFetch.tryComplete): a
 * partition that errors (no longer led here, fenced, out of range) completes it too, so it counts as enough.
 */
function availableBytes(ctx: HandlerContext, slots: readonly Slot[], isFollower: boolean, readCommitted: boolean, needed: number, version: number, throttle: LeaderThrottle | undefined): number {
  let total = 0;
  for (const s of slots) {
    try {
      const partition = ctx.replicaManager.localPartition(s.tp, fetchOnlyFromLeader(isFollower, version));
      checkLeaderEpoch(s.currentLeaderEpoch, partition.leaderEpoch);
      const logRef = partition.log as NonNullable<typeof partition.log>;
      const end = isFollower ? logRef.logEndOffset : readCommitted ? logRef.lastStableOffset : partition.highWatermark;
      if (s.fetchOffset > logRef.logEndOffset || s.fetchOffset < logRef.logStartOffset) return needed;
      // A throttled partition over the leader rate adds nothing (Kafka's DelayedFetch.tryComplete).
      if (end > s.fetchOffset && throttle?.(partition, s.tp) !== true) total += logRef.bytesAvailable(s.fetchOffset, end, needed - total);
    } catch {
      return needed;
    }
    if (total >= needed) break;
  }
  return total;
}

/** Partitions and batch offsets whose down-conversion failure was logged (bounded; cleared when full). */
const loggedConversionFailures = new Set<string>();

/**
 * Fetch v0-v3 readers get legacy message sets (Kafka's maybeConvertFetchedData + LazyDownConversionRecords).
 * A topic with message.downconversion.enable=false answers UNSUPPORTED_VERSION to such consumers. A stored
 * batch that cannot be converted (zstd: UNSUPPORTED_COMPRESSION_TYPE; records that do not parse, undecodable or
 * oversized compressed data: CORRUPT_MESSAGE) fails this partition only, with Kafka's empty error response
 * (offsets -1); batches before it in the read are returned first, so the reader advances up to the bad one.
 * Conversion inflates at most the topic's decompression cap. Returns undefined when the slot got an error.
 */
function downConvertForOldFetcher(s: Slot, records: Buffer, version: number, isFollower: boolean, config: LogConfig): Buffer | undefined {
  const fail = (code: number): undefined => {
    s.response = { ...emptyResponse(s.tp.partition), errorCode: code };
    return undefined;
  };
  if (!isFollower && !config.messageDownconversionEnable) return fail(ErrorCode.UNSUPPORTED_VERSION.code);
  try {
    return downConvertUntilError(records, version < 2 ? 0 : 1, s.fetchOffset, inflateCap(config.maxMessageBytes)).records;
  } catch (err) {
    if (!(err instanceof KafkaError)) throw err;
    const key = `${tpString(s.tp)}@${s.fetchOffset}`;
    if (!loggedConversionFailures.has(key)) {
      if (loggedConversionFailures.size >= 1000) loggedConversionFailures.clear();
      loggedConversionFailures.add(key);
      log.warn(`Cannot down-convert records of partition ${tpString(s.tp)} from offset ${s.fetchOffset} for a fetch v${version}: ${err.message}`);
    }
    return fail(err.code);
  }
}

/** Whether a follower's read of a partition is left empty for the leader replication quota. */
type LeaderThrottle = (partition: Partition, tp: TopicPartition) => boolean;

function readAll(ctx: HandlerContext, slots: Slot[], maxBytes: number, version: number, isFollower: boolean, readCommitted: boolean, throttle: LeaderThrottle | undefined): number {
  let total = 0;
  for (const s of slots) {
    s.response = emptyResponse(s.tp.partition);
    try {
      const partition = ctx.replicaManager.localPartition(s.tp, fetchOnlyFromLeader(isFollower, version));
      checkLeaderEpoch(s.currentLeaderEpoch, partition.leaderEpoch);
      const logRef = partition.log as NonNullable<typeof partition.log>;
      const hw = partition.highWatermark;
      const lso = logRef.lastStableOffset;
      s.response.highWatermark = hw;
      s.response.lastStableOffset = lso;
      // read_committed answers list the aborted transactions in range, even when there are none (Kafka: Some(Nil)).
      if (readCommitted) s.response.abortedTransactions = [];
      s.response.logStartOffset = logRef.logStartOffset;
      // Before the offset's range is checked, as Kafka's Partition.readRecords: a diverging follower truncates.
      const diverging = divergingEpoch((e) => logRef.endOffsetForEpoch(e), s.lastFetchedEpoch, s.fetchOffset);
      if (diverging !== null) {
        s.response.divergingEpoch = diverging;
        continue;
      }
      // Kafka's readFromLocalLog: a throttled partition over the rate answers its offsets with no records.
      if (throttle?.(partition, s.tp) === true) continue;
      const budget = Math.min(s.partitionMaxBytes, Math.max(0, maxBytes - total));
      if (budget <= 0 && total > 0) continue;
      const data = logRef.read(s.fetchOffset, Math.max(budget, 1), isFollower ? undefined : readCommitted ? lso : hw, total === 0);
      let records = data.records;
      if (readCommitted && records.length > 0) s.response.abortedTransactions = logRef.abortedTransactionsInRead(data, lso).map((t) => ({ producerId: t.producerId, firstOffset: t.firstOffset }));
      if (version < 4 && records.length > 0) {
        const converted = downConvertForOldFetcher(s, records, version, isFollower, logRef.config);
        if (converted === undefined) continue;
        records = converted;
      }
      s.response.recordSet = records;
      total += records.length;
    } catch (err) {
      s.response.errorCode = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code;
      if (!(err instanceof KafkaError)) log.error(`Error processing fetch with max size ${s.partitionMaxBytes} from consumer on partition ${tpString(s.tp)}`, err);
    }
  }
  return total;
}
