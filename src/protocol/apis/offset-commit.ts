import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * OffsetCommit (key 8), v0-8, Kafka 2.8's maximum; v8 is flexible. v0 stores ZooKeeper-style offsets (any broker answers).
 * v1: GenerationId, MemberId, per-partition CommitTimestamp (v1 only). v2-4: RetentionTimeMs. v3: ThrottleTimeMs.
 * v6: CommittedLeaderEpoch. v7: GroupInstanceId (a fenced static member gets FENCED_INSTANCE_ID).
 */
export interface OffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch: number;
  commitTimestamp: number;
  committedMetadata: string | null;
}

export interface OffsetCommitRequestTopic {
  name: string;
  partitions: OffsetCommitRequestPartition[];
}

export interface OffsetCommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  retentionTimeMs: number;
  topics: OffsetCommitRequestTopic[];
}

export interface OffsetCommitResponsePartition {
  partitionIndex: number;
  errorCode: number;
}

export interface OffsetCommitResponseTopic {
  name: string;
  partitions: OffsetCommitResponsePartition[];
}

export interface OffsetCommitResponse {
  throttleTimeMs: number;
  topics: OffsetCommitResponseTopic[];
}

export const OffsetCommitApi = new ApiDefinition<OffsetCommitRequest, OffsetCommitResponse>({
  key: ApiKey.OFFSET_COMMIT,
  minVersion: 0,
  maxVersion: 8,
  flexibleFrom: 8,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  }),
  request: [
    f('groupId', 'string', '0+'),
    f('generationId', 'int32', '1+', { default: -1 }),
    f('memberId', 'string', '1+', { default: '' }),
    f('groupInstanceId', 'string', '7+', { nullable: '7+', default: null }),
    f('retentionTimeMs', 'int64', '2-4', { default: -1 }),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('committedOffset', 'int64', '0+'),
        f('committedLeaderEpoch', 'int32', '6+', { default: -1 }),
        f('commitTimestamp', 'int64', '1', { default: -1 }),
        f('committedMetadata', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '3+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')]),
    ]),
  ],
});
