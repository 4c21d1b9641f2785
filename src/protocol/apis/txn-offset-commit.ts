import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * TxnOffsetCommit (key 28), v0-3, Kafka 2.8's maximum; v3 is flexible. v1 = v0; v2: CommittedLeaderEpoch;
 * v3: GenerationId, MemberId and GroupInstanceId (KIP-447), so the group coordinator can fence a zombie member.
 */
export interface TxnOffsetCommitRequestPartition {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch: number;
  committedMetadata: string | null;
}

export interface TxnOffsetCommitRequestTopic {
  name: string;
  partitions: TxnOffsetCommitRequestPartition[];
}

export interface TxnOffsetCommitRequest {
  transactionalId: string;
  groupId: string;
  producerId: number;
  producerEpoch: number;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  topics: TxnOffsetCommitRequestTopic[];
}

export interface TxnOffsetCommitResponsePartition {
  partitionIndex: number;
  errorCode: number;
}

export interface TxnOffsetCommitResponseTopic {
  name: string;
  partitions: TxnOffsetCommitResponsePartition[];
}

export interface TxnOffsetCommitResponse {
  throttleTimeMs: number;
  topics: TxnOffsetCommitResponseTopic[];
}

export const TxnOffsetCommitApi = new ApiDefinition<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  key: ApiKey.TXN_OFFSET_COMMIT,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
  }),
  request: [
    f('transactionalId', 'string', '0+'),
    f('groupId', 'string', '0+'),
    f('producerId', 'int64', '0+'),
    f('producerEpoch', 'int16', '0+'),
    f('generationId', 'int32', '3+', { default: -1 }),
    f('memberId', 'string', '3+', { default: '' }),
    f('groupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('committedOffset', 'int64', '0+'),
        f('committedLeaderEpoch', 'int32', '2+', { default: -1 }),
        f('committedMetadata', 'string', '0+', { nullable: '0+' }),
      ]),
    ]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('topics', '0+', [f('name', 'string', '0+'), s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')])]),
  ],
});
