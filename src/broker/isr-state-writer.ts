import { TopicPartition } from '../common/topic-partition';
import { ZkClient } from '../zk/zk-client';
import { isZkError } from '../zk/zk-error';
import { ZkPaths } from '../zk/zk-paths';
import { LeaderIsrAndControllerEpoch, PartitionStateZNode } from '../zk/znodes/partition-state';

/**
 * The leader's own write of a partition's ISR (Kafka's ReplicationUtils.updateLeaderAndIsr, pre-AlterIsr):
 * a conditional setData of `/brokers/topics/<t>/partitions/<p>/state` on the zkVersion the leader knows, so a
 * concurrent controller write (new leader, ISR change after a broker failure) wins and the leader backs off.
 */
export class IsrStateWriter {
  constructor(private readonly zk: ZkClient) {}

  /** The new zkVersion, or null when the node's version is not `expectedZkVersion` (BADVERSION) or it is gone. */
  async write(tp: TopicPartition, state: LeaderIsrAndControllerEpoch, expectedZkVersion: number): Promise<number | null> {
    try {
      const stat = await this.zk.setData(ZkPaths.partitionState(tp.topic, tp.partition), PartitionStateZNode.encode(state), expectedZkVersion);
      return stat.version;
    } catch (err) {
      if (isZkError(err, 'BADVERSION') || isZkError(err, 'NONODE')) return null;
      throw err;
    }
  }
}
