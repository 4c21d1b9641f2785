import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/* DeleteTopics (key 20), v0-3; v4 is flexible. v1: ThrottleTimeMs. v2, v3 = v1 (v3 may answer TOPIC_DELETION_DISABLED). */
export interface DeleteTopicsRequest {
  topicNames: string[];
  timeoutMs: number;
}

export interface DeletableTopicResult {
  name: string;
  errorCode: number;
}

export interface DeleteTopicsResponse {
  throttleTimeMs: number;
  responses: DeletableTopicResult[];
}

export const DeleteTopicsApi = new ApiDefinition<DeleteTopicsRequest, DeleteTopicsResponse>({
  key: ApiKey.DELETE_TOPICS,
  minVersion: 0,
  maxVersion: 3,
  flexibleFrom: 4,
  errorResponse: (request, _version, errorCode) => ({
    throttleTimeMs: 0,
    responses: request.topicNames.map((name) => ({ name, errorCode })),
  }),
  request: [f('topicNames', '[]string', '0+'), f('timeoutMs', 'int32', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '1+'),
    s('responses', '0+', [f('name', 'string', '0+'), f('errorCode', 'int16', '0+')]),
  ],
});
