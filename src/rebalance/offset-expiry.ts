import { GroupState } from './group-state';

/** One committed offset as the expiry sees it: its partition and when it was last committed. */
export interface CommittedOffsetAge {
  topic: string;
  partition: number;
  commitTimestamp: number;
}

/**
 * What the expiry needs of a group (Kafka's GroupMetadata fields read by removeExpiredOffsets). A group known only
 * by its offsets in ZooKeeper (no members since this broker became its coordinator) is Kafka's offset-only group:
 * no protocol type, Empty, no state timestamp.
 */
export interface GroupExpiryView {
  state: GroupState;
  protocolType: string | null;
  /** When the group entered its current state (Kafka's currentStateTimestamp); null when unknown. */
  currentStateTimestamp: number | null;
  /** The topics the members subscribe to (consumer groups past their first generation), else null. */
  subscribedTopics: ReadonlySet<string> | null;
}

export const OFFSET_ONLY_GROUP: GroupExpiryView = { state: 'Empty', protocolType: null, currentStateTimestamp: null, subscribedTopics: null };

/**
 * The offsets that expire now (Kafka 2.8's GroupMetadata.removeExpiredOffsets, KIP-211 and KIP-496): an offset
 * expires once `retentionMs` has passed since its base time.
 * - A group with a protocol type that is Empty: the base is when it became Empty (or, unknown, the commit time).
 * - A consumer group with members and known subscriptions: the commit time, for the topics none subscribes to.
 * - A group without protocol type (offsets only, committed outside group management): the commit time.
 * - Anything else (members, subscriptions not known yet or not the consumer protocol): nothing expires.
 * (Partitions with a pending transactional commit are spared by the coordinator, which knows them.)
 */
export function expiredOffsets(group: GroupExpiryView, offsets: readonly CommittedOffsetAge[], nowMs: number, retentionMs: number): CommittedOffsetAge[] {
  const expired = (base: (o: CommittedOffsetAge) => number, subscribed: ReadonlySet<string> = new Set()): CommittedOffsetAge[] =>
    offsets.filter((o) => !subscribed.has(o.topic) && nowMs - base(o) >= retentionMs);
  if (group.protocolType !== null && group.state === 'Empty') return expired((o) => group.currentStateTimestamp ?? o.commitTimestamp);
  if (group.protocolType === 'consumer' && group.subscribedTopics !== null) return expired((o) => o.commitTimestamp, group.subscribedTopics);
  if (group.protocolType === null) return expired((o) => o.commitTimestamp);
  return [];
}
