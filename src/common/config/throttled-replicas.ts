import { ConfigException, Validator } from './config-def';

/** The topic keys naming the replicas that replication throttles apply to (LogConfig, KIP-73). */
export const LEADER_THROTTLED_REPLICAS = 'leader.replication.throttled.replicas';
export const FOLLOWER_THROTTLED_REPLICAS = 'follower.replication.throttled.replicas';

/** Kafka's ReplicationQuotaManager.AllReplicas: `*`, every partition of the topic. */
export const ALL_REPLICAS = '*';

/** Each partition:broker entry, or an empty entry (Kafka's `([0-9]+:[0-9]+)?`). */
const ENTRY = /^([0-9]+:[0-9]+)?$/;

/** ThrottledReplicaListValidator's complaint. */
export function throttledReplicasReason(name: string): string {
  return `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`;
}

function valid(entries: readonly string[]): boolean {
  return entries.every((e) => ENTRY.test(e.trim())) || entries.join('').trim() === ALL_REPLICAS;
}

/** Kafka's ThrottledReplicaListValidator as a ConfigDef validator of the list-typed topic keys. */
export function throttledReplicaListValidator(name: string): Validator {
  return { check: (v) => (Array.isArray(v) && !valid(v) ? throttledReplicasReason(name) : undefined) };
}

/**
 * Kafka's DynamicConfigManager.parseThrottledPartitions: the partitions of a topic whose replica on `brokerId` is
 * throttled, `*` for all of them; an unusable value throws Kafka's ConfigException.
 */
export function parseThrottledPartitions(name: string, value: string, brokerId: number): number[] | typeof ALL_REPLICAS {
  const text = value.trim();
  const entries = text.split(',').map((e) => e.trim());
  if (!valid(entries)) throw new ConfigException(`Invalid value ${text} for configuration ${name}: ${throttledReplicasReason(name)}`);
  if (text === '') return [];
  if (text === ALL_REPLICAS) return ALL_REPLICAS;
  const partitions: number[] = [];
  for (const entry of entries) {
    const [partition, broker] = entry.split(':');
    if (Number(broker) === brokerId) partitions.push(Number(partition));
  }
  return partitions;
}
