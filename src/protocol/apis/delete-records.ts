import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/* DeleteRecords (key 21), v0-1 (identical layouts); v2 is flexible. Offset -1 means "up to the high watermark". */
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
  maxVersion: 1,
  flexibleFrom: 2,
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
