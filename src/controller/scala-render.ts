import { LeaderIsrAndControllerEpoch } from '../zk/znodes/partition-state';

/**
 * How Kafka 2.8 (Scala 2.13 build) prints values inside controller.log and state-change.log lines, so that
 * kafka-ts's logs read like Kafka's.
 */
export function hashSet(values: Iterable<number | string>): string {
  return `HashSet(${[...values].join(', ')})`;
}

export function scalaSet(values: Iterable<number | string>): string {
  const list = [...values];
  return list.length <= 4 ? `Set(${list.join(', ')})` : hashSet(list);
}

export function csv(values: Iterable<number | string>): string {
  return [...values].join(',');
}

export function leaderAndIsr(s: { leader: number; leaderEpoch: number; isr: readonly number[] }, zkVersion: number): string {
  return `LeaderAndIsr(leader=${s.leader}, leaderEpoch=${s.leaderEpoch}, isr=List(${s.isr.join(', ')}), zkVersion=${zkVersion})`;
}

export function leaderIsrAndControllerEpoch(s: LeaderIsrAndControllerEpoch, zkVersion: number): string {
  return `(Leader:${s.leader},ISR:${s.isr.join(',')},LeaderEpoch:${s.leaderEpoch},ZkVersion:${zkVersion},ControllerEpoch:${s.controllerEpoch})`;
}

export function replicaAssignment(replicas: readonly number[]): string {
  return `ReplicaAssignment(replicas=${replicas.join(',')}, addingReplicas=, removingReplicas=)`;
}

export function partitionAndReplica(tp: string, replica: number): string {
  const dash = tp.lastIndexOf('-');
  return `[Topic=${tp.slice(0, dash)},Partition=${tp.slice(dash + 1)},Replica=${replica}]`;
}
