import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * InitProducerId (key 22), Kafka 2.8's v0-v4: v1 is v0's layout (the response may be throttled first), v2 is
 * flexible, v3 adds the producer id and epoch a producer already holds (KIP-360: an idempotent or transactional
 * producer bumps its epoch instead of losing its id), v4 may answer PRODUCER_FENCED (older versions get
 * INVALID_PRODUCER_EPOCH instead, KIP-588).
 */
export interface InitProducerIdRequest {
  transactionalId: string | null;
  transactionTimeoutMs: number;
  /** v3+: the producer id held now, or -1. */
  producerId?: number;
  /** v3+: the epoch held now, or -1. */
  producerEpoch?: number;
}

export interface InitProducerIdResponse {
  throttleTimeMs: number;
  errorCode: number;
  producerId: number;
  producerEpoch: number;
}

export const InitProducerIdApi = new ApiDefinition<InitProducerIdRequest, InitProducerIdResponse>({
  key: ApiKey.INIT_PRODUCER_ID,
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 2,
  request: [
    f('transactionalId', 'string', '0+', { nullable: '0+' }),
    f('transactionTimeoutMs', 'int32', '0+'),
    f('producerId', 'int64', '3+', { default: -1 }),
    f('producerEpoch', 'int16', '3+', { default: -1 }),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('producerId', 'int64', '0+', { default: -1 }),
    f('producerEpoch', 'int16', '0+'),
  ],
});
