import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * SaslAuthenticate (key 36, KIP-152), v0-2: the SASL tokens in Kafka frames after a v1 SaslHandshake. v1 adds
 * the session lifetime (KIP-368: the client re-authenticates before it runs out), v2 is flexible.
 */
export interface SaslAuthenticateRequest {
  authBytes: Buffer;
}

export interface SaslAuthenticateResponse {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  sessionLifetimeMs: number;
}

export const SaslAuthenticateApi = new ApiDefinition<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  key: ApiKey.SASL_AUTHENTICATE,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [f('authBytes', 'bytes', '0+')],
  response: [
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+' }),
    f('authBytes', 'bytes', '0+'),
    f('sessionLifetimeMs', 'int64', '1+', { default: 0 }),
  ],
});
