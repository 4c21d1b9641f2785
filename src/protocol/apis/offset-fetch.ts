import { ErrorCode } from '../../common/error-codes';
import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * OffsetFetch (key 9), v0-7, Kafka 2.8's maximum; v6 is flexible. v0 reads ZooKeeper-style offsets. v2: null
 * topics = all, and a top-level ErrorCode as the LAST field. v3: ThrottleTimeMs first. v5: CommittedLeaderEpoch.
 * v7: RequireStable (KIP-447): Kafka answers UNSTABLE_OFFSET_COMMIT for a partition with a pending transactional
 * offset commit. There are no transactions here, so no commit is ever pending and v7 answers exactly as v6.
 */
export interface OffsetFetchRequestTopic {
  name: string;
  partitionIndexes: number[];
}

export interface OffsetFetchRequest {
  groupId: string;
  topics: OffsetFetchRequestTopic[] | null;
  requireStable: boolean;
}

export interface OffsetFetchResponsePartition {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponseTopic {
  name: string;
  partitions: OffsetFetchResponsePartition[];
}

export interface OffsetFetchResponse {
  throttleTimeMs: number;
  topics: OffsetFetchResponseTopic[];
  errorCode: number;
}

export const OffsetFetchApi = new ApiDefinition<OffsetFetchRequest, OffsetFetchResponse>({
  key: ApiKey.OFFSET_FETCH,
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 6,
  // v2+ also carries the error at the top level.
  errorResponse: (request, version, errorCode) => ({
    throttleTimeMs: 0,
    topics: (request.topics ?? []).map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode })),
    })),
    errorCode: version >= 2 ? errorCode : ErrorCode.NONE.code,
  }),
  request: [
    f('groupId', 'string', '0+'),
    s('topics', '0+', [f('name', 'string', '0+'), f('partitionIndexes', '[]int32', '0+')], { nullable: '2+' }),
    f('requireStable', 'bool', '7+', { default: false }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '3+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('committedOffset', 'int64', '0+'),
        f('committedLeaderEpoch', 'int32', '5+', { default: -1 }),
        f('metadata', 'string', '0+', { nullable: '0+' }),
        f('errorCode', 'int16', '0+'),
      ]),
    ]),
    f('errorCode', 'int16', '2+'),
  ],
});
