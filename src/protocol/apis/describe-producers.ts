import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeProducers (key 61, KIP-664), v0: Kafka 2.8's whole window, flexible from its first version. For each
 * partition its leader answers the producers its producer state holds (kafka-transactions' describe-producers):
 * id, epoch (an int32 here, unlike elsewhere), last sequence and timestamp, the last coordinator epoch and the
 * first offset of the producer's open transaction (-1 when none).
 */
export interface DescribeProducersRequestTopic {
  name: string;
  partitionIndexes: number[];
}

export interface DescribeProducersRequest {
  topics: DescribeProducersRequestTopic[];
}

export interface DescribeProducersActiveProducer {
  producerId: number;
  producerEpoch: number;
  lastSequence: number;
  lastTimestamp: number;
  coordinatorEpoch: number;
  currentTxnStartOffset: number;
}

export interface DescribeProducersPartitionResponse {
  partitionIndex: number;
  errorCode: number;
  errorMessage: string | null;
  activeProducers: DescribeProducersActiveProducer[];
}

export interface DescribeProducersTopicResponse {
  name: string;
  partitions: DescribeProducersPartitionResponse[];
}

export interface DescribeProducersResponse {
  throttleTimeMs: number;
  topics: DescribeProducersTopicResponse[];
}

export const DescribeProducersApi = new ApiDefinition<DescribeProducersRequest, DescribeProducersResponse>({
  key: ApiKey.DESCRIBE_PRODUCERS,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  request: [s('topics', '0+', [f('name', 'string', '0+'), f('partitionIndexes', '[]int32', '0+')])],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('topics', '0+', [
      f('name', 'string', '0+'),
      s('partitions', '0+', [
        f('partitionIndex', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
        s('activeProducers', '0+', [
          f('producerId', 'int64', '0+'),
          f('producerEpoch', 'int32', '0+'),
          f('lastSequence', 'int32', '0+', { default: -1 }),
          f('lastTimestamp', 'int64', '0+', { default: -1 }),
          f('coordinatorEpoch', 'int32', '0+'),
          f('currentTxnStartOffset', 'int64', '0+', { default: -1 }),
        ]),
      ]),
    ]),
  ],
  // AbstractRequest.getErrorResponse: the code on every partition asked for.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => ({ partitionIndex, errorCode, errorMessage: null, activeProducers: [] })),
    })),
  }),
});
