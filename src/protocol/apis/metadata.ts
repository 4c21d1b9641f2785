import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * Metadata (key 3), v0-6; v9 is the first flexible version, so we stop at 6 (no client needs the leader epochs of
 * v7 or the authorized operations of v8).
 * v1: null topics = all (empty = none), broker Rack, ControllerId, IsInternal. v2: ClusterId. v3: ThrottleTimeMs.
 * v4: AllowAutoTopicCreation. v5: OfflineReplicas. v6 = v5.
 * Topics is accepted as null at v0 too: Kafka's v0 meant "all" by an empty array, and being lenient costs nothing.
 */
export interface MetadataRequestTopic {
  name: string;
}

export interface MetadataRequest {
  topics: MetadataRequestTopic[] | null;
  allowAutoTopicCreation: boolean;
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
  replicaNodes: number[];
  isrNodes: number[];
  offlineReplicas: number[];
}

export interface MetadataResponseTopic {
  errorCode: number;
  name: string;
  isInternal: boolean;
  partitions: MetadataResponsePartition[];
}

export interface MetadataResponse {
  throttleTimeMs: number;
  brokers: MetadataResponseBroker[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataResponseTopic[];
}

export const MetadataApi = new ApiDefinition<MetadataRequest, MetadataResponse>({
  key: ApiKey.METADATA,
  minVersion: 0,
  maxVersion: 6,
  flexibleFrom: 9,
  // Every requested topic carries the error (an all-topics request gets an empty list).
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: -1,
    topics: (request.topics ?? []).map((t) => ({ errorCode, name: t.name, isInternal: false, partitions: [] })),
  }),
  request: [
    s('topics', '0+', [f('name', 'string', '0+')], { nullable: '0+' }),
    f('allowAutoTopicCreation', 'bool', '4+', { default: true }),
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
      f('isInternal', 'bool', '1+'),
      s('partitions', '0+', [
        f('errorCode', 'int16', '0+'),
        f('partitionIndex', 'int32', '0+'),
        f('leaderId', 'int32', '0+'),
        f('replicaNodes', '[]int32', '0+'),
        f('isrNodes', '[]int32', '0+'),
        f('offlineReplicas', '[]int32', '5+'),
      ]),
    ]),
  ],
});
