import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/* CreateAcls (key 30), v0-2, Kafka 2.8's window: v1 adds the resource pattern type (KIP-290), v2 is v1 flexible. */
export interface AclCreation {
  resourceType: number;
  resourceName: string;
  resourcePatternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}

export interface CreateAclsRequest {
  creations: AclCreation[];
}

export interface AclCreationResult {
  errorCode: number;
  errorMessage: string | null;
}

export interface CreateAclsResponse {
  throttleTimeMs: number;
  results: AclCreationResult[];
}

export const CreateAclsApi = new ApiDefinition<CreateAclsRequest, CreateAclsResponse>({
  key: ApiKey.CREATE_ACLS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [
    s('creations', '0+', [
      f('resourceType', 'int8', '0+'),
      f('resourceName', 'string', '0+'),
      f('resourcePatternType', 'int8', '1+', { default: 3 }),
      f('principal', 'string', '0+'),
      f('host', 'string', '0+'),
      f('operation', 'int8', '0+'),
      f('permissionType', 'int8', '0+'),
    ]),
  ],
  response: [f('throttleTimeMs', 'int32', '0+'), s('results', '0+', [f('errorCode', 'int16', '0+'), f('errorMessage', 'string', '0+', { nullable: '0+', default: null })])],
});
