import type { EpochEndOffsetData } from '../protocol/apis/fetch';

/** The leader's answer for an epoch (Log.endOffsetForEpoch): the largest epoch at or below it and where it ends. */
export type EndOffsetForEpoch = (leaderEpoch: number) => { leaderEpoch: number; endOffset: number };

/**
 * Kafka 2.8's Partition.readRecords check for a fetch that names the epoch of its last fetched record (Fetch
 * v12, KIP-595's change to the fetch): the fetcher's log diverges from ours when our log has no such epoch (the
 * epoch found is older) or that epoch ends before the fetch offset. The answer is then that epoch and its end
 * offset, and no records: the follower truncates there without an OffsetForLeaderEpoch round. Null when the logs
 * agree or the fetcher does not know its last epoch (-1, and every version below 12).
 */
export function divergingEpoch(endOffsetForEpoch: EndOffsetForEpoch, lastFetchedEpoch: number, fetchOffset: number): EpochEndOffsetData | null {
  if (lastFetchedEpoch < 0) return null;
  const end = endOffsetForEpoch(lastFetchedEpoch);
  if (end.endOffset < fetchOffset || end.leaderEpoch < lastFetchedEpoch) return { epoch: end.leaderEpoch, endOffset: end.endOffset };
  return null;
}
