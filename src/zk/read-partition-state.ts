import type { Logger } from '../common/logging/logging';
import { ZkClient } from './zk-client';
import { ZkPaths } from './zk-paths';
import { LeaderIsrAndControllerEpoch, PartitionStateZNode } from './znodes/partition-state';

export interface PartitionStateWithVersion {
  state: LeaderIsrAndControllerEpoch;
  zkVersion: number;
}

/**
 * A partition's leader and ISR with the znode version; null when absent or unreadable (Kafka's
 * TopicPartitionStateZNode.decode answers None for unparsable data), which is logged to `log` with the path.
 */
export async function readPartitionState(zk: ZkClient, topic: string, partition: number, log: Logger): Promise<PartitionStateWithVersion | null> {
  const path = ZkPaths.partitionState(topic, partition);
  const node = await zk.getData(path);
  if (node === null) return null;
  try {
    return { state: PartitionStateZNode.decode(path, node.data), zkVersion: node.stat.version };
  } catch (err) {
    log.warn(`Ignoring unreadable partition state at ${path} (${err instanceof Error ? err.message : String(err)})`);
    return null;
  }
}
