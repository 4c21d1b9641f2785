import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeGroups (key 15), v0-5, Kafka 2.8's maximum. v1: ThrottleTimeMs. v3: IncludeAuthorizedOperations and each
 * group's AuthorizedOperations (a bit field of AclOperation codes, Int.MinValue when not asked for). v4: each
 * member's GroupInstanceId (KIP-345). v5 is flexible. kafka-python 2.0.2 stops at v2 (it decodes later versions
 * with its v2 class, so it must never be sent more than it asks for: it negotiates min(its max, ours)).
 */
export interface DescribeGroupsRequest {
  groups: string[];
  includeAuthorizedOperations: boolean;
}

export interface DescribedGroupMember {
  memberId: string;
  groupInstanceId: string | null;
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
  authorizedOperations: number;
}

export interface DescribeGroupsResponse {
  throttleTimeMs: number;
  groups: DescribedGroup[];
}

export const DescribeGroupsApi = new ApiDefinition<DescribeGroupsRequest, DescribeGroupsResponse>({
  key: ApiKey.DESCRIBE_GROUPS,
  minVersion: 0,
  maxVersion: 5,
  flexibleFrom: 5,
  request: [f('groups', '[]string', '0+'), f('includeAuthorizedOperations', 'bool', '3+', { default: false })],
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
        f('groupInstanceId', 'string', '4+', { nullable: '4+', default: null }),
        f('clientId', 'string', '0+'),
        f('clientHost', 'string', '0+'),
        f('memberMetadata', 'bytes', '0+'),
        f('memberAssignment', 'bytes', '0+'),
      ]),
      f('authorizedOperations', 'int32', '3+', { default: -2147483648 }),
    ]),
  ],
});
