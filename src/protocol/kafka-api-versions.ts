/**
 * Kafka 2.8's own API table (clients' ApiKeys: display name, key, oldest and latest version) for the APIs a
 * ZooKeeper-mode broker serves, in key order. It is what a Kafka 2.8 client supports, whatever this tree
 * implements: kafka-broker-api-versions computes "usable" against it, and the registry's windows must never
 * exceed it. The KRaft-only keys (52-55, 58, 59, 62, 63) are left out, as a ZooKeeper broker never serves them.
 */
export interface KafkaApiVersion {
  readonly key: number;
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
}

const table: readonly (readonly [number, string, number])[] = [
  [0, 'Produce', 9],
  [1, 'Fetch', 12],
  [2, 'ListOffsets', 6],
  [3, 'Metadata', 11],
  [4, 'LeaderAndIsr', 5],
  [5, 'StopReplica', 3],
  [6, 'UpdateMetadata', 7],
  [7, 'ControlledShutdown', 3],
  [8, 'OffsetCommit', 8],
  [9, 'OffsetFetch', 7],
  [10, 'FindCoordinator', 3],
  [11, 'JoinGroup', 7],
  [12, 'Heartbeat', 4],
  [13, 'LeaveGroup', 4],
  [14, 'SyncGroup', 5],
  [15, 'DescribeGroups', 5],
  [16, 'ListGroups', 4],
  [17, 'SaslHandshake', 1],
  [18, 'ApiVersions', 3],
  [19, 'CreateTopics', 7],
  [20, 'DeleteTopics', 6],
  [21, 'DeleteRecords', 2],
  [22, 'InitProducerId', 4],
  [23, 'OffsetForLeaderEpoch', 4],
  [24, 'AddPartitionsToTxn', 3],
  [25, 'AddOffsetsToTxn', 3],
  [26, 'EndTxn', 3],
  [27, 'WriteTxnMarkers', 1],
  [28, 'TxnOffsetCommit', 3],
  [29, 'DescribeAcls', 2],
  [30, 'CreateAcls', 2],
  [31, 'DeleteAcls', 2],
  [32, 'DescribeConfigs', 4],
  [33, 'AlterConfigs', 2],
  [34, 'AlterReplicaLogDirs', 2],
  [35, 'DescribeLogDirs', 2],
  [36, 'SaslAuthenticate', 2],
  [37, 'CreatePartitions', 3],
  [38, 'CreateDelegationToken', 2],
  [39, 'RenewDelegationToken', 2],
  [40, 'ExpireDelegationToken', 2],
  [41, 'DescribeDelegationToken', 2],
  [42, 'DeleteGroups', 2],
  [43, 'ElectLeaders', 2],
  [44, 'IncrementalAlterConfigs', 1],
  [45, 'AlterPartitionReassignments', 0],
  [46, 'ListPartitionReassignments', 0],
  [47, 'OffsetDelete', 0],
  [48, 'DescribeClientQuotas', 1],
  [49, 'AlterClientQuotas', 1],
  [50, 'DescribeUserScramCredentials', 0],
  [51, 'AlterUserScramCredentials', 0],
  [56, 'AlterIsr', 0],
  [57, 'UpdateFeatures', 0],
  [60, 'DescribeCluster', 0],
  [61, 'DescribeProducers', 0],
];

export const KAFKA_2_8_APIS: readonly KafkaApiVersion[] = table.map(([key, name, maxVersion]) => ({ key, name, minVersion: 0, maxVersion }));

const byKey = new Map(KAFKA_2_8_APIS.map((a) => [a.key, a]));

export function kafkaApiVersion(key: number): KafkaApiVersion | undefined {
  return byKey.get(key);
}
