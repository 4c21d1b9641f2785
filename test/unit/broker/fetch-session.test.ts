import { ErrorCode } from '../../../src/common/error-codes';
import { tpKey } from '../../../src/common/topic-partition';
import { FetchManager } from '../../../src/broker/fetch-manager';
import { CachedPartition, FetchSessionCache, INVALID_SESSION_ID, nextEpoch } from '../../../src/broker/fetch-session-cache';
import { FetchSessionHandler, SessionPartitionData } from '../../../src/broker/replica-fetcher/fetch-session-handler';
import { FetchPartitionResponse, FetchRequest, FetchResponse } from '../../../src/protocol/apis/fetch';
import { MockClock } from '../../helpers/mock-clock';

const EVICTION_MS = 120000;

function partitions(n: number): () => Map<string, CachedPartition> {
  return () => {
    const m = new Map<string, CachedPartition>();
    for (let i = 0; i < n; i++) {
      m.set(tpKey('t', i), { tp: { topic: 't', partition: i }, fetchOffset: 0, partitionMaxBytes: 1024, currentLeaderEpoch: 0, lastFetchedEpoch: -1, fetcherLogStartOffset: 0, highWatermark: 0, localLogStartOffset: 0 });
    }
    return m;
  };
}

function request(sessionId: number, sessionEpoch: number, parts: { topic: string; partition: number; fetchOffset: number }[], forgotten: { topic: string; partitions: number[] }[] = []): FetchRequest {
  const topics = new Map<string, FetchRequest['topics'][number]>();
  for (const p of parts) {
    let t = topics.get(p.topic);
    if (t === undefined) topics.set(p.topic, (t = { topic: p.topic, partitions: [] }));
    t.partitions.push({ partition: p.partition, currentLeaderEpoch: 0, fetchOffset: p.fetchOffset, logStartOffset: 0, partitionMaxBytes: 1024 });
  }
  return { replicaId: 1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId, sessionEpoch, topics: [...topics.values()], forgottenTopicsData: forgotten, rackId: '' };
}

function answer(partition: number, hw: number, records = 0, errorCode: number = ErrorCode.NONE.code): FetchPartitionResponse {
  return { partition, errorCode, highWatermark: hw, lastStableOffset: hw, logStartOffset: 0, abortedTransactions: null, preferredReadReplica: -1, recordSet: Buffer.alloc(records) };
}

describe('nextEpoch', () => {
  it('counts up from 0 and wraps to 1, keeping the final epoch', () => {
    expect(nextEpoch(0)).toBe(1);
    expect(nextEpoch(41)).toBe(42);
    expect(nextEpoch(0x7fffffff)).toBe(1);
    expect(nextEpoch(-1)).toBe(-1);
  });
});

describe('FetchSessionCache', () => {
  it('creates sessions with distinct positive ids up to its size, then refuses a peer of the same rank', () => {
    const cache = new FetchSessionCache(3, EVICTION_MS);
    const ids = [1, 2, 3].map(() => cache.maybeCreateSession(0, false, partitions(2), 2));
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id).toBeGreaterThan(0);
    expect(cache.totalPartitions).toBe(6);
    // Young sessions of consumers: another consumer's session cannot displace them.
    expect(cache.maybeCreateSession(1000, false, partitions(5), 5)).toBe(INVALID_SESSION_ID);
    expect(cache.size).toBe(3);
  });

  it('evicts a session unused for longer than the eviction time', () => {
    const cache = new FetchSessionCache(2, EVICTION_MS);
    const a = cache.maybeCreateSession(0, true, partitions(10), 10);
    const b = cache.maybeCreateSession(100000, true, partitions(10), 10);
    const c = cache.maybeCreateSession(EVICTION_MS + 1, false, partitions(1), 1);
    expect(c).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(a)).toBeUndefined();
    expect(cache.get(b)).toBeDefined();
    expect(cache.evictions).toBe(1);
  });

  it("lets a follower's session displace a young consumer's, the smallest first", () => {
    const cache = new FetchSessionCache(2, EVICTION_MS);
    const big = cache.maybeCreateSession(0, false, partitions(9), 9);
    const small = cache.maybeCreateSession(0, false, partitions(3), 3);
    const follower = cache.maybeCreateSession(10, true, partitions(1), 1);
    expect(follower).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(small)).toBeUndefined();
    expect(cache.get(big)).toBeDefined();
    // A young follower's session is safe from everyone.
    expect(cache.maybeCreateSession(20, true, partitions(50), 50)).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(big)).toBeUndefined();
    expect(cache.maybeCreateSession(30, true, partitions(500), 500)).toBe(INVALID_SESSION_ID);
  });

  it('lets a bigger session displace a smaller one that is past the eviction time since creation', () => {
    const cache = new FetchSessionCache(1, EVICTION_MS);
    const old = cache.maybeCreateSession(0, false, partitions(2), 2);
    // Used recently (not stale), but created long ago.
    cache.touch(cache.get(old)!, EVICTION_MS + 10);
    expect(cache.maybeCreateSession(EVICTION_MS + 20, false, partitions(1), 1)).toBe(INVALID_SESSION_ID);
    expect(cache.maybeCreateSession(EVICTION_MS + 20, false, partitions(3), 3)).not.toBe(INVALID_SESSION_ID);
    expect(cache.get(old)).toBeUndefined();
    expect(cache.totalPartitions).toBe(3);
  });

  it('keeps nothing with no slots', () => {
    const cache = new FetchSessionCache(0, EVICTION_MS);
    expect(cache.maybeCreateSession(0, true, partitions(1), 1)).toBe(INVALID_SESSION_ID);
  });
});

describe('FetchManager', () => {
  const setup = (): { manager: FetchManager; cache: FetchSessionCache; clock: MockClock } => {
    const clock = new MockClock();
    const cache = new FetchSessionCache(10, EVICTION_MS);
    return { manager: new FetchManager(clock, cache), cache, clock };
  };
  const keyed = (partition: number, r: FetchPartitionResponse): { key: string; response: FetchPartitionResponse } => ({ key: tpKey('t', partition), response: r });

  it('answers a fetch below v7 or with epoch -1 without a session', () => {
    const { manager, cache } = setup();
    for (const [version, epoch] of [[6, 0], [11, -1]] as const) {
      const ctx = manager.newContext(request(0, epoch, [{ topic: 't', partition: 0, fetchOffset: 5 }]), version, true);
      expect(ctx.partitions.map((p) => p.fetchOffset)).toEqual([5]);
      expect(ctx.respond([keyed(0, answer(0, 5))]).sessionId).toBe(INVALID_SESSION_ID);
    }
    expect(cache.size).toBe(0);
  });

  it('opens a session on a full fetch and then answers only what changed', () => {
    const { manager } = setup();
    const full = manager.newContext(request(0, 0, [0, 1, 2].map((partition) => ({ topic: 't', partition, fetchOffset: 10 }))), 11, true);
    const first = full.respond([0, 1, 2].map((p) => keyed(p, answer(p, 10))));
    expect(first.sessionId).not.toBe(INVALID_SESSION_ID);
    expect(first.partitions).toHaveLength(3);

    // Epoch 1 names nothing: all three are read from the session, only partition 1 has news.
    const inc = manager.newContext(request(first.sessionId, 1, []), 11, true);
    expect(inc.errorCode).toBe(ErrorCode.NONE.code);
    expect(inc.partitions.map((p) => p.tp.partition)).toEqual([0, 1, 2]);
    const second = inc.respond([keyed(0, answer(0, 10)), keyed(1, answer(1, 10, 100)), keyed(2, answer(2, 10))]);
    expect(second.sessionId).toBe(first.sessionId);
    expect(second.partitions.map((p) => p.key)).toEqual([tpKey('t', 1)]);

    // The answered partition went to the back; a new fetch offset is taken; a high watermark change is news.
    const third = manager.newContext(request(first.sessionId, 2, [{ topic: 't', partition: 1, fetchOffset: 11 }]), 11, true);
    expect(third.partitions.map((p) => [p.tp.partition, p.fetchOffset])).toEqual([
      [0, 10],
      [2, 10],
      [1, 11],
    ]);
    expect(third.respond([keyed(0, answer(0, 10)), keyed(2, answer(2, 11)), keyed(1, answer(1, 10))]).partitions.map((p) => p.key)).toEqual([tpKey('t', 2)]);
  });

  it('refuses an unknown session and a wrong epoch, and closes a session that forgets all it had', () => {
    const { manager, cache } = setup();
    expect(manager.newContext(request(12345, 1, []), 11, false).errorCode).toBe(ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code);
    const id = manager.newContext(request(0, 0, [{ topic: 't', partition: 0, fetchOffset: 0 }]), 11, false).respond([keyed(0, answer(0, 0))]).sessionId;
    expect(manager.newContext(request(id, 5, []), 11, false).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code);
    const closing = manager.newContext(request(id, 1, [], [{ topic: 't', partitions: [0] }]), 11, false);
    expect(closing.partitions).toEqual([]);
    expect(closing.respond([]).sessionId).toBe(INVALID_SESSION_ID);
    expect(cache.get(id)).toBeUndefined();
  });

  it('sends a partition with an error, and again once the error has cleared', () => {
    const { manager } = setup();
    const id = manager.newContext(request(0, 0, [{ topic: 't', partition: 0, fetchOffset: 0 }]), 11, true).respond([keyed(0, answer(0, 7))]).sessionId;
    const failed = manager.newContext(request(id, 1, []), 11, true).respond([keyed(0, { ...answer(0, -1), errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER.code })]);
    expect(failed.partitions).toHaveLength(1);
    // Same high watermark as before the error, but the fetcher must hear that the error is gone.
    expect(manager.newContext(request(id, 2, []), 11, true).respond([keyed(0, answer(0, 7))]).partitions).toHaveLength(1);
    expect(manager.newContext(request(id, 3, []), 11, true).respond([keyed(0, answer(0, 7))]).partitions).toHaveLength(0);
  });

  it('voids the answer of a request overtaken by another of the same session', () => {
    const { manager } = setup();
    const id = manager.newContext(request(0, 0, [{ topic: 't', partition: 0, fetchOffset: 0 }]), 11, true).respond([keyed(0, answer(0, 0))]).sessionId;
    const slow = manager.newContext(request(id, 1, []), 11, true);
    manager.newContext(request(id, 2, []), 11, true);
    expect(slow.respond([keyed(0, answer(0, 3))]).errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code);
    expect(slow.throttled().errorCode).toBe(ErrorCode.INVALID_FETCH_SESSION_EPOCH.code);
  });

  it('closes the session a full fetch names and opens another', () => {
    const { manager, cache } = setup();
    const id = manager.newContext(request(0, 0, [{ topic: 't', partition: 0, fetchOffset: 0 }]), 11, true).respond([keyed(0, answer(0, 0))]).sessionId;
    const again = manager.newContext(request(id, 0, [{ topic: 't', partition: 0, fetchOffset: 0 }]), 11, true).respond([keyed(0, answer(0, 0))]).sessionId;
    expect(cache.get(id)).toBeUndefined();
    expect(cache.get(again)).toBeDefined();
  });
});

describe('FetchSessionHandler', () => {
  const data = (partition: number, fetchOffset: number): [string, SessionPartitionData] => [
    tpKey('t', partition),
    { tp: { topic: 't', partition }, fetchOffset, logStartOffset: 0, partitionMaxBytes: 1024, currentLeaderEpoch: 0 },
  ];
  const response = (sessionId: number, parts: number[], errorCode: number = ErrorCode.NONE.code): FetchResponse => ({
    throttleTimeMs: 0,
    errorCode,
    sessionId,
    responses: parts.length === 0 ? [] : [{ topic: 't', partitionResponses: parts.map((p) => answer(p, 0)) }],
  });
  const named = (f: { topics: FetchRequest['topics'] }): number[] => f.topics.flatMap((t) => t.partitions.map((p) => p.partition));

  it('sends everything first, then only the partitions that moved and those to forget', () => {
    const h = new FetchSessionHandler();
    const first = h.build(new Map([data(0, 0), data(1, 0), data(2, 0)]));
    expect(first).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true });
    expect(named(first)).toEqual([0, 1, 2]);
    expect(h.handleResponse(first, response(77, [0, 1, 2]))).toBeUndefined();

    const second = h.build(new Map([data(0, 5), data(1, 0)]));
    expect(second).toMatchObject({ sessionId: 77, sessionEpoch: 1, full: false });
    expect(named(second)).toEqual([0]);
    expect(second.forgottenTopicsData).toEqual([{ topic: 't', partitions: [2] }]);
    expect(h.handleResponse(second, response(77, [0]))).toBeUndefined();
    expect(h.build(new Map([data(0, 5), data(1, 0)]))).toMatchObject({ sessionId: 77, sessionEpoch: 2, topics: [] });
  });

  it('goes back to a full fetch after a lost request, a session error or a stray partition', () => {
    const h = new FetchSessionHandler();
    const parts = new Map([data(0, 0)]);
    h.handleResponse(h.build(parts), response(9, [0]));
    h.build(parts);
    h.handleError();
    const afterLoss = h.build(parts);
    expect(afterLoss).toMatchObject({ sessionId: 9, sessionEpoch: 0, full: true });
    h.handleResponse(afterLoss, response(9, [0]));

    const refused = h.build(parts);
    expect(h.handleResponse(refused, response(0, [], ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code))).toMatch(/FETCH_SESSION_ID_NOT_FOUND/);
    expect(h.build(parts)).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true });

    const stray = h.build(parts);
    expect(h.handleResponse(stray, response(5, [0, 3]))).toMatch(/t-3/);
    expect(h.build(parts)).toMatchObject({ sessionEpoch: 0, full: true });
  });

  it('stays sessionless while the leader opens no session', () => {
    const h = new FetchSessionHandler();
    const parts = new Map([data(0, 0)]);
    h.handleResponse(h.build(parts), response(INVALID_SESSION_ID, [0]));
    expect(h.build(parts)).toMatchObject({ sessionId: 0, sessionEpoch: 0, full: true });
  });
});
