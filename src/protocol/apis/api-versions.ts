import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ApiVersions (key 18). v0: empty request; response ErrorCode, ApiKeys. v1+: ThrottleTimeMs. v3 (KIP-511, flexible):
 * request ClientSoftwareName/ClientSoftwareVersion, compact encodings and tag sections; the response header stays v0
 * so any client can read the answer. The tagged SupportedFeatures fields (KIP-584) are not sent.
 */
export interface ApiVersionsRequest {
  clientSoftwareName: string;
  clientSoftwareVersion: string;
}

export interface ApiVersionsResponseKey {
  apiKey: number;
  minVersion: number;
  maxVersion: number;
}

export interface ApiVersionsResponse {
  errorCode: number;
  apiKeys: ApiVersionsResponseKey[];
  throttleTimeMs: number;
}

export const ApiVersionsApi = new ApiDefinition<ApiVersionsRequest, ApiVersionsResponse>({
  key: ApiKey.API_VERSIONS,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  request: [f('clientSoftwareName', 'string', '3+'), f('clientSoftwareVersion', 'string', '3+')],
  response: [
    f('errorCode', 'int16', '0+'),
    s('apiKeys', '0+', [f('apiKey', 'int16', '0+'), f('minVersion', 'int16', '0+'), f('maxVersion', 'int16', '0+')]),
    f('throttleTimeMs', 'int32', '1+'),
  ],
});
