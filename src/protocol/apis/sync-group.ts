import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * SyncGroup (key 14), v0-5, Kafka 2.8's maximum. v1: ThrottleTimeMs. v3: GroupInstanceId. v4 is flexible.
 * v5: ProtocolType and ProtocolName in the request (checked against the group's: INCONSISTENT_GROUP_PROTOCOL) and
 * in the response.
 */
export interface SyncGroupRequestAssignment {
  memberId: string;
  assignment: Buffer;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: SyncGroupRequestAssignment[];
}

export interface SyncGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export const SyncGroupApi = new ApiDefinition<SyncGroupRequest, SyncGroupResponse>({
  key: ApiKey.SYNC_GROUP,
  minVersion: 0,
  maxVersion: 5,
  flexibleFrom: 4,
  request: [
    f('groupId', 'string', '0+'),
    f('generationId', 'int32', '0+'),
    f('memberId', 'string', '0+'),
    f('groupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
    f('protocolType', 'string', '5+', { nullable: '5+', default: null }),
    f('protocolName', 'string', '5+', { nullable: '5+', default: null }),
    s('assignments', '0+', [f('memberId', 'string', '0+'), f('assignment', 'bytes', '0+')]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '0+'),
    f('protocolType', 'string', '5+', { nullable: '5+', default: null }),
    f('protocolName', 'string', '5+', { nullable: '5+', default: null }),
    f('assignment', 'bytes', '0+'),
  ],
});
