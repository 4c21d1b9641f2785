import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * InitProducerId (key 22), v0-1 (identical layouts); v2 is flexible. Only advertised when the broker supplies a
 * handler, i.e. when idempotent produce is implemented: clients then fail early instead of trusting a broker that
 * does not deduplicate.
 */
export interface InitProducerIdRequest {
  transactionalId: string | null;
  transactionTimeoutMs: number;
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
  maxVersion: 1,
  flexibleFrom: 2,
  request: [f('transactionalId', 'string', '0+', { nullable: '0+' }), f('transactionTimeoutMs', 'int32', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('producerId', 'int64', '0+', { default: -1 }),
    f('producerEpoch', 'int16', '0+'),
  ],
});
