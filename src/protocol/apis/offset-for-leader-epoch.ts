import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * OffsetForLeaderEpoch (key 23), follower -> leader (KIP-101), v0-4: Kafka 2.8's maximum; v4 is the first
 * flexible version (no new fields). This broker's own fetcher stays on v3 (see replica-fetcher-thread.ts).
 * v1: response LeaderEpoch. v2: CurrentLeaderEpoch (KIP-320) and ThrottleTimeMs. v3: ReplicaId (-2 = debug,
 * -1 = consumer).
 */
export interface OffsetForLeaderPartition {
  partition: number;
  currentLeaderEpoch: number;
  leaderEpoch: number;
}

export interface OffsetForLeaderTopic {
  topic: string;
  partitions: OffsetForLeaderPartition[];
}

export interface OffsetForLeaderEpochRequest {
  replicaId: number;
  topics: OffsetForLeaderTopic[];
}

export interface EpochEndOffset {
  errorCode: number;
  partition: number;
  leaderEpoch: number;
  endOffset: number;
}

export interface OffsetForLeaderTopicResult {
  topic: string;
  partitions: EpochEndOffset[];
}

export interface OffsetForLeaderEpochResponse {
  throttleTimeMs: number;
  topics: OffsetForLeaderTopicResult[];
}

export const OffsetForLeaderEpochApi = new ApiDefinition<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  key: ApiKey.OFFSET_FOR_LEADER_EPOCH,
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 4,
  interBroker: true,
  request: [
    f('replicaId', 'int32', '3+', { default: -2 }),
    s('topics', '0+', [
      f('topic', 'string', '0+'),
      s('partitions', '0+', [
        f('partition', 'int32', '0+'),
        f('currentLeaderEpoch', 'int32', '2+', { default: -1 }),
        f('leaderEpoch', 'int32', '0+'),
      ]),
    ]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '2+'),
    s('topics', '0+', [
      f('topic', 'string', '0+'),
      s('partitions', '0+', [
        f('errorCode', 'int16', '0+'),
        f('partition', 'int32', '0+'),
        f('leaderEpoch', 'int32', '1+', { default: -1 }),
        f('endOffset', 'int64', '0+'),
      ]),
    ]),
  ],
});
