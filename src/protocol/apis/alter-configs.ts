import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * AlterConfigs (key 33), v0-2, Kafka 2.8's whole window: v1 = v0 (throttling behaviour only), v2 is the first
 * flexible version (compact strings and arrays, tagged fields). ResourceType 2 = TOPIC, 4 = BROKER,
 * 8 = BROKER_LOGGER. Each resource's configs replace its whole override set.
 */
export interface AlterableConfig {
  name: string;
  value: string | null;
}

export interface AlterConfigsResource {
  resourceType: number;
  resourceName: string;
  configs: AlterableConfig[];
}

export interface AlterConfigsRequest {
  resources: AlterConfigsResource[];
  validateOnly: boolean;
}

export interface AlterConfigsResourceResponse {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

export interface AlterConfigsResponse {
  throttleTimeMs: number;
  responses: AlterConfigsResourceResponse[];
}

export const AlterConfigsApi = new ApiDefinition<AlterConfigsRequest, AlterConfigsResponse>({
  key: ApiKey.ALTER_CONFIGS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [
    s('resources', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      s('configs', '0+', [f('name', 'string', '0+'), f('value', 'string', '0+', { nullable: '0+' })]),
    ]),
    f('validateOnly', 'bool', '0+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('responses', '0+', [
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
    ]),
  ],
  // AlterConfigsRequest.getErrorResponse: the error for every resource of the request.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    responses: request.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  }),
});
