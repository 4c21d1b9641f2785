import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * OffsetDelete (key 47, KIP-496), v0: Kafka 2.8's whole window (it has no flexible version). Deletes a group's
 * committed offsets of the named partitions, on the group's coordinator. A group-level error (NOT_COORDINATOR,
 * GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, ...) is answered at the top with no topics; partition errors
 * (GROUP_SUBSCRIBED_TO_TOPIC, UNKNOWN_TOPIC_OR_PARTITION) per partition.
 */
export interface OffsetDeleteRequest {
  groupId: string;
  topics: { name: string; partitions: { partitionIndex: number }[] }[];
}

export interface OffsetDeleteResponse {
  errorCode: number;
  throttleTimeMs: number;
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

export const OffsetDeleteApi = new ApiDefinition<OffsetDeleteRequest, OffsetDeleteResponse>({
  key: ApiKey.OFFSET_DELETE,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: null,
  request: [f('groupId', 'string', '0+'), s('topics', '0+', [f('name', 'string', '0+'), s('partitions', '0+', [f('partitionIndex', 'int32', '0+')])])],
  response: [
    f('errorCode', 'int16', '0+'),
    f('throttleTimeMs', 'int32', '0+'),
    s('topics', '0+', [f('name', 'string', '0+'), s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')])]),
  ],
});
