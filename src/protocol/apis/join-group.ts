import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * JoinGroup (key 11), v0-7, Kafka 2.8's maximum.
 * v1: RebalanceTimeoutMs. v2: ThrottleTimeMs. v4: a dynamic member's first join is answered MEMBER_ID_REQUIRED
 * with the member id to rejoin with (KIP-394). v5: GroupInstanceId (KIP-345 static membership) in the request and
 * per member in the response. v6 is flexible. v7: ProtocolType in the response, and both it and ProtocolName are
 * null in error answers.
 */
export interface JoinGroupRequestProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: JoinGroupRequestProtocol[];
}

export interface JoinGroupResponseMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResponse {
  throttleTimeMs: number;
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: JoinGroupResponseMember[];
}

export const JoinGroupApi = new ApiDefinition<JoinGroupRequest, JoinGroupResponse>({
  key: ApiKey.JOIN_GROUP,
  minVersion: 0,
  maxVersion: 7,
  flexibleFrom: 6,
  request: [
    f('groupId', 'string', '0+'),
    f('sessionTimeoutMs', 'int32', '0+'),
    f('rebalanceTimeoutMs', 'int32', '1+', { default: -1 }),
    f('memberId', 'string', '0+'),
    f('groupInstanceId', 'string', '5+', { nullable: '5+', default: null }),
    f('protocolType', 'string', '0+'),
    s('protocols', '0+', [f('name', 'string', '0+'), f('metadata', 'bytes', '0+')]),
  ],
  response: [
    f('throttleTimeMs', 'int32', '2+'),
    f('errorCode', 'int16', '0+'),
    f('generationId', 'int32', '0+', { default: -1 }),
    f('protocolType', 'string', '7+', { nullable: '7+', default: null }),
    f('protocolName', 'string', '0+', { nullable: '7+' }),
    f('leader', 'string', '0+'),
    f('memberId', 'string', '0+'),
    s('members', '0+', [
      f('memberId', 'string', '0+'),
      f('groupInstanceId', 'string', '5+', { nullable: '5+', default: null }),
      f('metadata', 'bytes', '0+'),
    ]),
  ],
});
