import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * Metadata (key 3), v0-11: Kafka 2.8's maximum.
 * v1: null topics = all (empty = none), broker Rack, ControllerId, IsInternal. v2: ClusterId. v3: ThrottleTimeMs.
 * v4: AllowAutoTopicCreation. v5: OfflineReplicas. v6 = v5. v7: partition LeaderEpoch. v8 (KIP-430):
 * IncludeClusterAuthorizedOperations / IncludeTopicAuthorizedOperations and the bit fields they ask for
 * (Int.MinValue when not asked). v9: flexible. v10 (KIP-516): TopicId in the response, and request topics carry
 * an id and a nullable name (Kafka 2.8 refuses both an id and a null name with INVALID_REQUEST). v11: the cluster
 * authorized operations are gone (DescribeCluster has them).
 * Topics is accepted as null at v0 too: Kafka's v0 meant "all" by an empty array, and being lenient costs nothing.
 */
/** Int.MinValue: authorized operations not asked for (MetadataResponse.AUTHORIZED_OPERATIONS_OMITTED). */
export const METADATA_AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export interface MetadataRequestTopic {
  /** v10+: a topic id; the zero Uuid (the default) when the topic is named. */
  topicId?: Buffer;
  /** Nullable from v10. */
  name: string | null;
}

export interface MetadataRequest {
  topics: MetadataRequestTopic[] | null;
  allowAutoTopicCreation: boolean;
  /** v8-10. */
  includeClusterAuthorizedOperations?: boolean;
  /** v8+. */
  includeTopicAuthorizedOperations?: boolean;
}

export interface MetadataResponseBroker {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface MetadataResponsePartition {
  errorCode: number;
  partitionIndex: number;
  leaderId: number;
  /** v7+; -1 when unknown. */
  leaderEpoch?: number;
  replicaNodes: number[];
  isrNodes: number[];
  offlineReplicas: number[];
}

export interface MetadataResponseTopic {
  errorCode: number;
  name: string;
  /** v10+ (zero Uuid when the topic has none). */
  topicId?: Buffer;
  isInternal: boolean;
  partitions: MetadataResponsePartition[];
  /** v8+. */
  topicAuthorizedOperations?: number;
}

export interface MetadataResponse {
  throttleTimeMs: number;
  brokers: MetadataResponseBroker[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataResponseTopic[];
  /** v8-10. */
  clusterAuthorizedOperations?: number;
}

export const MetadataApi = new ApiDefinition<MetadataRequest, MetadataResponse>({
  key: ApiKey.METADATA,
  minVersion: 0,
  maxVersion: 11,
  flexibleFrom: 9,
  // Every requested topic carries the error (an all-topics request gets an empty list).
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    // As MetadataRequest.getErrorResponse: a null name (v10+) is answered as "".
    topics: (request.topics ?? []).map((t) => ({ errorCode, name: t.name ?? '', topicId: t.topicId, isInternal: false, partitions: [] })),
  }),
  request: [
    s('topics', '0+', [f('topicId', 'uuid', '10+'), f('name', 'string', '0+', { nullable: '10+' })], { nullable: '0+' }),
    f('allowAutoTopicCreation', 'bool', '4+', { default: true }),
    f('includeClusterAuthorizedOperations', 'bool', '8-10'),
    f('includeTopicAuthorizedOperations', 'bool', '8+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '3+'),
    s('brokers', '0+', [
      f('nodeId', 'int32', '0+'),
      f('host', 'string', '0+'),
      f('port', 'int32', '0+'),
      f('rack', 'string', '1+', { nullable: '1+', default: null }),
    ]),
    f('clusterId', 'string', '2+', { nullable: '2+', default: null }),
    f('controllerId', 'int32', '1+', { default: -1 }),
    s('topics', '0+', [
      f('errorCode', 'int16', '0+'),
      f('name', 'string', '0+'),
      f('topicId', 'uuid', '10+'),
      f('isInternal', 'bool', '1+'),
      s('partitions', '0+', [
        f('errorCode', 'int16', '0+'),
        f('partitionIndex', 'int32', '0+'),
        f('leaderId', 'int32', '0+'),
        f('leaderEpoch', 'int32', '7+', { default: -1 }),
        f('replicaNodes', '[]int32', '0+'),
        f('isrNodes', '[]int32', '0+'),
        f('offlineReplicas', '[]int32', '5+'),
      ]),
      f('topicAuthorizedOperations', 'int32', '8+', { default: METADATA_AUTHORIZED_OPERATIONS_OMITTED }),
    ]),
    f('clusterAuthorizedOperations', 'int32', '8-10', { default: METADATA_AUTHORIZED_OPERATIONS_OMITTED }),
  ],
});
