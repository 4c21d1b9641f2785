import { tpString } from '../common/topic-partition';
import type { TopicPartitionOffset } from './zk-offset-store';

/** An offset with its metadata, as OffsetCommit carries it (the group coordinator's CommitPartition). */
type CommitPartition = TopicPartitionOffset & { metadata: string | null; leaderEpoch?: number };

/**
 * Offsets committed inside a transaction (TxnOffsetCommit) that are not offsets yet: Kafka's
 * GroupMetadata.pendingTransactionalOffsetCommitsByProducer, per group and producer id. The transaction's marker
 * on the group's `__consumer_offsets` partition decides their fate: COMMIT stores them where this project keeps
 * offsets (ZooKeeper), ABORT drops them. A later commit of the same partition by the same producer replaces the
 * earlier one, as in Kafka.
 */
export class PendingTxnOffsets {
  private readonly byGroup = new Map<string, Map<number, Map<string, CommitPartition>>>();

  add(groupId: string, producerId: number, offsets: readonly CommitPartition[]): void {
    let byProducer = this.byGroup.get(groupId);
    if (byProducer === undefined) this.byGroup.set(groupId, (byProducer = new Map()));
    let pending = byProducer.get(producerId);
    if (pending === undefined) byProducer.set(producerId, (pending = new Map()));
    for (const o of offsets) pending.set(tpString(o), o);
  }

  /** Whether some producer's open transaction holds an offset of this partition (OffsetFetch's require_stable). */
  hasPending(groupId: string, tp: { topic: string; partition: number }): boolean {
    const key = tpString(tp);
    for (const pending of this.byGroup.get(groupId)?.values() ?? []) if (pending.has(key)) return true;
    return false;
  }

  hasPendingForGroup(groupId: string): boolean {
    return (this.byGroup.get(groupId)?.size ?? 0) > 0;
  }

  /** Forgets every group `isIncluded` names (their `__consumer_offsets` partition left this broker). */
  dropGroups(isIncluded: (groupId: string) => boolean): void {
    for (const groupId of [...this.byGroup.keys()]) if (isIncluded(groupId)) this.byGroup.delete(groupId);
  }

  /** Removes and returns, per group in `groups`, what `producerId` had pending. */
  take(producerId: number, isIncluded: (groupId: string) => boolean): { groupId: string; offsets: CommitPartition[] }[] {
    const out: { groupId: string; offsets: CommitPartition[] }[] = [];
    for (const [groupId, byProducer] of this.byGroup) {
      if (!isIncluded(groupId)) continue;
      const pending = byProducer.get(producerId);
      if (pending === undefined) continue;
      byProducer.delete(producerId);
      if (byProducer.size === 0) this.byGroup.delete(groupId);
      out.push({ groupId, offsets: [...pending.values()] });
    }
    return out;
  }
}
