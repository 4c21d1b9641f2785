import { ApiKey } from '../protocol/api-keys';
import { ApiHandlers } from './network/api-handler';
import { createCreateAclsHandler, createDeleteAclsHandler, createDescribeAclsHandler } from './handlers/acl-apis';
import { createAlterConfigsHandlers } from './handlers/alter-configs';
import { createAlterReplicaLogDirsHandler } from './handlers/alter-replica-log-dirs';
import { createControlledShutdownHandler, createLeaderAndIsrHandler, createStopReplicaHandler, createUpdateMetadataHandler } from './handlers/control-requests';
import { createClientQuotasHandlers } from './handlers/client-quotas';
import { authorize } from './handlers/auth-helper';
import { createDelegationTokenHandlers } from './handlers/delegation-tokens';
import { createDeleteRecordsHandler } from './handlers/delete-records';
import { createDescribeClusterHandler } from './handlers/describe-cluster';
import { createDescribeConfigsHandler } from './handlers/describe-configs';
import { createDescribeLogDirsHandler } from './handlers/describe-log-dirs';
import { createDescribeProducersHandler } from './handlers/describe-producers';
import { createElectLeadersHandler } from './handlers/elect-leaders';
import { createFetchHandler } from './handlers/fetch';
import {
  createDeleteGroupsHandler,
  createDescribeGroupsHandler,
  createFindCoordinatorHandler,
  createHeartbeatHandler,
  createJoinGroupHandler,
  createLeaveGroupHandler,
  createListGroupsHandler,
  createOffsetCommitHandler,
  createOffsetDeleteHandler,
  createOffsetFetchHandler,
  createSyncGroupHandler,
} from './handlers/group-apis';
import { HandlerContext } from './handlers/handler-context';
import { createInitProducerIdHandler } from './handlers/init-producer-id';
import { createListOffsetsHandler } from './handlers/list-offsets';
import { createMetadataHandler } from './handlers/metadata';
import { createOffsetsForLeaderEpochHandler } from './handlers/offsets-for-leader-epoch';
import { createAlterPartitionReassignmentsHandler, createListPartitionReassignmentsHandler } from './handlers/partition-reassignments';
import { createProduceHandler } from './handlers/produce';
import { createAddOffsetsToTxnHandler, createAddPartitionsToTxnHandler, createEndTxnHandler, createTxnOffsetCommitHandler } from './handlers/transaction-apis';
import { createWriteTxnMarkersHandler } from './handlers/write-txn-markers';
import { createUserScramCredentialsHandlers } from './handlers/user-scram-credentials';
import { createSaslHandlers } from './handlers/sasl-after-authentication';
import { createCreatePartitionsHandler, createCreateTopicsHandler, createDeleteTopicsHandler } from './handlers/topic-admin';

/**
 * The broker's request handlers keyed by API (Kafka's KafkaApis.handle). The dispatcher serves, and ApiVersions
 * advertises, exactly the APIs listed here (ApiVersions itself and the SaslHandshake refusal are the dispatcher's).
 */
export function createKafkaApis(ctx: HandlerContext): ApiHandlers {
  const alterConfigs = createAlterConfigsHandlers(ctx);
  const clientQuotas = createClientQuotasHandlers(ctx);
  // Kafka's handleDescribeTokensRequest: tokens the requester neither owns nor renews need Describe on them.
  const tokens = createDelegationTokenHandlers(ctx, (context, tokenId) => authorize(ctx, context, 'DESCRIBE', 'DELEGATION_TOKEN', tokenId));
  const sasl = createSaslHandlers(ctx);
  const scramCredentials = createUserScramCredentialsHandlers(ctx);
  return {
    ...(sasl.handshake === undefined ? {} : { [ApiKey.SASL_HANDSHAKE]: sasl.handshake }),
    ...(sasl.authenticate === undefined ? {} : { [ApiKey.SASL_AUTHENTICATE]: sasl.authenticate }),
    [ApiKey.PRODUCE]: createProduceHandler(ctx),
    [ApiKey.FETCH]: createFetchHandler(ctx),
    [ApiKey.LIST_OFFSETS]: createListOffsetsHandler(ctx),
    [ApiKey.METADATA]: createMetadataHandler(ctx),
    [ApiKey.LEADER_AND_ISR]: createLeaderAndIsrHandler(ctx),
    [ApiKey.STOP_REPLICA]: createStopReplicaHandler(ctx),
    [ApiKey.UPDATE_METADATA]: createUpdateMetadataHandler(ctx),
    [ApiKey.CONTROLLED_SHUTDOWN]: createControlledShutdownHandler(ctx),
    [ApiKey.OFFSET_COMMIT]: createOffsetCommitHandler(ctx),
    [ApiKey.OFFSET_FETCH]: createOffsetFetchHandler(ctx),
    [ApiKey.FIND_COORDINATOR]: createFindCoordinatorHandler(ctx),
    [ApiKey.JOIN_GROUP]: createJoinGroupHandler(ctx),
    [ApiKey.HEARTBEAT]: createHeartbeatHandler(ctx),
    [ApiKey.LEAVE_GROUP]: createLeaveGroupHandler(ctx),
    [ApiKey.SYNC_GROUP]: createSyncGroupHandler(ctx),
    [ApiKey.DESCRIBE_GROUPS]: createDescribeGroupsHandler(ctx),
    [ApiKey.LIST_GROUPS]: createListGroupsHandler(ctx),
    [ApiKey.CREATE_TOPICS]: createCreateTopicsHandler(ctx),
    [ApiKey.DELETE_TOPICS]: createDeleteTopicsHandler(ctx),
    [ApiKey.DELETE_RECORDS]: createDeleteRecordsHandler(ctx),
    [ApiKey.INIT_PRODUCER_ID]: createInitProducerIdHandler(ctx),
    [ApiKey.OFFSET_FOR_LEADER_EPOCH]: createOffsetsForLeaderEpochHandler(ctx),
    [ApiKey.ADD_PARTITIONS_TO_TXN]: createAddPartitionsToTxnHandler(ctx),
    [ApiKey.ADD_OFFSETS_TO_TXN]: createAddOffsetsToTxnHandler(ctx),
    [ApiKey.END_TXN]: createEndTxnHandler(ctx),
    [ApiKey.WRITE_TXN_MARKERS]: createWriteTxnMarkersHandler(ctx),
    [ApiKey.TXN_OFFSET_COMMIT]: createTxnOffsetCommitHandler(ctx),
    [ApiKey.DESCRIBE_ACLS]: createDescribeAclsHandler(ctx),
    [ApiKey.CREATE_ACLS]: createCreateAclsHandler(ctx),
    [ApiKey.DELETE_ACLS]: createDeleteAclsHandler(ctx),
    [ApiKey.DESCRIBE_CONFIGS]: createDescribeConfigsHandler(ctx),
    [ApiKey.ALTER_CONFIGS]: alterConfigs.alterConfigs,
    [ApiKey.CREATE_PARTITIONS]: createCreatePartitionsHandler(ctx),
    [ApiKey.CREATE_DELEGATION_TOKEN]: tokens.create,
    [ApiKey.RENEW_DELEGATION_TOKEN]: tokens.renew,
    [ApiKey.EXPIRE_DELEGATION_TOKEN]: tokens.expire,
    [ApiKey.DESCRIBE_DELEGATION_TOKEN]: tokens.describe,
    [ApiKey.DELETE_GROUPS]: createDeleteGroupsHandler(ctx),
    [ApiKey.DESCRIBE_CLUSTER]: createDescribeClusterHandler(ctx),
    [ApiKey.DESCRIBE_PRODUCERS]: createDescribeProducersHandler(ctx),
    [ApiKey.INCREMENTAL_ALTER_CONFIGS]: alterConfigs.incrementalAlterConfigs,
    [ApiKey.ALTER_REPLICA_LOG_DIRS]: createAlterReplicaLogDirsHandler(ctx),
    [ApiKey.DESCRIBE_LOG_DIRS]: createDescribeLogDirsHandler(ctx),
    [ApiKey.ELECT_LEADERS]: createElectLeadersHandler(ctx),
    [ApiKey.OFFSET_DELETE]: createOffsetDeleteHandler(ctx),
    [ApiKey.DESCRIBE_CLIENT_QUOTAS]: clientQuotas.describeClientQuotas,
    [ApiKey.ALTER_CLIENT_QUOTAS]: clientQuotas.alterClientQuotas,
    [ApiKey.DESCRIBE_USER_SCRAM_CREDENTIALS]: scramCredentials.describe,
    [ApiKey.ALTER_USER_SCRAM_CREDENTIALS]: scramCredentials.alter,
    [ApiKey.ALTER_PARTITION_REASSIGNMENTS]: createAlterPartitionReassignmentsHandler(ctx),
    [ApiKey.LIST_PARTITION_REASSIGNMENTS]: createListPartitionReassignmentsHandler(ctx),
  };
}
