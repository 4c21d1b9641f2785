import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * ExpireDelegationToken (key 40, KIP-48), v0-2: v1 = v0 (throttling before the response), v2 = v1 made flexible.
 * A negative period expires the token at once; another moves its expiry to now + period (never past its max).
 */
export interface ExpireDelegationTokenRequest {
  hmac: Buffer;
  expiryTimePeriodMs: number;
}

export interface ExpireDelegationTokenResponse {
  errorCode: number;
  expiryTimestampMs: number;
  throttleTimeMs: number;
}

export const ExpireDelegationTokenApi = new ApiDefinition<ExpireDelegationTokenRequest, ExpireDelegationTokenResponse>({
  key: ApiKey.EXPIRE_DELEGATION_TOKEN,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  errorResponse: (_request, _version, errorCode) => ({ errorCode, expiryTimestampMs: -1, throttleTimeMs: 0 }),
  request: [f('hmac', 'bytes', '0+'), f('expiryTimePeriodMs', 'int64', '0+')],
  response: [f('errorCode', 'int16', '0+'), f('expiryTimestampMs', 'int64', '0+'), f('throttleTimeMs', 'int32', '0+')],
});
