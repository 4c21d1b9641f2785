import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * CreateDelegationToken (key 38, KIP-48), v0-2: v1 = v0 (throttling before the response, KIP-219), v2 = v1 made
 * flexible. The owner is the requesting principal (2.8 has no owner field; KIP-373's came in 3.3). A failed create
 * answers -1 timestamps, an empty token id and an empty HMAC.
 */
export interface CreatableRenewer {
  principalType: string;
  principalName: string;
}

export interface CreateDelegationTokenRequest {
  renewers: CreatableRenewer[];
  maxLifetimeMs: number;
}

export interface CreateDelegationTokenResponse {
  errorCode: number;
  principalType: string;
  principalName: string;
  issueTimestampMs: number;
  expiryTimestampMs: number;
  maxTimestampMs: number;
  tokenId: string;
  hmac: Buffer;
  throttleTimeMs: number;
}

export const CreateDelegationTokenApi = new ApiDefinition<CreateDelegationTokenRequest, CreateDelegationTokenResponse>({
  key: ApiKey.CREATE_DELEGATION_TOKEN,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  errorResponse: (_request, _version, errorCode) => ({
    errorCode,
    principalType: '',
    principalName: '',
    issueTimestampMs: -1,
    expiryTimestampMs: -1,
    maxTimestampMs: -1,
    tokenId: '',
    hmac: Buffer.alloc(0),
    throttleTimeMs: 0,
  }),
  request: [s('renewers', '0+', [f('principalType', 'string', '0+'), f('principalName', 'string', '0+')]), f('maxLifetimeMs', 'int64', '0+')],
  response: [
    f('errorCode', 'int16', '0+'),
    f('principalType', 'string', '0+'),
    f('principalName', 'string', '0+'),
    f('issueTimestampMs', 'int64', '0+'),
    f('expiryTimestampMs', 'int64', '0+'),
    f('maxTimestampMs', 'int64', '0+'),
    f('tokenId', 'string', '0+'),
    f('hmac', 'bytes', '0+'),
    f('throttleTimeMs', 'int32', '0+'),
  ],
});
