import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * RenewDelegationToken (key 39, KIP-48), v0-2: v1 = v0 (throttling before the response), v2 = v1 made flexible.
 * The token is named by its HMAC; a negative period asks for the broker's delegation.token.expiry.time.ms.
 */
export interface RenewDelegationTokenRequest {
  hmac: Buffer;
  renewPeriodMs: number;
}

export interface RenewDelegationTokenResponse {
  errorCode: number;
  expiryTimestampMs: number;
  throttleTimeMs: number;
}

export const RenewDelegationTokenApi = new ApiDefinition<RenewDelegationTokenRequest, RenewDelegationTokenResponse>({
  key: ApiKey.RENEW_DELEGATION_TOKEN,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  errorResponse: (_request, _version, errorCode) => ({ errorCode, expiryTimestampMs: -1, throttleTimeMs: 0 }),
  request: [f('hmac', 'bytes', '0+'), f('renewPeriodMs', 'int64', '0+')],
  response: [f('errorCode', 'int16', '0+'), f('expiryTimestampMs', 'int64', '0+'), f('throttleTimeMs', 'int32', '0+')],
});
