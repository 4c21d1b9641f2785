import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeGroups (key 15), v0-2; v5 is flexible. v1: ThrottleTimeMs. Capped at 2: kafka-python 2.0.2 decodes
 * later versions with its v2 class, and nobody needs v3's authorized operations or v4's instance ids.
 */
export interface DescribeGroupsRequest {
  groups: string[];
}

export interface DescribedGroupMember {
  memberId: string;
  clientId: string;
  clientHost: string;
  memberMetadata: Buffer;
  memberAssignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  groupId: string;
  groupState: string;
  protocolType: string;
  protocolData: string;
  members: DescribedGroupMember[];
}

export interface DescribeGroupsResponse {
  throttleTimeMs: number;
  groups: DescribedGroup[];
}

export const DescribeGroupsApi = new ApiDefinition<DescribeGroupsRequest, DescribeGroupsResponse>({
  key: ApiKey.DESCRIBE_GROUPS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 5,
  request: [f('groups', '[]string', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    s('groups', '0+', [
      f('errorCode', 'int16', '0+'),
      f('groupId', 'string', '0+'),
      f('groupState', 'string', '0+'),
      f('protocolType', 'string', '0+'),
      f('protocolData', 'string', '0+'),
      s('members', '0+', [
        f('memberId', 'string', '0+'),
        f('clientId', 'string', '0+'),
        f('clientHost', 'string', '0+'),
        f('memberMetadata', 'bytes', '0+'),
        f('memberAssignment', 'bytes', '0+'),
      ]),
    ]),
  ],
});
