import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * SaslHandshake (key 17), v0-1 (identical layouts). A plaintext broker never advertises it, but kafka-python sends
 * v0 unconditionally when configured for SASL; Kafka's plaintext listener answers ILLEGAL_SASL_STATE.
 */
export interface SaslHandshakeRequest {
  mechanism: string;
}

export interface SaslHandshakeResponse {
  errorCode: number;
  mechanisms: string[];
}

export const SaslHandshakeApi = new ApiDefinition<SaslHandshakeRequest, SaslHandshakeResponse>({
  key: ApiKey.SASL_HANDSHAKE,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: null,
  request: [f('mechanism', 'string', '0+')],
  response: [f('errorCode', 'int16', '0+'), f('mechanisms', '[]string', '0+')],
});
