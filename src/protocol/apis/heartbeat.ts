import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/* Heartbeat (key 12), v0-4, Kafka 2.8's maximum. v1: ThrottleTimeMs. v3: GroupInstanceId (a fenced static member gets FENCED_INSTANCE_ID). v4 is flexible. */
export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface HeartbeatResponse {
  throttleTimeMs: number;
  errorCode: number;
}

export const HeartbeatApi = new ApiDefinition<HeartbeatRequest, HeartbeatResponse>({
  key: ApiKey.HEARTBEAT,
  minVersion: 0,
  maxVersion: 4,
  flexibleFrom: 4,
  request: [
    f('groupId', 'string', '0+'),
    f('generationId', 'int32', '0+'),
    f('memberId', 'string', '0+'),
    f('groupInstanceId', 'string', '3+', { nullable: '3+', default: null }),
  ],
  response: [f('throttleTimeMs', 'int32', '1+'), f('errorCode', 'int16', '0+')],
});
