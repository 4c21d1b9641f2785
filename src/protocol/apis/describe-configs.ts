import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeConfigs (key 32), v0-2; v4 is flexible. v1: IncludeSynonyms; ConfigSource replaces IsDefault and
 * Synonyms are listed. v2 = v1. ResourceType 2 = TOPIC, 4 = BROKER, 8 = BROKER_LOGGER.
 */
export interface DescribeConfigsResource {
  resourceType: number;
  resourceName: string;
  configurationKeys: string[] | null;
}

export interface DescribeConfigsRequest {
  resources: DescribeConfigsResource[];
  includeSynonyms: boolean;
}

export interface DescribeConfigsSynonym {
  name: string;
  value: string | null;
  source: number;
}

export interface DescribeConfigsResourceConfig {
  name: string;
  value: string | null;
  readOnly: boolean;
  isDefault: boolean;
  configSource: number;
  isSensitive: boolean;
  synonyms: DescribeConfigsSynonym[];
}

export interface DescribeConfigsResult {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
  configs: DescribeConfigsResourceConfig[];
}

export interface DescribeConfigsResponse {
  throttleTimeMs: number;
  results: DescribeConfigsResult[];
}

export const DescribeConfigsApi = new ApiDefinition<DescribeConfigsRequest, DescribeConfigsResponse>({
  key: ApiKey.DESCRIBE_CONFIGS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 4,
  request: [
    s('resources', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      f('configurationKeys', '[]string', '0+', { nullable: '0+', default: null }),
    ]),
    f('includeSynonyms', 'bool', '1+'),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      s('configs', '0+', [
        f('name', 'string', '0+'),
        f('value', 'string', '0+', { nullable: '0+' }),
        f('readOnly', 'bool', '0+'),
        f('isDefault', 'bool', '0'),
        f('configSource', 'int8', '1+', { default: -1 }),
        f('isSensitive', 'bool', '0+'),
        s('synonyms', '1+', [
          f('name', 'string', '1+'),
          f('value', 'string', '1+', { nullable: '1+' }),
          f('source', 'int8', '1+'),
        ]),
      ]),
    ]),
  ],
});
