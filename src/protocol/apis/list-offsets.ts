import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ListOffsets (key 2), v0-6: Kafka 2.8's maximum.
 * v0: MaxNumOffsets and an OldStyleOffsets array in the answer. v1: Timestamp + Offset instead. v2: IsolationLevel,
 * ThrottleTimeMs. v3 = v2. v4 (KIP-320): request CurrentLeaderEpoch (fenced like a fetch), response LeaderEpoch of
 * the offset found. v5: OFFSET_NOT_AVAILABLE from a new leader that does not know its high watermark yet. v6 is the
 * first flexible version. Timestamps -1 (latest) and -2 (earliest) are the special queries.
 */
export interface ListOffsetsPartition {
  partitionIndex: number;
  /** v4+: the fetcher's leader epoch (-1: not checked). */
  currentLeaderEpoch?: number;
  timestamp: number;
  maxNumOffsets: number;
}

export interface ListOffsetsTopic {
  name: string;
  partitions: ListOffsetsPartition[];
}

export interface ListOffsetsRequest {
  replicaId: number;
  isolationLevel: number;
  topics: ListOffsetsTopic[];
}

export interface ListOffsetsPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  oldStyleOffsets: number[];
  timestamp: number;
  offset: number;
  /** v4+: the leader epoch of the offset found (-1 when unknown). */
  leaderEpoch?: number;
}

export interface ListOffsetsTopicResponse {
  name: string;
  partitions: ListOffsetsPartitionResponse[];
}

export interface ListOffsetsResponse {
  throttleTimeMs: number;
  topics: ListOffsetsTopicResponse[];
}

export const ListOffsetsApi = new ApiDefinition<ListOffsetsRequest, ListOffsetsResponse>({
  key: ApiKey.LIST_OFFSETS,
  minVersion: 0,
  maxVersion: 6,
  flexibleFrom: 6,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode, oldStyleOffsets: [], timestamp: -1, offset: -1, leaderEpoch: -1 })),
    })),
  }),
  request: [
    f('replicaId', 'int32', '0+'),
    f('isolationLevel', 'int8', '2+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('currentLeaderEpoch', 'int32', '4+', { default: -1 }),
        f('timestamp', 'int64', '0+'),
        f('maxNumOffsets', 'int32', '0', { default: 1 }),
      ]),
    ]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '2+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('oldStyleOffsets', '[]int64', '0'),
        f('timestamp', 'int64', '1+', { default: -1 }),
        f('offset', 'int64', '1+', { default: -1 }),
        f('leaderEpoch', 'int32', '4+', { default: -1 }),
      ]),
    ]),
  ],
});
