/*
 * Leader choice as pure functions (Kafka's PartitionLeaderElectionAlgorithms): no ZooKeeper, no requests, so
 * each strategy is tested on its own. A result of null means no eligible leader.
 */

/** An elected leader and the ISR to write with it. */
export interface ElectionResult {
  leader: number;
  isr: number[];
}

/**
 * New and offline partitions: the first replica in assignment order that is live and in the ISR; failing that,
 * with unclean election allowed, the first live replica (which may lose committed data) and an ISR of itself.
 */
export function offlinePartitionLeaderElection(
  assignment: readonly number[],
  isr: readonly number[],
  live: ReadonlySet<number>,
  uncleanLeaderElectionEnabled: boolean,
): (ElectionResult & { unclean: boolean }) | null {
  const clean = assignment.find((r) => live.has(r) && isr.includes(r));
  if (clean !== undefined) return { leader: clean, isr: isr.filter((r) => live.has(r)), unclean: false };
  if (!uncleanLeaderElectionEnabled) return null;
  const unclean = assignment.find((r) => live.has(r));
  return unclean === undefined ? null : { leader: unclean, isr: [unclean], unclean: true };
}

/** The preferred (first assigned) replica, only when it is live and in the ISR; the ISR is kept. */
export function preferredReplicaPartitionLeaderElection(
  assignment: readonly number[],
  isr: readonly number[],
  live: ReadonlySet<number>,
): ElectionResult | null {
  const preferred = assignment[0];
  if (preferred === undefined || !live.has(preferred) || !isr.includes(preferred)) return null;
  return { leader: preferred, isr: [...isr] };
}

/** Partitions led by a broker in controlled shutdown: the first in-ISR replica not shutting down. */
export function controlledShutdownPartitionLeaderElection(
  assignment: readonly number[],
  isr: readonly number[],
  liveOrShuttingDown: ReadonlySet<number>,
  shuttingDown: ReadonlySet<number>,
): ElectionResult | null {
  const leader = assignment.find((r) => liveOrShuttingDown.has(r) && isr.includes(r) && !shuttingDown.has(r));
  if (leader === undefined) return null;
  return { leader, isr: isr.filter((r) => !shuttingDown.has(r)) };
}

/** Reassignment: the first target replica that is live and in the ISR; the ISR is kept. */
export function reassignPartitionLeaderElection(
  targetReplicas: readonly number[],
  isr: readonly number[],
  live: ReadonlySet<number>,
): ElectionResult | null {
  const leader = targetReplicas.find((r) => live.has(r) && isr.includes(r));
  return leader === undefined ? null : { leader, isr: [...isr] };
}
