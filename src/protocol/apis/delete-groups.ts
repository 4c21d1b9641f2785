import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/* DeleteGroups (key 42), v0-2, Kafka 2.8's maximum: v0-1 identical layouts; v2 = v1, flexible. */
export interface DeleteGroupsRequest {
  groupsNames: string[];
}

export interface DeletableGroupResult {
  groupId: string;
  errorCode: number;
}

export interface DeleteGroupsResponse {
  throttleTimeMs: number;
  results: DeletableGroupResult[];
}

export const DeleteGroupsApi = new ApiDefinition<DeleteGroupsRequest, DeleteGroupsResponse>({
  key: ApiKey.DELETE_GROUPS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [f('groupsNames', '[]string', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [f('groupId', 'string', '0+'), f('errorCode', 'int16', '0+')]),
  ],
});
