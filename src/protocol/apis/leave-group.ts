import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * LeaveGroup (key 13), v0-4, Kafka 2.8's maximum. v1: ThrottleTimeMs. v3 (KIP-345): a Members array (member id
 * and/or group instance id) replaces MemberId and the response reports per-member errors. v4 is flexible.
 */
export interface LeaveGroupRequestMember {
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  memberId: string;
  members: LeaveGroupRequestMember[];
}

export interface LeaveGroupResponseMember {
  memberId: string;
  groupInstanceId: string | null;
  errorCode: number;
}

export interface LeaveGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  members: LeaveGroupResponseMember[];
}

export const LeaveGroupApi = new ApiDefinition<LeaveGroupRequest, LeaveGroupResponse>({
  key: ApiKey.LEAVE_GROUP,
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 4,
  request: [
    f('groupId', 'string', '0+'),
    f('memberId', 'string', '0-2'),
    s('members', '3+', [f('memberId', 'string', '3+'), f('groupInstanceId', 'string', '3+', { nullable: '3+' })]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '0+'),
    s('members', '3+', [
      f('memberId', 'string', '3+'),
      f('groupInstanceId', 'string', '3+', { nullable: '3+' }),
      f('errorCode', 'int16', '3+'),
    ]),
  ],
});
