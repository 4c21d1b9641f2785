import { ErrorCode } from '../../common/error-codes';
import { ApiKey } from '../../protocol/api-keys';
import { ApiVersionsRequest, ApiVersionsResponse, ApiVersionsResponseKey } from '../../protocol/apis/api-versions';
import { NEVER_ADVERTISED, allApis } from '../../protocol/apis';
import { ApiHandler } from '../network/api-handler';

/**
 * The ApiVersions table derived from the protocol registry: every registered API for which the broker installed a
 * handler (ApiVersions itself always), with the window declared in its API file. SaslHandshake is never listed on
 * a plaintext broker: Kafka advertises it only where a SASL listener exists, and librdkafka would try it.
 */
export function advertisedApiVersions(hasHandler: (apiKey: number) => boolean): ApiVersionsResponseKey[] {
  return allApis()
    .filter((api) => api.key === ApiKey.API_VERSIONS || (hasHandler(api.key) && !NEVER_ADVERTISED.has(api.key)))
    .map((api) => ({ apiKey: api.key, minVersion: api.minVersion, maxVersion: api.maxVersion }));
}

/** Kafka's check of the KIP-511 software name/version (ApiVersionsRequest.isValid). */
const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/**
 * ApiVersions handler. v3 carries the client's software name and version, remembered on the connection as
 * Kafka's ClientInformation; an invalid one is answered with INVALID_REQUEST, as Kafka does. Throttle is always 0
 * (kafkajs would otherwise pause itself, KIP-219).
 */
export function createApiVersionsHandler(keys: readonly ApiVersionsResponseKey[]): ApiHandler<ApiVersionsRequest, ApiVersionsResponse> {
  const apiKeys = [...keys];
  return (request, context) => {
    if (context.header.apiVersion >= 3) {
      if (!SOFTWARE_PATTERN.test(request.clientSoftwareName) || !SOFTWARE_PATTERN.test(request.clientSoftwareVersion)) {
        return { errorCode: ErrorCode.INVALID_REQUEST.code, apiKeys: [], throttleTimeMs: 0 };
      }
      context.connection.clientSoftwareName = request.clientSoftwareName;
      context.connection.clientSoftwareVersion = request.clientSoftwareVersion;
    }
    return { errorCode: ErrorCode.NONE.code, apiKeys, throttleTimeMs: 0 };
  };
}
