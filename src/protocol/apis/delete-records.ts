import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DeleteRecords (key 21), v0-2: Kafka 2.8's whole window. v0 and v1 have the same layout (v1 only says the broker
 * may throttle); v2 is the first flexible version (KIP-482: compact strings and arrays, tag sections). An offset of
 * -1 means "up to the high watermark". The errors live per partition.
 */
export interface DeleteRecordsPartition {
  partitionIndex: number;
  offset: number;
}

export interface DeleteRecordsTopic {
  name: string;
  partitions: DeleteRecordsPartition[];
}

export interface DeleteRecordsRequest {
  topics: DeleteRecordsTopic[];
  timeoutMs: number;
}

export interface DeleteRecordsPartitionResult {
  partitionIndex: number;
  lowWatermark: number;
  errorCode: number;
}

export interface DeleteRecordsTopicResult {
  name: string;
  partitions: DeleteRecordsPartitionResult[];
}

export interface DeleteRecordsResponse {
  throttleTimeMs: number;
  topics: DeleteRecordsTopicResult[];
}

export const DeleteRecordsApi = new ApiDefinition<DeleteRecordsRequest, DeleteRecordsResponse>({
  key: ApiKey.DELETE_RECORDS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  // Kafka's DeleteRecordsRequest.getErrorResponse: every partition gets the error, low watermark -1.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode })) })),
  }),
  request: [
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('offset', 'int64', '0+')]),
    ]),
    f('timeoutMs', 'int32', '0+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('lowWatermark', 'int64', '0+'),
        f('errorCode', 'int16', '0+'),
      ]),
    ]),
  ],
});
