import { ErrorCode } from '../../common/error-codes';
import { ApiDefinition, RecordsData } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * Fetch (key 1), v0-11; v12 is the first flexible version.
 * v1: ThrottleTimeMs. v3: MaxBytes. v4: IsolationLevel; LastStableOffset + AbortedTransactions. v5: LogStartOffset.
 * v7: fetch sessions (KIP-227) SessionId/SessionEpoch/ForgottenTopicsData and a top-level ErrorCode. v9:
 * CurrentLeaderEpoch (KIP-320). v11: RackId and PreferredReadReplica (KIP-392, always -1 here).
 * RecordSet is written from log slices without copying and must never be null (librdkafka rejects a negative size).
 */
export interface FetchPartition {
  partition: number;
  currentLeaderEpoch: number;
  fetchOffset: number;
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

export interface FetchPartitionResponse {
  partition: number;
  errorCode: number;
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
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
  maxVersion: 11,
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
        s('abortedTransactions', '4+', [f('producerId', 'int64', '4+'), f('firstOffset', 'int64', '4+')], { nullable: '4+' }),
        f('preferredReadReplica', 'int32', '11+', { default: -1 }),
        f('recordSet', 'records', '0+', { nullable: '0+' }),
      ]),
    ]),
  ],
});
