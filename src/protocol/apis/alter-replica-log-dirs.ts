import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * AlterReplicaLogDirs (key 34, KIP-113), v0-2: Kafka 2.8's whole window, as every API added since issue 14. v1
 * only changes throttling (the response goes out before the quota delay); v2 is the first flexible version. Each
 * dir names the replicas of this broker to move there; the answer is per partition, with no error message
 * (Kafka logs the reason).
 *
 *   Request  => [dirs: path [topics: name [partitions INT32]]]
 *   Response => throttle_time_ms [results: topic_name [partitions: partition_index error_code]]
 */
export interface AlterReplicaLogDirTopic {
  name: string;
  partitions: number[];
}

export interface AlterReplicaLogDir {
  path: string;
  topics: AlterReplicaLogDirTopic[];
}

export interface AlterReplicaLogDirsRequest {
  dirs: AlterReplicaLogDir[];
}

export interface AlterReplicaLogDirPartitionResult {
  partitionIndex: number;
  errorCode: number;
}

export interface AlterReplicaLogDirTopicResult {
  topicName: string;
  partitions: AlterReplicaLogDirPartitionResult[];
}

export interface AlterReplicaLogDirsResponse {
  throttleTimeMs: number;
  results: AlterReplicaLogDirTopicResult[];
}

export const AlterReplicaLogDirsApi = new ApiDefinition<AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse>({
  key: ApiKey.ALTER_REPLICA_LOG_DIRS,
  minVersion: 0,
  maxVersion: 2,
  flexibleFrom: 2,
  request: [s('dirs', '0+', [f('path', 'string', '0+'), s('topics', '0+', [f('name', 'string', '0+'), f('partitions', '[]int32', '0+')])])],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    s('results', '0+', [f('topicName', 'string', '0+'), s('partitions', '0+', [f('partitionIndex', 'int32', '0+'), f('errorCode', 'int16', '0+')])]),
  ],
  // Kafka's AlterReplicaLogDirsRequest.getErrorResponse: every partition named, grouped by topic, with the error.
  errorResponse: (request, _version, errorCode) => {
    const byTopic = new Map<string, AlterReplicaLogDirPartitionResult[]>();
    for (const d of request.dirs) {
      for (const t of d.topics) {
        let list = byTopic.get(t.name);
        if (list === undefined) byTopic.set(t.name, (list = []));
        for (const p of t.partitions) list.push({ partitionIndex: p, errorCode });
      }
    }
    return { throttleTimeMs: 0, results: [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions })) };
  },
});
