import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * AddPartitionsToTxn (key 24), v0-3, Kafka 2.8's maximum; v3 is flexible. v1 = v0 (throttling after the
 * response); v2 = v1 with PRODUCER_FENCED answered where older versions get INVALID_PRODUCER_EPOCH.
 */
export interface AddPartitionsToTxnTopic {
  name: string;
  partitions: number[];
}

export interface AddPartitionsToTxnRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  topics: AddPartitionsToTxnTopic[];
}

export interface AddPartitionsToTxnPartitionResult {
  partitionIndex: number;
  errorCode: number;
}

export interface AddPartitionsToTxnTopicResult {
  name: string;
  results: AddPartitionsToTxnPartitionResult[];
}

export interface AddPartitionsToTxnResponse {
  throttleTimeMs: number;
  results: AddPartitionsToTxnTopicResult[];
}

export const AddPartitionsToTxnApi = new ApiDefinition<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  key: ApiKey.ADD_PARTITIONS_TO_TXN,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    results: request.topics.map((t) => ({ name: t.name, results: t.partitions.map((p) => ({ partitionIndex: p, errorCode })) })),
  }),
  request: [
    f('transactionalId', 'string', '0+'),
    f('producerId', 'int64', '0+'),
    f('producerEpoch', 'int16', '0+'),
    s('topics', '0+', [f('name', 'string', '0+'), f('partitions', '[]int32', '0+')]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [f('name', 'string', '0+'), s('results', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')])]),
  ],
});
