import { getLogger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ZkClient } from '../zk/zk-client';
import { ZkPaths } from '../zk/zk-paths';
import { PartitionListZNode } from '../zk/znodes/admin-znodes';

/** Kafka's ReplicaManager.IsrChangePropagationBlackOut / IsrChangePropagationInterval (KAFKA-2406). */
export const ISR_CHANGE_PROPAGATION_CHECK_MS = 2500;
export const ISR_CHANGE_PROPAGATION_BLACK_OUT_MS = 5000;
export const ISR_CHANGE_PROPAGATION_INTERVAL_MS = 60000;

const log = getLogger('kafka.server.ReplicaManager');

/**
 * Tells the controller which partitions' ISRs this leader changed, in batches: one
 * `/isr_change_notification/isr_change_<seq>` per run once no change came for 5 s or the last one is 60 s old,
 * so a burst of shrinks and expands costs the controller one UpdateMetadata round, not one per partition.
 */
export class IsrChangePropagation {
  private readonly changed = new Map<string, TopicPartition>();
  private lastChangeMs: number;
  private lastPropagationMs: number;

  constructor(
    private readonly zk: ZkClient,
    private readonly clock: Clock,
  ) {
    this.lastChangeMs = clock.nowMs();
    this.lastPropagationMs = clock.nowMs();
  }

  record(tp: TopicPartition): void {
    this.changed.set(tpString(tp), tp);
    this.lastChangeMs = this.clock.nowMs();
  }

  /** The `isr-change-propagation` task body. */
  async maybePropagate(): Promise<void> {
    const now = this.clock.nowMs();
    if (this.changed.size === 0) return;
    if (this.lastChangeMs + ISR_CHANGE_PROPAGATION_BLACK_OUT_MS >= now && this.lastPropagationMs + ISR_CHANGE_PROPAGATION_INTERVAL_MS >= now) return;
    const partitions = [...this.changed.values()];
    this.changed.clear();
    try {
      await this.zk.create(ZkPaths.isrChangePrefix, PartitionListZNode.encode(partitions), 'PERSISTENT_SEQUENTIAL');
      this.lastPropagationMs = now;
    } catch (err) {
      // Not lost: the partitions go back in the set and the next run tries again.
      for (const tp of partitions) if (!this.changed.has(tpString(tp))) this.changed.set(tpString(tp), tp);
      log.warn(`Failed to propagate ISR changes for partitions ${partitions.map(tpString).join(',')}`, err);
    }
  }
}
