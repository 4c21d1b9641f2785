/**
 * The states of a consumer group on its coordinator (Kafka's GroupState doc blocks in GroupMetadata.scala):
 *
 * Empty — the group has no members, but may have committed offsets (ZooKeeper).
 *   action: JoinGroup (new member) starts a rebalance; OffsetCommit with generation -1 is stored; Heartbeat,
 *           SyncGroup and member commits get UNKNOWN_MEMBER_ID.
 *   transition: a member joins -> PreparingRebalance; group deleted or coordinator moves -> Dead.
 *
 * PreparingRebalance — waiting for every known member to send JoinGroup, up to the largest rebalance timeout
 *   (for a new group first group.initial.rebalance.delay.ms, extended while members keep arriving).
 *   action: JoinGroup is parked; Heartbeat answers REBALANCE_IN_PROGRESS (how members learn to rejoin);
 *           SyncGroup answers REBALANCE_IN_PROGRESS; commits from members of the current generation are stored.
 *   transition: all joined or timeout -> CompletingRebalance (members that did not rejoin are dropped),
 *               or Empty if none remain; coordinator moves -> Dead.
 *
 * CompletingRebalance — joins answered with the new generation (the leader got every member's metadata);
 *   waiting for the leader's SyncGroup with the assignment.
 *   action: followers' SyncGroup is parked; Heartbeat is accepted; OffsetCommit gets REBALANCE_IN_PROGRESS;
 *           a repeated JoinGroup with unchanged metadata gets the current generation again.
 *   transition: leader's SyncGroup -> Stable; a member joins, leaves or times out -> PreparingRebalance
 *               (parked SyncGroups get REBALANCE_IN_PROGRESS); coordinator moves -> Dead.
 *
 * Stable — every member has its assignment and heartbeats.
 *   action: Heartbeat, SyncGroup (returns the stored assignment) and OffsetCommit are served; JoinGroup from
 *           the leader or with changed metadata starts a rebalance, otherwise returns the current generation.
 *   transition: a member joins, leaves, times out or changes its subscription -> PreparingRebalance;
 *               coordinator moves -> Dead.
 *
 * Dead — removed (deleted, or this broker no longer leads the group's __consumer_offsets partition); the
 *   group object is dropped and requests are answered as for an unknown group.
 */
export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

/** Whether `to` may follow `from` (Kafka throws IllegalStateException otherwise: it is a coordinator bug). */
export function isValidTransition(from: GroupState, to: GroupState): boolean {
  return VALID_PREVIOUS[to].includes(from);
}
