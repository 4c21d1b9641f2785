import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeDelegationToken (key 41, KIP-48), v0-2: v1 = v0 (throttling before the response), v2 = v1 made
 * flexible. `owners` null describes every token the requester may see; an empty list describes none.
 */
export interface DelegationTokenPrincipal {
  principalType: string;
  principalName: string;
}

export interface DescribeDelegationTokenRequest {
  owners: DelegationTokenPrincipal[] | null;
}

export interface DescribedDelegationToken {
  principalType: string;
  principalName: string;
  issueTimestamp: number;
  expiryTimestamp: number;
  maxTimestamp: number;
  tokenId: string;
  hmac: Buffer;
  renewers: DelegationTokenPrincipal[];
}

export interface DescribeDelegationTokenResponse {
  errorCode: number;
  tokens: DescribedDelegationToken[];
  throttleTimeMs: number;
}

const principalFields = [f('principalType', 'string', '0+'), f('principalName', 'string', '0+')];

export const DescribeDelegationTokenApi = new ApiDefinition<DescribeDelegationTokenRequest, DescribeDelegationTokenResponse>({
  key: ApiKey.DESCRIBE_DELEGATION_TOKEN,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  errorResponse: (_request, _version, errorCode) => ({ errorCode, tokens: [], throttleTimeMs: 0 }),
  request: [s('owners', '0+', principalFields, { nullable: '0+' })],
  response: [
    f('errorCode', 'int16', '0+'),
    s('tokens', '0+', [
      ...principalFields,
      f('issueTimestamp', 'int64', '0+'),
      f('expiryTimestamp', 'int64', '0+'),
      f('maxTimestamp', 'int64', '0+'),
      f('tokenId', 'string', '0+'),
      f('hmac', 'bytes', '0+'),
      s('renewers', '0+', principalFields),
    ]),
    f('throttleTimeMs', 'int32', '0+'),
  ],
});
