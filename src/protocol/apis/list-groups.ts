import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * ListGroups (key 16), v0-4, Kafka 2.8's maximum. v1: ThrottleTimeMs. v3 is flexible. v4 (KIP-518): the request's
 * StatesFilter (only groups in one of these states; empty: all) and each group's GroupState.
 */
export interface ListGroupsRequest {
  statesFilter: string[];
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
}

export interface ListGroupsResponse {
  throttleTimeMs: number;
  errorCode: number;
  groups: ListedGroup[];
}

export const ListGroupsApi = new ApiDefinition<ListGroupsRequest, ListGroupsResponse>({
  key: ApiKey.LIST_GROUPS,
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 3,
  request: [f('statesFilter', '[]string', '4+')],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '0+'),
    s('groups', '0+', [f('groupId', 'string', '0+'), f('protocolType', 'string', '0+'), f('groupState', 'string', '4+', { default: '' })]),
  ],
});
