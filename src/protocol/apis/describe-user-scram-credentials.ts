import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeUserScramCredentials (key 50, KIP-554), v0 only and flexible from the start. `users` null (or empty)
 * describes every user with a SCRAM credential; each result carries its own error (RESOURCE_NOT_FOUND for a user
 * without credentials, DUPLICATE_RESOURCE for a user named twice). Mechanisms travel as ScramMechanism's type
 * byte: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512 (0 is UNKNOWN).
 */
export interface DescribeUserScramCredentialsRequest {
  users: { name: string }[] | null;
}

export interface ScramCredentialInfo {
  mechanism: number;
  iterations: number;
}

export interface DescribeUserScramCredentialsResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
  credentialInfos: ScramCredentialInfo[];
}

export interface DescribeUserScramCredentialsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  results: DescribeUserScramCredentialsResult[];
}

export const DescribeUserScramCredentialsApi = new ApiDefinition<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>({
  key: ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  // DescribeUserScramCredentialsRequest.getErrorResponse: the error at the top and on every user asked for.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    errorCode,
    errorMessage: null,
    results: (request.users ?? []).map((u) => ({ user: u.name, errorCode, errorMessage: null, credentialInfos: [] })),
  }),
  request: [s('users', '0+', [f('name', 'string', '0+')], { nullable: '0+' })],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('results', '0+', [
      f('user', 'string', '0+'),
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      s('credentialInfos', '0+', [f('mechanism', 'int8', '0+'), f('iterations', 'int32', '0+')]),
    ]),
  ],
});
