import { ErrorCode } from '../../common/error-codes';
import { ApiDefinition, RecordsData } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s, st } from '../schema/field';

/*
 * Fetch (key 1), v0-12: Kafka 2.8's maximum; v12 is the first flexible version.
 * v1: ThrottleTimeMs. v3: MaxBytes. v4: IsolationLevel; LastStableOffset + AbortedTransactions. v5: LogStartOffset.
 * v7: fetch sessions (KIP-227) SessionId/SessionEpoch/ForgottenTopicsData and a top-level ErrorCode. v9:
 * CurrentLeaderEpoch (KIP-320). v11: RackId and PreferredReadReplica (KIP-392, always -1 here).
 * v12 (KIP-595's changes to the fetch, used by 2.8's followers): request LastFetchedEpoch per partition and a
 * tagged ClusterId; response tagged DivergingEpoch (the leader's epoch and end offset where a follower's log
 * diverges: it truncates there, no OffsetForLeaderEpoch round), CurrentLeader and SnapshotId (KRaft only).
 * RecordSet is written from log slices without copying and must never be null (librdkafka rejects a negative size);
 * from v12 its length is a compact (unsigned varint) one, still followed by the same slices.
 */
export interface FetchPartition {
  partition: number;
  currentLeaderEpoch: number;
  fetchOffset: number;
  /** v12+: the epoch of the last record the fetcher has (-1: unknown, no divergence check). */
  lastFetchedEpoch?: number;
  logStartOffset: number;
  partitionMaxBytes: number;
}

export interface FetchTopic {
  topic: string;
  partitions: FetchPartition[];
}

export interface ForgottenTopic {
  topic: string;
  partitions: number[];
}

export interface FetchRequest {
  /** v12+ tagged: the cluster the fetcher believes it talks to (KRaft; null from ZooKeeper-mode fetchers). */
  clusterId?: string | null;
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: number;
  sessionId: number;
  sessionEpoch: number;
  topics: FetchTopic[];
  forgottenTopicsData: ForgottenTopic[];
  rackId: string;
}

export interface AbortedTransaction {
  producerId: number;
  firstOffset: number;
}

export interface EpochEndOffsetData {
  epoch: number;
  endOffset: number;
}

export interface LeaderIdAndEpoch {
  leaderId: number;
  leaderEpoch: number;
}

export interface SnapshotId {
  endOffset: number;
  epoch: number;
}

export interface FetchPartitionResponse {
  partition: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  /** v12+ tagged: where the fetcher's log diverges from the leader's (null: it does not). */
  divergingEpoch?: EpochEndOffsetData | null;
  /** v12+ tagged (KRaft's leader discovery; never set by a ZooKeeper-mode broker). */
  currentLeader?: LeaderIdAndEpoch | null;
  /** v12+ tagged (KRaft snapshots; never set by a ZooKeeper-mode broker). */
  snapshotId?: SnapshotId | null;
  abortedTransactions: AbortedTransaction[] | null;
  preferredReadReplica: number;
  /** Decoded: one Buffer slice. Encoded: a Buffer or a list of Buffers written back to back. */
  recordSet: RecordsData;
}

export interface FetchTopicResponse {
  topic: string;
  partitionResponses: FetchPartitionResponse[];
}

export interface FetchResponse {
  throttleTimeMs: number;
  errorCode: number;
  sessionId: number;
  responses: FetchTopicResponse[];
}

export const FetchApi = new ApiDefinition<FetchRequest, FetchResponse>({
  key: ApiKey.FETCH,
  minVersion: 0,
  maxVersion: 12,
  flexibleFrom: 12,
  // v7+ also carries the error at the top level (fetch sessions).
  errorResponse: (request, version, errorCode) => ({
    throttleTimeMs: 0,
    errorCode: version >= 7 ? errorCode : ErrorCode.NONE.code,
    sessionId: 0,
    responses: request.topics.map((t) => ({
      topic: t.topic,
      partitionResponses: t.partitions.map((p) => ({
        partition: p.partition,
        errorCode,
        highWatermark: -1,
        lastStableOffset: -1,
        logStartOffset: -1,
        abortedTransactions: null,
        preferredReadReplica: -1,
        recordSet: Buffer.alloc(0),
      })),
    })),
  }),
  request: [
    f('clusterId', 'string', '12+', { nullable: '12+', default: null, tag: 0 }),
    f('replicaId', 'int32', '0+'),
    f('maxWaitMs', 'int32', '0+'),
    f('minBytes', 'int32', '0+'),
    f('maxBytes', 'int32', '3+', { default: 0x7fffffff }),
    f('isolationLevel', 'int8', '4+', { default: 0 }),
    f('sessionId', 'int32', '7+', { default: 0 }),
    f('sessionEpoch', 'int32', '7+', { default: -1 }),
    s('topics', '0+', [
      f('topic', 'string', '0+'),
      s('partitions', '0+', [
        f('partition', 'int32', '0+'),
        f('currentLeaderEpoch', 'int32', '9+', { default: -1 }),
        f('fetchOffset', 'int64', '0+'),
        f('lastFetchedEpoch', 'int32', '12+', { default: -1 }),
        f('logStartOffset', 'int64', '5+', { default: -1 }),
        f('partitionMaxBytes', 'int32', '0+'),
      ]),
    ]),
    s('forgottenTopicsData', '7+', [f('topic', 'string', '7+'), f('partitions', '[]int32', '7+')]),
    f('rackId', 'string', '11+', { default: '' }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '7+'),
    f('sessionId', 'int32', '7+', { default: 0 }),
    s('responses', '0+', [
      f('topic', 'string', '0+'),
      s('partitionResponses', '0+', [
        f('partition', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('highWatermark', 'int64', '0+'),
        f('lastStableOffset', 'int64', '4+', { default: -1 }),
        f('logStartOffset', 'int64', '5+', { default: -1 }),
        st('divergingEpoch', '12+', [f('epoch', 'int32', '12+', { default: -1 }), f('endOffset', 'int64', '12+', { default: -1 })], { tag: 0 }),
        st('currentLeader', '12+', [f('leaderId', 'int32', '12+', { default: -1 }), f('leaderEpoch', 'int32', '12+', { default: -1 })], { tag: 1 }),
        st('snapshotId', '12+', [f('endOffset', 'int64', '12+', { default: -1 }), f('epoch', 'int32', '12+', { default: -1 })], { tag: 2 }),
        s('abortedTransactions', '4+', [f('producerId', 'int64', '4+'), f('firstOffset', 'int64', '4+')], { nullable: '4+' }),
        f('preferredReadReplica', 'int32', '11+', { default: -1 }),
        f('recordSet', 'records', '0+', { nullable: '0+' }),
      ]),
    ]),
  ],
});
