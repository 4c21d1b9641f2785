import { ErrorCode } from '../common/error-codes';
import { getLogger } from '../common/logging/logging';
import { TopicPartition, tpKey } from '../common/topic-partition';
import { Clock } from '../common/time';
import { FetchPartitionResponse, FetchRequest } from '../protocol/apis/fetch';
import { CachedPartition, FetchSession, FetchSessionCache, FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from './fetch-session-cache';

const log = getLogger('kafka.server.FetchManager');

/** What a fetch asks of one partition, from the request or, for an incremental fetch, from its session. */
export interface FetchPartitionData {
  readonly key: string;
  readonly tp: TopicPartition;
  readonly fetchOffset: number;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
  /** Fetch v12's last fetched epoch (-1: none, no divergence check). */
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: number;
}

/** A partition as read for the response. */
export interface AnsweredPartition {
  readonly key: string;
  readonly response: FetchPartitionResponse;
}

/**
 * One fetch request's view of its session (Kafka's FetchContext): which partitions to read, and which of those
 * to answer with which session id.
 */
export interface FetchContext {
  /** A session error (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH): answered alone, nothing read. */
  readonly errorCode: number;
  readonly partitions: readonly FetchPartitionData[];
  /** The partitions to put in the response, the session brought up to date with them. */
  respond<T extends AnsweredPartition>(answered: readonly T[]): { errorCode: number; sessionId: number; partitions: T[] };
  /** The session part of an empty, throttled response. */
  throttled(): { errorCode: number; sessionId: number };
}

/** The request's partitions, each once (a partition named twice keeps its first place and its last data). */
function requestPartitions(request: FetchRequest): Map<string, FetchPartitionData> {
  const byKey = new Map<string, FetchPartitionData>();
  for (const t of request.topics) {
    for (const p of t.partitions) {
      const key = tpKey(t.topic, p.partition);
      // Map.set keeps an existing key's place, as Kafka's LinkedHashMap put does.
      byKey.set(key, { key, tp: { topic: t.topic, partition: p.partition }, fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch ?? -1, logStartOffset: p.logStartOffset });
    }
  }
  return byKey;
}

function cached(p: FetchPartitionData, response?: FetchPartitionResponse): CachedPartition {
  return {
    tp: p.tp,
    fetchOffset: p.fetchOffset,
    partitionMaxBytes: p.partitionMaxBytes,
    currentLeaderEpoch: p.currentLeaderEpoch,
    lastFetchedEpoch: p.lastFetchedEpoch,
    fetcherLogStartOffset: p.logStartOffset,
    highWatermark: response?.highWatermark ?? -1,
    localLogStartOffset: response?.logStartOffset ?? -1,
  };
}

function fromCache(key: string, c: CachedPartition): FetchPartitionData {
  return { key, tp: c.tp, fetchOffset: c.fetchOffset, partitionMaxBytes: c.partitionMaxBytes, currentLeaderEpoch: c.currentLeaderEpoch, lastFetchedEpoch: c.lastFetchedEpoch, logStartOffset: c.fetcherLogStartOffset };
}

/**
 * Whether a partition of an incremental fetch goes into the response (Kafka's maybeUpdateResponseData): new
 * records, another high watermark or log start offset, or an error; what is sent becomes the cached view.
 */
function mustRespond(c: CachedPartition, r: FetchPartitionResponse): boolean {
  let must = r.recordSet !== null && (Array.isArray(r.recordSet) ? r.recordSet.some((b) => b.length > 0) : r.recordSet.length > 0);
  if (c.highWatermark !== r.highWatermark) {
    must = true;
    c.highWatermark = r.highWatermark;
  }
  if (c.localLogStartOffset !== r.logStartOffset) {
    must = true;
    c.localLogStartOffset = r.logStartOffset;
  }
  if (r.preferredReadReplica >= 0) must = true;
  // A diverging log must hear it, whatever else changed (the follower truncates on it).
  if (r.divergingEpoch) must = true;
  if (r.errorCode !== ErrorCode.NONE.code) {
    // Sent again once the error clears, whatever its high watermark then.
    c.highWatermark = -1;
    must = true;
  }
  return must;
}

const noSession = { errorCode: ErrorCode.NONE.code, sessionId: INVALID_SESSION_ID };

function sessionless(partitions: FetchPartitionData[]): FetchContext {
  return { errorCode: ErrorCode.NONE.code, partitions, respond: (answered) => ({ ...noSession, partitions: [...answered] }), throttled: () => noSession };
}

function sessionError(errorCode: number): FetchContext {
  return { errorCode, partitions: [], respond: () => ({ errorCode, sessionId: INVALID_SESSION_ID, partitions: [] }), throttled: () => ({ errorCode, sessionId: INVALID_SESSION_ID }) };
}

/**
 * KIP-227's incremental fetch sessions on the broker side (Kafka's FetchManager). A fetch with epoch 0 is full and
 * opens a session (if the cache has room); one with a later epoch names only the partitions whose fetch data
 * changed (and those to forget), is read over all the session's partitions, and is answered with only those that
 * have something new. Epoch -1, or a version below 7, is sessionless, as before sessions existed.
 */
export class FetchManager {
  constructor(
    private readonly clock: Clock,
    readonly cache: FetchSessionCache,
  ) {}

  newContext(request: FetchRequest, version: number, isFollower: boolean): FetchContext {
    const data = requestPartitions(request);
    if (version < 7) return sessionless([...data.values()]);
    const { sessionId, sessionEpoch } = request;
    if (sessionEpoch === INITIAL_EPOCH || sessionEpoch === FINAL_EPOCH) {
      // A full fetch closes the session it names.
      if (sessionId !== INVALID_SESSION_ID && this.cache.remove(sessionId) !== undefined) log.debug(`Removed fetch session ${sessionId}.`);
      return sessionEpoch === FINAL_EPOCH ? sessionless([...data.values()]) : this.full([...data.values()], isFollower);
    }
    const session = this.cache.get(sessionId);
    if (session === undefined) {
      log.debug(`Session error for ${sessionId}: no such session ID found.`);
      return sessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code);
    }
    if (session.epoch !== sessionEpoch) {
      log.debug(`Session error for ${sessionId}: expected epoch ${session.epoch}, but got ${sessionEpoch} instead.`);
      return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code);
    }
    for (const [key, p] of data) {
      const c = session.partitions.get(key);
      if (c === undefined) session.partitions.set(key, cached(p));
      else Object.assign(c, { fetchOffset: p.fetchOffset, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: p.currentLeaderEpoch, lastFetchedEpoch: p.lastFetchedEpoch, fetcherLogStartOffset: p.logStartOffset });
    }
    for (const t of request.forgottenTopicsData) for (const partition of t.partitions) session.partitions.delete(tpKey(t.topic, partition));
    if (session.partitions.size === 0) {
      log.debug(`Created a new sessionless FetchContext and closing session id ${session.id}, epoch ${session.epoch}: there are no more partitions left.`);
      this.cache.remove(session.id);
      return sessionless([...data.values()]);
    }
    this.cache.touch(session, this.clock.nowMs());
    session.epoch = nextEpoch(session.epoch);
    return this.incremental(session, session.epoch);
  }

  private full(partitions: FetchPartitionData[], isFollower: boolean): FetchContext {
    return {
      errorCode: ErrorCode.NONE.code,
      partitions,
      respond: (answered) => {
        const responses = new Map(answered.map((a) => [a.key, a.response]));
        const build = (): Map<string, CachedPartition> => new Map(partitions.map((p) => [p.key, cached(p, responses.get(p.key))]));
        const sessionId = this.cache.maybeCreateSession(this.clock.nowMs(), isFollower, build, partitions.length);
        return { errorCode: ErrorCode.NONE.code, sessionId, partitions: [...answered] };
      },
      throttled: () => noSession,
    };
  }

  private incremental(session: FetchSession, expectedEpoch: number): FetchContext {
    // Another request of the same session got in between (a duplicate): this one's answer is void.
    const raced = (): boolean => session.epoch !== expectedEpoch;
    const stale = (): { errorCode: number; sessionId: number } => {
      log.info(`Incremental fetch session ${session.id} expected epoch ${expectedEpoch}, but got ${session.epoch}.  Possible duplicate request.`);
      return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH.code, sessionId: session.id };
    };
    return {
      errorCode: ErrorCode.NONE.code,
      partitions: [...session.partitions].map(([key, c]) => fromCache(key, c)),
      respond: (answered) => {
        if (raced()) return { ...stale(), partitions: [] };
        const selected = answered.filter((a) => {
          const c = session.partitions.get(a.key);
          if (c === undefined || !mustRespond(c, a.response)) return false;
          // To the back of the session's order, so partitions left out by fetch.max.bytes come first next time.
          session.partitions.delete(a.key);
          session.partitions.set(a.key, c);
          return true;
        });
        return { errorCode: ErrorCode.NONE.code, sessionId: session.id, partitions: selected };
      },
      throttled: () => (raced() ? stale() : { errorCode: ErrorCode.NONE.code, sessionId: session.id }),
    };
  }
}
