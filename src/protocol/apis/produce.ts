import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * Produce (key 0), v0-9: Kafka 2.8's maximum. v8 (KIP-467): per-partition RecordErrors (the index of each
 * rejected record in its batch, with the reason) and ErrorMessage. v9 is the first flexible version.
 * v1: ThrottleTimeMs (after the array, unlike most responses). v2: LogAppendTimeMs. v3: TransactionalId; records
 * must be magic 2. v5: LogStartOffset. v7: zstd allowed. Records stay opaque bytes: src/log parses them.
 * Acks = 0 means the client expects no response at all (the handler returns NO_RESPONSE).
 */
export interface ProducePartitionData {
  index: number;
  records: Buffer | null;
}

export interface ProduceTopicData {
  name: string;
  partitionData: ProducePartitionData[];
}

export interface ProduceRequest {
  transactionalId: string | null;
  acks: number;
  timeoutMs: number;
  topicData: ProduceTopicData[];
}

export interface BatchIndexAndErrorMessage {
  batchIndex: number;
  batchIndexErrorMessage: string | null;
}

export interface ProducePartitionResponse {
  index: number;
  errorCode: number;
  baseOffset: number;
  logAppendTimeMs: number;
  logStartOffset: number;
  /** v8+: the records LogValidator rejected (empty otherwise). */
  recordErrors?: BatchIndexAndErrorMessage[];
  /** v8+: the partition's error message (null when it has none). */
  errorMessage?: string | null;
}

export interface ProduceTopicResponse {
  name: string;
  partitionResponses: ProducePartitionResponse[];
}

export interface ProduceResponse {
  responses: ProduceTopicResponse[];
  throttleTimeMs: number;
}

export const ProduceApi = new ApiDefinition<ProduceRequest, ProduceResponse>({
  key: ApiKey.PRODUCE,
  minVersion: 0,
  maxVersion: 9,
  flexibleFrom: 9,
  errorResponse: (request, _version, errorCode) => ({
    responses: request.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 })),
    })),
    throttleTimeMs: 0,
  }),
  request: [
    f('transactionalId', 'string', '3+', { nullable: '3+', default: null }),
    f('acks', 'int16', '0+'),
    f('timeoutMs', 'int32', '0+'),
    s('topicData', '0+', [
      f('name', 'string', '0+'),
      s('partitionData', '0+', [f('index', 'int32', '0+'), f('records', 'records', '0+', { nullable: '0+' })]),
    ]),
  ],
  response: [
    s('responses', '0+', [
      f('name', 'string', '0+'),
      s('partitionResponses', '0+', [
        f('index', 'int32', '0+'),
        f('errorCode', 'int16', '0+'),
        f('baseOffset', 'int64', '0+'),
        f('logAppendTimeMs', 'int64', '2+', { default: -1 }),
        f('logStartOffset', 'int64', '5+', { default: -1 }),
        s('recordErrors', '8+', [f('batchIndex', 'int32', '8+'), f('batchIndexErrorMessage', 'string', '8+', { nullable: '8+', default: null })]),
        f('errorMessage', 'string', '8+', { nullable: '8+', default: null }),
      ]),
    ]),
    f('throttleTimeMs', 'int32', '1+'),
  ],
});
