import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { AddOffsetsToTxnApi } from './add-offsets-to-txn';
import { AddPartitionsToTxnApi } from './add-partitions-to-txn';
import { AlterClientQuotasApi } from './alter-client-quotas';
import { AlterConfigsApi } from './alter-configs';
import { AlterPartitionReassignmentsApi } from './alter-partition-reassignments';
import { ApiVersionsApi } from './api-versions';
import { ControlledShutdownApi } from './controlled-shutdown';
import { CreateDelegationTokenApi } from './create-delegation-token';
import { CreateAclsApi } from './create-acls';
import { CreatePartitionsApi } from './create-partitions';
import { CreateTopicsApi } from './create-topics';
import { DeleteAclsApi } from './delete-acls';
import { DeleteGroupsApi } from './delete-groups';
import { DeleteRecordsApi } from './delete-records';
import { DeleteTopicsApi } from './delete-topics';
import { DescribeAclsApi } from './describe-acls';
import { DescribeClientQuotasApi } from './describe-client-quotas';
import { DescribeClusterApi } from './describe-cluster';
import { DescribeProducersApi } from './describe-producers';
import { DescribeConfigsApi } from './describe-configs';
import { DescribeDelegationTokenApi } from './describe-delegation-token';
import { DescribeGroupsApi } from './describe-groups';
import { AlterReplicaLogDirsApi } from './alter-replica-log-dirs';
import { AlterUserScramCredentialsApi } from './alter-user-scram-credentials';
import { DescribeLogDirsApi } from './describe-log-dirs';
import { DescribeUserScramCredentialsApi } from './describe-user-scram-credentials';
import { ElectLeadersApi } from './elect-leaders';
import { ExpireDelegationTokenApi } from './expire-delegation-token';
import { EndTxnApi } from './end-txn';
import { FetchApi } from './fetch';
import { FindCoordinatorApi } from './find-coordinator';
import { HeartbeatApi } from './heartbeat';
import { IncrementalAlterConfigsApi } from './incremental-alter-configs';
import { InitProducerIdApi } from './init-producer-id';
import { JoinGroupApi } from './join-group';
import { LeaderAndIsrApi } from './leader-and-isr';
import { LeaveGroupApi } from './leave-group';
import { ListGroupsApi } from './list-groups';
import { ListOffsetsApi } from './list-offsets';
import { ListPartitionReassignmentsApi } from './list-partition-reassignments';
import { MetadataApi } from './metadata';
import { OffsetCommitApi } from './offset-commit';
import { OffsetDeleteApi } from './offset-delete';
import { OffsetFetchApi } from './offset-fetch';
import { OffsetForLeaderEpochApi } from './offset-for-leader-epoch';
import { ProduceApi } from './produce';
import { RenewDelegationTokenApi } from './renew-delegation-token';
import { SaslAuthenticateApi } from './sasl-authenticate';
import { SaslHandshakeApi } from './sasl-handshake';
import { StopReplicaApi } from './stop-replica';
import { SyncGroupApi } from './sync-group';
import { TxnOffsetCommitApi } from './txn-offset-commit';
import { UpdateMetadataApi } from './update-metadata';
import { WriteTxnMarkersApi } from './write-txn-markers';

/**
 * THE registry: every API this broker can decode, keyed by Kafka's API key. The dispatcher looks requests up here
 * and ApiVersions is derived from it (restricted to the APIs a handler is installed for), so a version window is
 * declared exactly once, in the API's own file.
 *
 * Windows: min 0 everywhere (librdkafka's feature checks need the low versions), and every API goes to Kafka
 * 2.8's maximum, flexible versions included (`test/unit/protocol/codec-round-trip.test.ts` checks both), with
 * what each version adds implemented. SaslHandshake and SaslAuthenticate are advertised only by a broker with a
 * SASL listener (kafka-apis installs their handlers then).
 */
export const Apis = {
  [ApiKey.PRODUCE]: ProduceApi,
  [ApiKey.FETCH]: FetchApi,
  [ApiKey.LIST_OFFSETS]: ListOffsetsApi,
  [ApiKey.METADATA]: MetadataApi,
  [ApiKey.LEADER_AND_ISR]: LeaderAndIsrApi,
  [ApiKey.STOP_REPLICA]: StopReplicaApi,
  [ApiKey.UPDATE_METADATA]: UpdateMetadataApi,
  [ApiKey.CONTROLLED_SHUTDOWN]: ControlledShutdownApi,
  [ApiKey.OFFSET_COMMIT]: OffsetCommitApi,
  [ApiKey.OFFSET_FETCH]: OffsetFetchApi,
  [ApiKey.FIND_COORDINATOR]: FindCoordinatorApi,
  [ApiKey.JOIN_GROUP]: JoinGroupApi,
  [ApiKey.HEARTBEAT]: HeartbeatApi,
  [ApiKey.LEAVE_GROUP]: LeaveGroupApi,
  [ApiKey.SYNC_GROUP]: SyncGroupApi,
  [ApiKey.DESCRIBE_GROUPS]: DescribeGroupsApi,
  [ApiKey.LIST_GROUPS]: ListGroupsApi,
  [ApiKey.SASL_HANDSHAKE]: SaslHandshakeApi,
  [ApiKey.API_VERSIONS]: ApiVersionsApi,
  [ApiKey.CREATE_TOPICS]: CreateTopicsApi,
  [ApiKey.DELETE_TOPICS]: DeleteTopicsApi,
  [ApiKey.DELETE_RECORDS]: DeleteRecordsApi,
  [ApiKey.INIT_PRODUCER_ID]: InitProducerIdApi,
  [ApiKey.OFFSET_FOR_LEADER_EPOCH]: OffsetForLeaderEpochApi,
  [ApiKey.ADD_PARTITIONS_TO_TXN]: AddPartitionsToTxnApi,
  [ApiKey.ADD_OFFSETS_TO_TXN]: AddOffsetsToTxnApi,
  [ApiKey.END_TXN]: EndTxnApi,
  [ApiKey.WRITE_TXN_MARKERS]: WriteTxnMarkersApi,
  [ApiKey.TXN_OFFSET_COMMIT]: TxnOffsetCommitApi,
  [ApiKey.DESCRIBE_ACLS]: DescribeAclsApi,
  [ApiKey.CREATE_ACLS]: CreateAclsApi,
  [ApiKey.DELETE_ACLS]: DeleteAclsApi,
  [ApiKey.DESCRIBE_CONFIGS]: DescribeConfigsApi,
  [ApiKey.ALTER_CONFIGS]: AlterConfigsApi,
  [ApiKey.ALTER_REPLICA_LOG_DIRS]: AlterReplicaLogDirsApi,
  [ApiKey.DESCRIBE_LOG_DIRS]: DescribeLogDirsApi,
  [ApiKey.CREATE_PARTITIONS]: CreatePartitionsApi,
  [ApiKey.CREATE_DELEGATION_TOKEN]: CreateDelegationTokenApi,
  [ApiKey.RENEW_DELEGATION_TOKEN]: RenewDelegationTokenApi,
  [ApiKey.EXPIRE_DELEGATION_TOKEN]: ExpireDelegationTokenApi,
  [ApiKey.DESCRIBE_DELEGATION_TOKEN]: DescribeDelegationTokenApi,
  [ApiKey.SASL_AUTHENTICATE]: SaslAuthenticateApi,
  [ApiKey.DELETE_GROUPS]: DeleteGroupsApi,
  [ApiKey.DESCRIBE_CLUSTER]: DescribeClusterApi,
  [ApiKey.DESCRIBE_PRODUCERS]: DescribeProducersApi,
  [ApiKey.INCREMENTAL_ALTER_CONFIGS]: IncrementalAlterConfigsApi,
  [ApiKey.ELECT_LEADERS]: ElectLeadersApi,
  [ApiKey.OFFSET_DELETE]: OffsetDeleteApi,
  [ApiKey.DESCRIBE_CLIENT_QUOTAS]: DescribeClientQuotasApi,
  [ApiKey.ALTER_CLIENT_QUOTAS]: AlterClientQuotasApi,
  [ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS]: DescribeUserScramCredentialsApi,
  [ApiKey.ALTER_USER_SCRAM_CREDENTIALS]: AlterUserScramCredentialsApi,
  [ApiKey.ALTER_PARTITION_REASSIGNMENTS]: AlterPartitionReassignmentsApi,
  [ApiKey.LIST_PARTITION_REASSIGNMENTS]: ListPartitionReassignmentsApi,
} as const;

export type Apis = typeof Apis;
export type ApiKeyOf = keyof Apis;

/** APIs decodable but never advertised (none today: SaslHandshake is advertised where SASL is configured). */
export const NEVER_ADVERTISED: ReadonlySet<number> = new Set<number>();

const byKey = new Map<number, ApiDefinition>();
for (const api of Object.values(Apis) as ApiDefinition[]) byKey.set(api.key, api);

export function apiByKey(key: number): ApiDefinition | undefined {
  return byKey.get(key);
}

/** Every registered API in key order. */
export function allApis(): ApiDefinition[] {
  return [...byKey.values()].sort((a, b) => a.key - b.key);
}
