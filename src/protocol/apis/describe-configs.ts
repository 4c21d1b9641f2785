import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeConfigs (key 32), v0-4, Kafka 2.8's whole window. v1: IncludeSynonyms; ConfigSource replaces IsDefault
 * and Synonyms are listed. v2 = v1. v3: IncludeDocumentation, and each config's ConfigType and Documentation.
 * v4 = v3 made flexible. ResourceType 2 = TOPIC, 4 = BROKER, 8 = BROKER_LOGGER.
 */
export interface DescribeConfigsResource {
  resourceType: number;
  resourceName: string;
  configurationKeys: string[] | null;
}

export interface DescribeConfigsRequest {
  resources: DescribeConfigsResource[];
  includeSynonyms: boolean;
  /** v3+; absent is false. */
  includeDocumentation?: boolean;
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
  /** ConfigType: UNKNOWN 0, BOOLEAN 1, STRING 2, INT 3, SHORT 4, LONG 5, DOUBLE 6, LIST 7, CLASS 8, PASSWORD 9. */
  configType?: number;
  /** v3+; absent is null. */
  documentation?: string | null;
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
  maxVersion: 4,
  flexibleFrom: 4,
  request: [
    s('resources', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      f('configurationKeys', '[]string', '0+', { nullable: '0+', default: null }),
    ]),
    f('includeSynonyms', 'bool', '1+'),
    f('includeDocumentation', 'bool', '3+'),
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
        f('configType', 'int8', '3+', { default: 0 }),
        f('documentation', 'string', '3+', { nullable: '0+', default: null }),
      ]),
    ]),
  ],
});
