import { estimateAssignmentBytes, ZNODE_MAX_DATA_BYTES } from '../zk/znodes/topic-assignment';

export class InvalidReplicationFactorError extends Error {}
export class InvalidPartitionsError extends Error {}

export interface AssignmentOptions {
  /** Fixed start index (and initial shift) instead of random ones, as used when partitions are added. */
  fixedStartIndex?: number;
  /** The id of the first partition to assign (the current count when adding partitions). */
  startPartitionId?: number;
  random?: () => number;
}

/**
 * Kafka's rack-unaware replica placement (AdminUtils.assignReplicasToBrokers): the first replica of each
 * partition walks round the sorted broker list from a random start, and followers are shifted by an amount that
 * grows every full round, so leaders and followers both spread evenly.
 */
export function assignReplicasToBrokers(
  brokerIds: readonly number[],
  nPartitions: number,
  replicationFactor: number,
  options: AssignmentOptions = {},
): Map<number, number[]> {
  if (nPartitions <= 0) throw new InvalidPartitionsError('Number of partitions must be larger than 0.');
  if (replicationFactor <= 0) throw new InvalidReplicationFactorError('Replication factor must be larger than 0.');
  const brokers = [...brokerIds].sort((a, b) => a - b);
  const n = brokers.length;
  if (replicationFactor > n) {
    throw new InvalidReplicationFactorError(`Replication factor: ${replicationFactor} larger than available brokers: ${n}.`);
  }
  // Never build what no znode can hold (a request for 2^31-1 partitions would otherwise hang and run out of memory).
  const bytes = estimateAssignmentBytes(Math.max(0, options.startPartitionId ?? 0), nPartitions, replicationFactor, brokers);
  if (bytes > ZNODE_MAX_DATA_BYTES) {
    throw new InvalidPartitionsError(`The replica assignment of ${nPartitions} partitions with replication factor ${replicationFactor} would take ${bytes} bytes, more than the ${ZNODE_MAX_DATA_BYTES} bytes a ZooKeeper znode can hold (jute.maxbuffer).`);
  }
  const random = options.random ?? Math.random;
  const fixed = options.fixedStartIndex ?? -1;
  const startIndex = fixed >= 0 ? fixed : Math.floor(random() * n);
  let nextReplicaShift = fixed >= 0 ? fixed : Math.floor(random() * n);
  let currentPartitionId = Math.max(0, options.startPartitionId ?? -1);
  const assignment = new Map<number, number[]>();
  for (let i = 0; i < nPartitions; i++) {
    if (currentPartitionId > 0 && currentPartitionId % n === 0) nextReplicaShift += 1;
    const first = (currentPartitionId + startIndex) % n;
    const replicas = [brokers[first] as number];
    for (let j = 0; j < replicationFactor - 1; j++) {
      const shift = 1 + ((nextReplicaShift + j) % (n - 1));
      replicas.push(brokers[(first + shift) % n] as number);
    }
    assignment.set(currentPartitionId, replicas);
    currentPartitionId += 1;
  }
  return assignment;
}

/**
 * Assignment for partitions added to an existing topic: continues the pattern from partition 0's first
 * replica (AdminZkClient.addPartitions).
 */
export function assignAddedPartitions(
  brokerIds: readonly number[],
  existing: ReadonlyMap<number, readonly number[]>,
  newCount: number,
): Map<number, number[]> {
  const brokers = [...brokerIds].sort((a, b) => a - b);
  const firstReplica = existing.get(0)?.[0] ?? brokers[0] ?? 0;
  const rf = existing.get(0)?.length ?? 1;
  const index = brokers.findIndex((b) => b >= firstReplica);
  return assignReplicasToBrokers(brokers, newCount - existing.size, rf, {
    fixedStartIndex: Math.max(0, index),
    startPartitionId: existing.size,
  });
}
