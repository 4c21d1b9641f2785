import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/* ListGroups (key 16), v0-2; v3 is flexible (and adds state filters). v1: ThrottleTimeMs. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ListGroupsRequest {}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
}

export interface ListGroupsResponse {
  throttleTimeMs: number;
  errorCode: number;
  groups: ListedGroup[];
}

export const ListGroupsApi = new ApiDefinition<ListGroupsRequest, ListGroupsResponse>({
  key: ApiKey.LIST_GROUPS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 3,
  request: [],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '0+'),
    s('groups', '0+', [f('groupId', 'string', '0+'), f('protocolType', 'string', '0+')]),
  ],
});
