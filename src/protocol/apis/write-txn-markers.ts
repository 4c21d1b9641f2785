import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * WriteTxnMarkers (key 27), v0-1, Kafka 2.8's maximum; v1 is flexible. Sent by a transaction coordinator to the
 * leaders of a transaction's partitions; the response has no throttle time.
 */
export interface WritableTxnMarkerTopic {
  name: string;
  partitionIndexes: number[];
}

export interface WritableTxnMarker {
  producerId: number;
  producerEpoch: number;
  /** true = COMMIT, false = ABORT. */
  transactionResult: boolean;
  topics: WritableTxnMarkerTopic[];
  coordinatorEpoch: number;
}

export interface WriteTxnMarkersRequest {
  markers: WritableTxnMarker[];
}

export interface WritableTxnMarkerPartitionResult {
  partitionIndex: number;
  errorCode: number;
}

export interface WritableTxnMarkerTopicResult {
  name: string;
  partitions: WritableTxnMarkerPartitionResult[];
}

export interface WritableTxnMarkerResult {
  producerId: number;
  topics: WritableTxnMarkerTopicResult[];
}

export interface WriteTxnMarkersResponse {
  markers: WritableTxnMarkerResult[];
}

export const WriteTxnMarkersApi = new ApiDefinition<WriteTxnMarkersRequest, WriteTxnMarkersResponse>({
  key: ApiKey.WRITE_TXN_MARKERS,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 1,
  errorResponse: (request, _version, errorCode) => ({
    markers: request.markers.map((m) => ({
      producerId: m.producerId,
      topics: m.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, errorCode })) })),
    })),
  }),
  request: [
    s('markers', '0+', [
      f('producerId', 'int64', '0+'),
      f('producerEpoch', 'int16', '0+'),
      f('transactionResult', 'bool', '0+'),
      s('topics', '0+', [f('name', 'string', '0+'), f('partitionIndexes', '[]int32', '0+')]),
      f('coordinatorEpoch', 'int32', '0+'),
    ]),
  ],
  response: [
    s('markers', '0+', [
      f('producerId', 'int64', '0+'),
      s('topics', '0+', [f('name', 'string', '0+'), s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')])]),
    ]),
  ],
});
