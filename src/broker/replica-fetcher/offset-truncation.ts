import { Log } from '../../log/log';
import { UNDEFINED_EPOCH, UNDEFINED_EPOCH_OFFSET } from '../../log/leader-epoch-file-cache';

/** Where a follower truncates to, and whether it must ask the leader again (Kafka's OffsetTruncationState). */
export interface OffsetTruncationState {
  offset: number;
  truncationCompleted: boolean;
}

/**
 * KIP-101/279: from the leader's answer to OffsetsForLeaderEpoch (the largest epoch it has at or below ours and
 * where that epoch ends), the offset where our log stops agreeing with the leader's. Undefined answers mean
 * the leader cannot tell (old format data): fall back to our high watermark. When the leader names an epoch we
 * never saw, cut to the end of our largest smaller epoch and ask again with that.
 */
export function offsetTruncationState(log: Log, leaderEpoch: number, leaderEndOffset: number): OffsetTruncationState {
  const logEndOffset = log.logEndOffset;
  if (leaderEndOffset === UNDEFINED_EPOCH_OFFSET) return { offset: Math.min(log.highWatermark, logEndOffset), truncationCompleted: true };
  if (leaderEpoch === UNDEFINED_EPOCH) return { offset: Math.min(leaderEndOffset, logEndOffset), truncationCompleted: true };
  const ours = log.leaderEpochCache.endOffsetFor(leaderEpoch, logEndOffset);
  if (ours.epoch === UNDEFINED_EPOCH) return { offset: Math.min(leaderEndOffset, logEndOffset), truncationCompleted: true };
  if (ours.epoch !== leaderEpoch) return { offset: Math.min(ours.startOffset, logEndOffset), truncationCompleted: false };
  return { offset: Math.min(ours.startOffset, leaderEndOffset, logEndOffset), truncationCompleted: true };
}
