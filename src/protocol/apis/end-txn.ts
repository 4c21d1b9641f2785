import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * EndTxn (key 26), v0-3, Kafka 2.8's maximum; v3 is flexible. v1 = v0; v2 = v1 with PRODUCER_FENCED answered
 * where older versions get INVALID_PRODUCER_EPOCH.
 */
export interface EndTxnRequest {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** true commits, false aborts. */
  committed: boolean;
}

export interface EndTxnResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const EndTxnApi = new ApiDefinition<EndTxnRequest, EndTxnResponse>({
  key: ApiKey.END_TXN,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  request: [f('transactionalId', 'string', '0+'), f('producerId', 'int64', '0+'), f('producerEpoch', 'int16', '0+'), f('committed', 'bool', '0+')],
  response: [f('throttleTimeMs', 'int32', '0+'), f('errorCode', 'int16', '0+')],
});
