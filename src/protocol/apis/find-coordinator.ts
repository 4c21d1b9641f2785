import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f } from '../schema/field';

/*
 * FindCoordinator (key 10, GroupCoordinator before 0.11), v0-3, Kafka 2.8's maximum; v3 is flexible.
 * v1: KeyType (0 group, 1 transaction); response ThrottleTimeMs (first) and ErrorMessage. v2 = v1. v3 = v2, flexible.
 */
export interface FindCoordinatorRequest {
  key: string;
  keyType: number;
}

export interface FindCoordinatorResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  nodeId: number;
  host: string;
  port: number;
}

export const FindCoordinatorApi = new ApiDefinition<FindCoordinatorRequest, FindCoordinatorResponse>({
  key: ApiKey.FIND_COORDINATOR,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 3,
  request: [f('key', 'string', '0+'), f('keyType', 'int8', '1+', { default: 0 })],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '1+', { nullable: '1+', default: null }),
    f('nodeId', 'int32', '0+'),
    f('host', 'string', '0+'),
    f('port', 'int32', '0+'),
  ],
});
