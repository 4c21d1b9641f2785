import { tpString } from '../common/topic-partition';
import { OffsetCommitValue, readOffsetCommitValue, readOffsetsTopicKey } from './offset-commit-record';
import { OffsetsLogBatch } from './offsets-log';

/** A committed offset as the log says it, and whether a transaction's COMMIT marker made it one. */
export interface ReplayedOffset {
  topic: string;
  partition: number;
  value: OffsetCommitValue;
  transactional: boolean;
}

export interface OffsetsReplay {
  /** group -> `topic-partition` -> the last committed offset in log order (tombstones remove). */
  committed: Map<string, Map<string, ReplayedOffset>>;
  /** producer id -> group -> `topic-partition` -> offsets of a transaction with no marker yet. */
  pending: Map<number, Map<string, Map<string, ReplayedOffset>>>;
  /** Groups whose group metadata tombstone was read (DeleteGroups or expiry): nothing of theirs is left. */
  removedGroups: Set<string>;
}

export function emptyReplay(): OffsetsReplay {
  return { committed: new Map(), pending: new Map(), removedGroups: new Set() };
}

function groupMap<V>(m: Map<string, Map<string, V>>, group: string): Map<string, V> {
  let g = m.get(group);
  if (g === undefined) m.set(group, (g = new Map()));
  return g;
}

/**
 * Feeds the batches of one read of a `__consumer_offsets` partition into `state` (Kafka 2.8's
 * doLoadGroupsAndOffsets): plain batches' offset records are committed offsets (a null value deletes), a
 * transactional batch's are pending under its producer id until that producer's control batch, whose COMMIT makes
 * them committed (they were written before anything later in the log, so a later plain commit still wins) and whose
 * ABORT drops them. A group tombstone removes the group's offsets. Unreadable records are skipped; returns the
 * offset to read next.
 */
export function replayOffsetsBatches(state: OffsetsReplay, batches: readonly OffsetsLogBatch[], onSkip: (offset: number, err: unknown) => void): number {
  let next = -1;
  for (const batch of batches) {
    next = batch.nextOffset;
    if (batch.marker !== null) {
      if (batch.marker === 'OTHER') continue;
      const pending = state.pending.get(batch.producerId);
      state.pending.delete(batch.producerId);
      if (batch.marker !== 'COMMIT' || pending === undefined) continue;
      for (const [group, offsets] of pending) {
        const committed = groupMap(state.committed, group);
        for (const [key, o] of offsets) committed.set(key, o);
        state.removedGroups.delete(group);
      }
      continue;
    }
    for (const record of batch.records) {
      if (record.key === null) continue;
      try {
        const key = readOffsetsTopicKey(record.key);
        if (key === undefined) continue;
        if (key.kind === 'group') {
          if (record.value === null) {
            state.committed.delete(key.group);
            state.removedGroups.add(key.group);
          }
          continue;
        }
        const tp = tpString(key);
        if (batch.isTransactional) {
          let byGroup = state.pending.get(batch.producerId);
          if (byGroup === undefined) state.pending.set(batch.producerId, (byGroup = new Map()));
          if (record.value !== null) groupMap(byGroup, key.group).set(tp, { topic: key.topic, partition: key.partition, value: readOffsetCommitValue(record.value), transactional: true });
          continue;
        }
        if (record.value === null) {
          state.committed.get(key.group)?.delete(tp);
        } else {
          groupMap(state.committed, key.group).set(tp, { topic: key.topic, partition: key.partition, value: readOffsetCommitValue(record.value), transactional: false });
          state.removedGroups.delete(key.group);
        }
      } catch (err) {
        onSkip(record.offset, err);
      }
    }
  }
  return next;
}
