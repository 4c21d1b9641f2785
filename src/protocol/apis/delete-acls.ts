import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { ACL_FILTER_FIELDS } from './describe-acls';
import { f, s } from '../schema/field';

/* DeleteAcls (key 31), v0-2, Kafka 2.8's window: v1 adds pattern types (KIP-290), v2 is v1 flexible. */
export interface DeleteAclsFilter {
  resourceTypeFilter: number;
  resourceNameFilter: string | null;
  patternTypeFilter: number;
  principalFilter: string | null;
  hostFilter: string | null;
  operation: number;
  permissionType: number;
}

export interface DeleteAclsRequest {
  filters: DeleteAclsFilter[];
}

export interface DeleteAclsMatchingAcl {
  errorCode: number;
  errorMessage: string | null;
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface DeleteAclsFilterResult {
  errorCode: number;
  errorMessage: string | null;
  matchingAcls: DeleteAclsMatchingAcl[];
}

export interface DeleteAclsResponse {
  throttleTimeMs: number;
  filterResults: DeleteAclsFilterResult[];
}

export const DeleteAclsApi = new ApiDefinition<DeleteAclsRequest, DeleteAclsResponse>({
  key: ApiKey.DELETE_ACLS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [
    s('filters', '0+', ACL_FILTER_FIELDS),
  ],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('filterResults', '0+', [
      f('errorCode', 'int16', '0+'),
      f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
      s('matchingAcls', '0+', [
        f('errorCode', 'int16', '0+'),
        f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
        f('resourceType', 'int8', '0+'),
        f('resourceName', 'string', '0+'),
        f('patternType', 'int8', '1+', { default: 3 }),
        f('principal', 'string', '0+'),
        f('host', 'string', '0+'),
        f('operation', 'int8', '0+'),
        f('permissionType', 'int8', '0+'),
      ]),
    ]),
  ],
});
