import { TopicPartition, tpString } from '../common/topic-partition';
import { PartitionReassignment } from '../zk/znodes/admin-znodes';

/** Kafka's broker-level throttle keys (ReassignPartitionsCommand.brokerLevelThrottles, in its order). */
export const BROKER_LEVEL_LEADER_THROTTLE = 'leader.replication.throttled.rate';
export const BROKER_LEVEL_FOLLOWER_THROTTLE = 'follower.replication.throttled.rate';
export const BROKER_LEVEL_LOG_DIR_THROTTLE = 'replica.alter.log.dirs.io.max.bytes.per.second';
export const BROKER_LEVEL_THROTTLES = [BROKER_LEVEL_LEADER_THROTTLE, BROKER_LEVEL_FOLLOWER_THROTTLE, BROKER_LEVEL_LOG_DIR_THROTTLE] as const;
/** Kafka's topic-level throttle keys. */
export const TOPIC_LEVEL_LEADER_THROTTLE = 'leader.replication.throttled.replicas';
export const TOPIC_LEVEL_FOLLOWER_THROTTLE = 'follower.replication.throttled.replicas';
export const TOPIC_LEVEL_THROTTLES = [TOPIC_LEVEL_LEADER_THROTTLE, TOPIC_LEVEL_FOLLOWER_THROTTLE] as const;

export const YOU_MUST_RUN_VERIFY_PERIODICALLY_MESSAGE = 'Warning: You must run --verify periodically, until the reassignment completes, to ensure the throttle is removed.';

/** Kafka's PartitionMove: the replicas data is copied from, and those it is copied to. */
export interface PartitionMove {
  readonly sources: ReadonlySet<number>;
  readonly destinations: ReadonlySet<number>;
}

/** topic -> partition -> move (Kafka's MoveMap). */
export type MoveMap = Map<string, Map<number, PartitionMove>>;

/** A reassignment in progress, as ListPartitionReassignments reports it. */
export interface CurrentReassignment {
  readonly tp: TopicPartition;
  readonly replicas: readonly number[];
  readonly addingReplicas: readonly number[];
}

function partMoves(map: MoveMap, topic: string): Map<number, PartitionMove> {
  let moves = map.get(topic);
  if (moves === undefined) map.set(topic, (moves = new Map()));
  return moves;
}

/** Kafka's calculateCurrentMoveMap: an ongoing reassignment copies from its non-adding replicas to its adding ones. */
export function calculateCurrentMoveMap(current: readonly CurrentReassignment[]): MoveMap {
  const map: MoveMap = new Map();
  for (const r of current) {
    const sources = new Set(r.replicas.filter((b) => !r.addingReplicas.includes(b)));
    partMoves(map, r.tp.topic).set(r.tp.partition, { sources, destinations: new Set(r.addingReplicas) });
  }
  return map;
}

/**
 * Kafka's calculateProposedMoveMap: the ongoing moves, with each proposed partition's move from its sources (the
 * ongoing move's, else its current replicas) to the proposed replicas that are not among them.
 */
export function calculateProposedMoveMap(current: readonly CurrentReassignment[], proposed: readonly PartitionReassignment[], currentParts: ReadonlyMap<string, readonly number[]>): MoveMap {
  const map = calculateCurrentMoveMap(current);
  for (const p of proposed) {
    const moves = partMoves(map, p.topic);
    const ongoing = moves.get(p.partition);
    let sourceList: readonly number[];
    if (ongoing !== undefined) sourceList = [...ongoing.sources];
    else {
      const replicas = currentParts.get(tpString(p));
      if (replicas === undefined) throw new Error(`Trying to reassign a topic partition ${tpString(p)} with 0 replicas`);
      sourceList = replicas;
    }
    const sources = new Set(sourceList);
    moves.set(p.partition, { sources, destinations: new Set(p.replicas.filter((b) => !sources.has(b))) });
  }
  return map;
}

/** Scala's TreeSet[String].mkString(","): sorted as strings. */
function sortedJoin(components: Set<string>): string {
  return [...components].sort().join(',');
}

/** Kafka's calculateLeaderThrottles: per topic, `partition:source` for every source of every move. */
export function calculateLeaderThrottles(moveMap: MoveMap): Map<string, string> {
  const result = new Map<string, string>();
  for (const [topic, moves] of moveMap) {
    const components = new Set<string>();
    for (const [partition, move] of moves) for (const source of move.sources) components.add(`${partition}:${source}`);
    result.set(topic, sortedJoin(components));
  }
  return result;
}

/** Kafka's calculateFollowerThrottles: per topic, `partition:destination` for every destination not a source. */
export function calculateFollowerThrottles(moveMap: MoveMap): Map<string, string> {
  const result = new Map<string, string>();
  for (const [topic, moves] of moveMap) {
    const components = new Set<string>();
    for (const [partition, move] of moves) for (const d of move.destinations) if (!move.sources.has(d)) components.add(`${partition}:${d}`);
    result.set(topic, sortedJoin(components));
  }
  return result;
}

/** Kafka's calculateReassigningBrokers: every source and destination, in id order. */
export function calculateReassigningBrokers(moveMap: MoveMap): number[] {
  const brokers = new Set<number>();
  for (const moves of moveMap.values()) {
    for (const move of moves.values()) {
      for (const b of move.sources) brokers.add(b);
      for (const b of move.destinations) brokers.add(b);
    }
  }
  return [...brokers].sort((a, b) => a - b);
}

/** Kafka's TopicPartitionReplica. */
export interface TopicPartitionReplica {
  readonly topic: string;
  readonly partition: number;
  readonly brokerId: number;
}

/** TopicPartitionReplica.toString: `topic-partition-broker`. */
export function replicaString(r: TopicPartitionReplica): string {
  return `${r.topic}-${r.partition}-${r.brokerId}`;
}

/** Kafka's compareTopicPartitionReplicas: topic, then partition, then broker. */
export function compareReplicas(a: TopicPartitionReplica, b: TopicPartitionReplica): number {
  if (a.topic !== b.topic) return a.topic < b.topic ? -1 : 1;
  if (a.partition !== b.partition) return a.partition - b.partition;
  return a.brokerId - b.brokerId;
}

/** parseExecuteAssignmentArgs' replica moves: each replica whose log dir is not "any", and that dir. */
export function logDirMoves(plan: readonly PartitionReassignment[]): { replica: TopicPartitionReplica; logDir: string }[] {
  const moves: { replica: TopicPartitionReplica; logDir: string }[] = [];
  for (const p of plan) {
    (p.logDirs ?? []).forEach((dir, i) => {
      const brokerId = p.replicas[i];
      if (dir !== 'any' && brokerId !== undefined) moves.push({ replica: { topic: p.topic, partition: p.partition, brokerId }, logDir: dir });
    });
  }
  return moves;
}

/** What DescribeLogDirs says of one replica: its current and future dirs (null when none). */
export interface ReplicaLogDirInfo {
  readonly current: string | null;
  readonly future: string | null;
}

/** Kafka's replicaMoveStatesToString: one line per targeted replica, in replica order. */
export function replicaMoveStatesLines(moves: readonly { replica: TopicPartitionReplica; logDir: string }[], infos: ReadonlyMap<string, ReplicaLogDirInfo>): { lines: string[]; ongoing: boolean } {
  const lines: string[] = [];
  let ongoing = false;
  for (const { replica, logDir } of [...moves].sort((a, b) => compareReplicas(a.replica, b.replica))) {
    const info = infos.get(replicaString(replica));
    const tp = `${replica.topic}-${replica.partition}`;
    if (info === undefined) {
      ongoing = true;
      lines.push(`Partition ${tp} cannot be found in any live log directory on broker ${replica.brokerId}.`);
    } else if (info.current === null) {
      ongoing = true;
      lines.push(`Partition ${tp} is not found in any live log dir on broker ${replica.brokerId}. There is likely an offline log directory on the broker.`);
    } else if (info.future === null) {
      if (info.current === logDir) lines.push(`Reassignment of replica ${replicaString(replica)} completed successfully.`);
      // Kafka's CancelledMoveState counts as done.
      else {
        lines.push(`Partition ${tp} on broker ${replica.brokerId} is not being moved from log dir ${info.current} to ${logDir}.`);
      }
    } else {
      ongoing = true;
      if (info.future === logDir) lines.push(`Reassignment of replica ${replicaString(replica)} is still in progress.`);
      else lines.push(`Partition ${tp} on broker ${replica.brokerId} is being moved to log dir ${info.future} instead of ${logDir}.`);
    }
  }
  return { lines, ongoing };
}

/** "s" unless there is exactly one (Kafka's `if (size == 1) "" else "s"`). */
function plural(n: number): string {
  return n === 1 ? '' : 's';
}

/** Kafka's clearAllThrottles lines: the live brokers with the plan's, and the plan's topics. */
export function clearThrottlesLines(liveBrokers: readonly number[], plan: readonly PartitionReassignment[]): string[] {
  const brokers = [...new Set([...liveBrokers, ...plan.flatMap((p) => p.replicas)])];
  const topics = [...new Set(plan.map((p) => p.topic))];
  return [`Clearing broker-level throttles on broker${plural(brokers.length)} ${brokers.join(',')}`, `Clearing topic-level throttles on topic${plural(topics.length)} ${topics.join(',')}`];
}
