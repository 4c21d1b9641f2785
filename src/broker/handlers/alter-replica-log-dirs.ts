import { ErrorCode } from '../../common/error-codes';
import { tpKey } from '../../common/topic-partition';
import { AlterReplicaLogDirPartitionResult, AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse } from '../../protocol/apis/alter-replica-log-dirs';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * AlterReplicaLogDirs (Kafka's handleAlterReplicaLogDirsRequest): every (partition, dir) of the request, a
 * partition named twice taking its last dir as Kafka's map does, goes to ReplicaManager.alterReplicaLogDirs;
 * the answer lists each partition once, grouped by topic. It needs Alter on the cluster.
 */
export function createAlterReplicaLogDirsHandler(ctx: HandlerContext): ApiHandler<AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse> {
  return async (request, context) => {
    const partitionDirs = new Map<string, { tp: { topic: string; partition: number }; dir: string }>();
    for (const d of request.dirs) {
      for (const t of d.topics) {
        for (const partition of t.partitions) {
          const key = tpKey(t.name, partition);
          // A later entry wins but keeps the first one's place, as a Java HashMap put.
          partitionDirs.set(key, { tp: { topic: t.name, partition }, dir: d.path });
        }
      }
    }
    // Kafka's handleAlterReplicaLogDirsRequest: Alter on the cluster, else every partition refused.
    const errors = authorizeCluster(ctx, context, 'ALTER')
      ? await ctx.replicaManager.alterReplicaLogDirs(partitionDirs)
      : new Map([...partitionDirs.keys()].map((k) => [k, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code]));
    const byTopic = new Map<string, AlterReplicaLogDirPartitionResult[]>();
    for (const [key, { tp }] of partitionDirs) {
      let list = byTopic.get(tp.topic);
      if (list === undefined) byTopic.set(tp.topic, (list = []));
      list.push({ partitionIndex: tp.partition, errorCode: errors.get(key) ?? 0 });
    }
    return { throttleTimeMs: 0, results: [...byTopic].map(([topicName, partitions]) => ({ topicName, partitions })) };
  };
}
