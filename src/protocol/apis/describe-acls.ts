import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeAcls (key 29), v0-2, Kafka 2.8's window: v1 adds the pattern type filter (KIP-290; absent means
 * LITERAL, 3), v2 is v1 flexible. Enum fields carry Kafka's codes (ResourceType, PatternType, AclOperation,
 * AclPermissionType).
 */
export interface DescribeAclsRequest {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export interface AclDescription {
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface DescribeAclsResource {
  resourceType: number;
  resourceName: string;
  patternType: number;
  acls: AclDescription[];
}

export interface DescribeAclsResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  resources: DescribeAclsResource[];
}

/** An ACL binding filter's fields: DescribeAcls' request, and each of DeleteAcls' filters (the same schema). */
export const ACL_FILTER_FIELDS = [
  f('resourceTypeFilter', 'int8', '0+'),
  f('resourceNameFilter', 'string', '0+', { nullable: '0+' }),
  f('patternTypeFilter', 'int8', '1+', { default: 3 }),
  f('principalFilter', 'string', '0+', { nullable: '0+' }),
  f('hostFilter', 'string', '0+', { nullable: '0+' }),
  f('operation', 'int8', '0+'),
  f('permissionType', 'int8', '0+'),
];

export const DescribeAclsApi = new ApiDefinition<DescribeAclsRequest, DescribeAclsResponse>({
  key: ApiKey.DESCRIBE_ACLS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: ACL_FILTER_FIELDS,
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    s('resources', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      f('patternType', 'int8', '1+', { default: 3 }),
      s('acls', '0+', [f('principal', 'string', '0+'), f('host', 'string', '0+'), f('operation', 'int8', '0+'), f('permissionType', 'int8', '0+')]),
    ]),
  ],
});
