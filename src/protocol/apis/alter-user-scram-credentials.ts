import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * AlterUserScramCredentials (key 51, KIP-554), v0 only and flexible from the start. The client salts and hashes
 * the password itself (Hi(password, salt, iterations)), so the password never crosses the wire; the broker
 * derives the stored and server keys from the salted password. One result per user named.
 */
export interface ScramCredentialDeletion {
  name: string;
  mechanism: number;
}

export interface ScramCredentialUpsertion {
  name: string;
  mechanism: number;
  iterations: number;
  salt: Buffer;
  saltedPassword: Buffer;
}

export interface AlterUserScramCredentialsRequest {
  deletions: ScramCredentialDeletion[];
  upsertions: ScramCredentialUpsertion[];
}

export interface AlterUserScramCredentialsResult {
  user: string;
  errorCode: number;
  errorMessage: string | null;
}

export interface AlterUserScramCredentialsResponse {
  throttleTimeMs: number;
  results: AlterUserScramCredentialsResult[];
}

/** AlterUserScramCredentialsRequest.getErrorResponse: the error on every distinct user the request names. */
function errorResults(request: AlterUserScramCredentialsRequest, errorCode: number, errorMessage: string | null): AlterUserScramCredentialsResult[] {
  const users = new Set<string>();
  for (const d of request.deletions) users.add(d.name);
  for (const u of request.upsertions) users.add(u.name);
  return [...users].map((user) => ({ user, errorCode, errorMessage }));
}

export const AlterUserScramCredentialsApi = new ApiDefinition<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>({
  key: ApiKey.ALTER_USER_SCRAM_CREDENTIALS,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  errorResponse: (request, _version, errorCode) => ({ throttleTimeMs: 0, results: errorResults(request, errorCode, null) }),
  request: [
    s('deletions', '0+', [f('name', 'string', '0+'), f('mechanism', 'int8', '0+')]),
    s('upsertions', '0+', [f('name', 'string', '0+'), f('mechanism', 'int8', '0+'), f('iterations', 'int32', '0+'), f('salt', 'bytes', '0+'), f('saltedPassword', 'bytes', '0+')]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [f('user', 'string', '0+'), f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+', default: null })]),
  ],
});
