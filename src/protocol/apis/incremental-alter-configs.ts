import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * IncrementalAlterConfigs (key 44, KIP-339), v0-1, Kafka 2.8's whole window: v1 = v0 made flexible. Each config
 * names an operation on the resource's stored overrides: SET 0, DELETE 1, APPEND 2, SUBTRACT 3 (the last two for
 * list-type keys only). ResourceType 2 = TOPIC, 4 = BROKER, 8 = BROKER_LOGGER.
 */
export const AlterConfigOpType = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;

export interface AlterableConfigOp {
  name: string;
  configOperation: number;
  value: string | null;
}

export interface IncrementalAlterConfigsResource {
  resourceType: number;
  resourceName: string;
  configs: AlterableConfigOp[];
}

export interface IncrementalAlterConfigsRequest {
  resources: IncrementalAlterConfigsResource[];
  validateOnly: boolean;
}

export interface IncrementalAlterConfigsResourceResponse {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
}

export interface IncrementalAlterConfigsResponse {
  throttleTimeMs: number;
  responses: IncrementalAlterConfigsResourceResponse[];
}

export const IncrementalAlterConfigsApi = new ApiDefinition<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  key: ApiKey.INCREMENTAL_ALTER_CONFIGS,
  minVersion: 0,
  maxVersion: 1,
  flexibleFrom: 1,
  request: [
    s('resources', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      s('configs', '0+', [
        f('name', 'string', '0+'),
        f('configOperation', 'int8', '0+'),
        f('value', 'string', '0+', { nullable: '0+' }),
      ]),
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
  // IncrementalAlterConfigsRequest.getErrorResponse: the error for every resource of the request.
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    responses: request.resources.map((r) => ({ errorCode, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
  }),
});
