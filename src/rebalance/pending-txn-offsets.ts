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
  /** Committed offsets on their way to ZooKeeper, counted per group and partition (see holdWhileStoring). */
  private readonly storing = new Map<string, Map<string, number>>();

  add(groupId: string, producerId: number, offsets: readonly CommitPartition[]): void {
    let byProducer = this.byGroup.get(groupId);
    if (byProducer === undefined) this.byGroup.set(groupId, (byProducer = new Map()));
    let pending = byProducer.get(producerId);
    if (pending === undefined) byProducer.set(producerId, (pending = new Map()));
    for (const o of offsets) pending.set(tpString(o), o);
  }

  /**
   * Whether some producer's open transaction holds an offset of this partition (OffsetFetch's require_stable), or a
   * committed transaction's offset is still being stored.
   */
  hasPending(groupId: string, tp: { topic: string; partition: number }): boolean {
    const key = tpString(tp);
    if (this.storing.get(groupId)?.has(key) === true) return true;
    for (const pending of this.byGroup.get(groupId)?.values() ?? []) if (pending.has(key)) return true;
    return false;
  }

  /**
   * Keeps `offsets` counted as pending until the returned release is called. Kafka's coordinator makes a committed
   * transaction's offsets current in memory at once; here they go to ZooKeeper, and an OffsetFetch answered from
   * ZooKeeper before that write lands would give the offset before the transaction, as stable.
   */
  holdWhileStoring(groupId: string, offsets: readonly { topic: string; partition: number }[]): () => void {
    const byTp = this.storing.get(groupId) ?? new Map<string, number>();
    this.storing.set(groupId, byTp);
    const keys = offsets.map(tpString);
    for (const key of keys) byTp.set(key, (byTp.get(key) ?? 0) + 1);
    return () => {
      for (const key of keys) {
        const n = (byTp.get(key) ?? 1) - 1;
        if (n > 0) byTp.set(key, n);
        else byTp.delete(key);
      }
      if (byTp.size === 0) this.storing.delete(groupId);
    };
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
