import { TopicPartition } from '../common/topic-partition';

/** KIP-227's session id 0: no session. */
export const INVALID_SESSION_ID = 0;
/** A full fetch request that asks for a new session. */
export const INITIAL_EPOCH = 0;
/** A full fetch request that wants no session (and closes the one it names). */
export const FINAL_EPOCH = -1;

/** The epoch after `epoch` (Kafka's FetchMetadata.nextEpoch): wraps to 1, never back to the initial 0. */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return epoch;
  return epoch === 0x7fffffff ? 1 : epoch + 1;
}

/**
 * One partition of a session (Kafka's CachedPartition): what the fetcher last asked for it, and what it was last
 * told of it, so an incremental response can leave it out while neither changes.
 */
export interface CachedPartition {
  readonly tp: TopicPartition;
  fetchOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
  /** The fetcher's last fetched epoch (Fetch v12; -1 otherwise). */
  lastFetchedEpoch: number;
  fetcherLogStartOffset: number;
  /** The high watermark last sent; -1 after an error, so the partition is sent again once the error clears. */
  highWatermark: number;
  /** The leader's log start offset last sent. */
  localLogStartOffset: number;
}

/** A fetch session (Kafka's FetchSession). `partitions` keeps the order partitions are read and answered in. */
export class FetchSession {
  /** The size the cache last accounted for; -1 while not in the cache. */
  cachedSize = -1;
  /** Set when touched, as Kafka files a session under its evictable trees. */
  evictableByPrivileged = false;
  evictableByAll = false;

  constructor(
    readonly id: number,
    readonly privileged: boolean,
    readonly partitions: Map<string, CachedPartition>,
    readonly creationMs: number,
    public lastUsedMs: number,
    public epoch: number,
  ) {}

  get size(): number {
    return this.partitions.size;
  }
}

/** (privileged, size, id) as Kafka orders sessions for eviction: the least of them goes first. */
function compareEvictable(a: { privileged: boolean; size: number; id: number }, b: { privileged: boolean; size: number; id: number }): number {
  if (a.privileged !== b.privileged) return a.privileged ? 1 : -1;
  if (a.size !== b.size) return a.size - b.size;
  return a.id - b.id;
}

/**
 * The broker's incremental fetch sessions (Kafka's FetchSessionCache): at most
 * max.incremental.fetch.session.cache.slots of them. A new session may take the place of one unused for
 * `evictionMs`, or of a less valuable one: followers' sessions (privileged) outrank consumers', bigger sessions
 * outrank smaller ones, and a session younger than `evictionMs` is evicted by nothing but a privileged session
 * displacing a consumer's. Linear scans stand in for Kafka's trees: they run only when the cache is full.
 */
export class FetchSessionCache {
  private readonly sessions = new Map<number, FetchSession>();
  private partitionTotal = 0;
  /** Sessions evicted to make room (Kafka's IncrementalFetchSessionEvictionsPerSec counts these). */
  evictions = 0;

  constructor(
    private readonly maxEntries: number,
    private readonly evictionMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Partitions held by all sessions (Kafka's NumIncrementalFetchPartitionsCached). */
  get totalPartitions(): number {
    return this.partitionTotal;
  }

  get(id: number): FetchSession | undefined {
    return this.sessions.get(id);
  }

  /** A new session of `partitions` with its id, or INVALID_SESSION_ID when there is no room for it. */
  maybeCreateSession(now: number, privileged: boolean, partitions: () => Map<string, CachedPartition>, size: number): number {
    if (this.sessions.size >= this.maxEntries && !this.tryEvict(privileged, size, now)) return INVALID_SESSION_ID;
    const session = new FetchSession(this.newSessionId(), privileged, partitions(), now, now, nextEpoch(INITIAL_EPOCH));
    this.sessions.set(session.id, session);
    this.touch(session, now);
    return session.id;
  }

  remove(id: number): FetchSession | undefined {
    const session = this.sessions.get(id);
    if (session === undefined) return undefined;
    this.sessions.delete(id);
    if (session.cachedSize >= 0) this.partitionTotal -= session.cachedSize;
    session.cachedSize = -1;
    return session;
  }

  /** Marks `session` used now and re-files it for eviction at its current size. */
  touch(session: FetchSession, now: number): void {
    session.lastUsedMs = now;
    if (session.cachedSize >= 0) this.partitionTotal -= session.cachedSize;
    session.cachedSize = session.size;
    this.partitionTotal += session.cachedSize;
    const old = now - session.creationMs > this.evictionMs;
    session.evictableByPrivileged = !session.privileged || old;
    session.evictableByAll = old;
  }

  private newSessionId(): number {
    for (;;) {
      const id = 1 + Math.floor(this.random() * 0x7ffffffe);
      if (id !== INVALID_SESSION_ID && !this.sessions.has(id)) return id;
    }
  }

  private tryEvict(privileged: boolean, size: number, now: number): boolean {
    let stalest: FetchSession | undefined;
    for (const s of this.sessions.values()) if (stalest === undefined || s.lastUsedMs < stalest.lastUsedMs || (s.lastUsedMs === stalest.lastUsedMs && s.id < stalest.id)) stalest = s;
    if (stalest === undefined) return false;
    if (now - stalest.lastUsedMs > this.evictionMs) return this.evict(stalest);
    let least: FetchSession | undefined;
    for (const s of this.sessions.values()) {
      if (!(privileged ? s.evictableByPrivileged : s.evictableByAll)) continue;
      if (least === undefined || compareEvictable(this.key(s), this.key(least)) < 0) least = s;
    }
    if (least === undefined || compareEvictable({ privileged, size, id: 0 }, this.key(least)) < 0) return false;
    return this.evict(least);
  }

  private key(s: FetchSession): { privileged: boolean; size: number; id: number } {
    return { privileged: s.privileged, size: s.cachedSize, id: s.id };
  }

  private evict(session: FetchSession): boolean {
    this.remove(session.id);
    this.evictions++;
    return true;
  }
}
