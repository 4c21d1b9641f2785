import { ErrorCode, errorName } from '../../common/error-codes';
import { TopicPartition, tpKey } from '../../common/topic-partition';
import { FetchRequest, FetchResponse } from '../../protocol/apis/fetch';
import { INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from '../fetch-session-cache';

/** What a fetch asks of one partition; a change of any field puts the partition into the next incremental fetch. */
export interface SessionPartitionData {
  readonly tp: TopicPartition;
  readonly fetchOffset: number;
  readonly logStartOffset: number;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
}

/** The session part of the next fetch request. */
export interface SessionFetch {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  readonly topics: FetchRequest['topics'];
  readonly forgottenTopicsData: FetchRequest['forgottenTopicsData'];
  readonly full: boolean;
}

function sameData(a: SessionPartitionData, b: SessionPartitionData): boolean {
  return a.fetchOffset === b.fetchOffset && a.logStartOffset === b.logStartOffset && a.partitionMaxBytes === b.partitionMaxBytes && a.currentLeaderEpoch === b.currentLeaderEpoch;
}

function byTopic(parts: Iterable<SessionPartitionData>): FetchRequest['topics'] {
  const topics = new Map<string, FetchRequest['topics'][number]>();
  for (const p of parts) {
    let t = topics.get(p.tp.topic);
    if (t === undefined) topics.set(p.tp.topic, (t = { topic: p.tp.topic, partitions: [] }));
    t.partitions.push({ partition: p.tp.partition, currentLeaderEpoch: p.currentLeaderEpoch, fetchOffset: p.fetchOffset, logStartOffset: p.logStartOffset, partitionMaxBytes: p.partitionMaxBytes });
  }
  return [...topics.values()];
}

/**
 * A fetcher's side of a KIP-227 fetch session with one leader (Kafka's FetchSessionHandler). The first request
 * is full (epoch 0) and the leader answers with a session id; after that a request names only the partitions whose
 * fetch data changed and those to forget, and the answer holds only the partitions with news. Any doubt (a lost
 * request, a session error, an answer naming a partition outside the session) goes back to a full request.
 */
export class FetchSessionHandler {
  private sessionId = INVALID_SESSION_ID;
  private epoch = INITIAL_EPOCH;
  /** The partitions as the leader's session holds them after the last request built. */
  private session = new Map<string, SessionPartitionData>();

  /** The next request for `next`, the partitions to fetch now (keyed by tpKey). */
  build(next: ReadonlyMap<string, SessionPartitionData>): SessionFetch {
    if (this.epoch === INITIAL_EPOCH) {
      this.session = new Map(next);
      return { sessionId: this.sessionId, sessionEpoch: INITIAL_EPOCH, topics: byTopic(next.values()), forgottenTopicsData: [], full: true };
    }
    const changed: SessionPartitionData[] = [];
    const forgotten = new Map<string, number[]>();
    for (const [key, p] of next) {
      const was = this.session.get(key);
      if (was === undefined || !sameData(was, p)) changed.push(p);
    }
    for (const [key, p] of this.session) {
      if (next.has(key)) continue;
      let list = forgotten.get(p.tp.topic);
      if (list === undefined) forgotten.set(p.tp.topic, (list = []));
      list.push(p.tp.partition);
    }
    this.session = new Map(next);
    return {
      sessionId: this.sessionId,
      sessionEpoch: this.epoch,
      topics: byTopic(changed),
      forgottenTopicsData: [...forgotten].map(([topic, partitions]) => ({ topic, partitions })),
      full: false,
    };
  }

  /**
   * Takes the answer to `sent`. Returns why it is to be ignored (the next request is then full again), or
   * undefined when its partitions are to be processed.
   */
  handleResponse(sent: SessionFetch, response: FetchResponse): string | undefined {
    if (response.errorCode !== ErrorCode.NONE.code) {
      // A session the leader no longer has starts from nothing; any other error re-opens ours with a full fetch.
      if (response.errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND.code) this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
      return `the fetch session ${sent.sessionId} at epoch ${sent.sessionEpoch} was refused: ${errorName(response.errorCode)}`;
    }
    for (const t of response.responses) {
      for (const p of t.partitionResponses) {
        if (!this.session.has(tpKey(t.topic, p.partition))) {
          this.epoch = INITIAL_EPOCH;
          return `the answer to fetch session ${sent.sessionId} at epoch ${sent.sessionEpoch} names ${t.topic}-${p.partition}, which the session does not hold`;
        }
      }
    }
    if (response.sessionId === INVALID_SESSION_ID) {
      this.sessionId = INVALID_SESSION_ID;
      this.epoch = INITIAL_EPOCH;
    } else if (sent.full) {
      this.sessionId = response.sessionId;
      this.epoch = nextEpoch(INITIAL_EPOCH);
    } else {
      this.epoch = nextEpoch(this.epoch);
    }
    return undefined;
  }

  /** The request got no answer: the leader's view of the session is unknown, so the next fetch is full. */
  handleError(): void {
    this.epoch = INITIAL_EPOCH;
  }
}
