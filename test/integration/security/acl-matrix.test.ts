import { NetworkClient, Target } from '../../../src/client/network-client';
import { ApiDefinition } from '../../../src/protocol/api-definition';
import { ApiKey, apiKeyName } from '../../../src/protocol/api-keys';
import { allApis, NEVER_ADVERTISED } from '../../../src/protocol/apis/index';
import { AddOffsetsToTxnApi } from '../../../src/protocol/apis/add-offsets-to-txn';
import { AddPartitionsToTxnApi } from '../../../src/protocol/apis/add-partitions-to-txn';
import { AlterClientQuotasApi } from '../../../src/protocol/apis/alter-client-quotas';
import { AlterConfigsApi } from '../../../src/protocol/apis/alter-configs';
import { AlterPartitionReassignmentsApi } from '../../../src/protocol/apis/alter-partition-reassignments';
import { AlterReplicaLogDirsApi } from '../../../src/protocol/apis/alter-replica-log-dirs';
import { AlterUserScramCredentialsApi } from '../../../src/protocol/apis/alter-user-scram-credentials';
import { ApiVersionsApi } from '../../../src/protocol/apis/api-versions';
import { ControlledShutdownApi } from '../../../src/protocol/apis/controlled-shutdown';
import { CreateAclsApi } from '../../../src/protocol/apis/create-acls';
import { CreateDelegationTokenApi } from '../../../src/protocol/apis/create-delegation-token';
import { CreatePartitionsApi } from '../../../src/protocol/apis/create-partitions';
import { CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { DeleteAclsApi } from '../../../src/protocol/apis/delete-acls';
import { DeleteGroupsApi } from '../../../src/protocol/apis/delete-groups';
import { DeleteRecordsApi } from '../../../src/protocol/apis/delete-records';
import { DeleteTopicsApi } from '../../../src/protocol/apis/delete-topics';
import { DescribeAclsApi } from '../../../src/protocol/apis/describe-acls';
import { DescribeClientQuotasApi } from '../../../src/protocol/apis/describe-client-quotas';
import { DescribeClusterApi } from '../../../src/protocol/apis/describe-cluster';
import { DescribeConfigsApi } from '../../../src/protocol/apis/describe-configs';
import { DescribeDelegationTokenApi } from '../../../src/protocol/apis/describe-delegation-token';
import { DescribeGroupsApi } from '../../../src/protocol/apis/describe-groups';
import { DescribeLogDirsApi } from '../../../src/protocol/apis/describe-log-dirs';
import { DescribeProducersApi } from '../../../src/protocol/apis/describe-producers';
import { DescribeUserScramCredentialsApi } from '../../../src/protocol/apis/describe-user-scram-credentials';
import { ElectLeadersApi } from '../../../src/protocol/apis/elect-leaders';
import { EndTxnApi } from '../../../src/protocol/apis/end-txn';
import { ExpireDelegationTokenApi } from '../../../src/protocol/apis/expire-delegation-token';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { HeartbeatApi } from '../../../src/protocol/apis/heartbeat';
import { IncrementalAlterConfigsApi } from '../../../src/protocol/apis/incremental-alter-configs';
import { InitProducerIdApi } from '../../../src/protocol/apis/init-producer-id';
import { JoinGroupApi } from '../../../src/protocol/apis/join-group';
import { LeaderAndIsrApi } from '../../../src/protocol/apis/leader-and-isr';
import { LeaveGroupApi } from '../../../src/protocol/apis/leave-group';
import { ListGroupsApi } from '../../../src/protocol/apis/list-groups';
import { ListOffsetsApi } from '../../../src/protocol/apis/list-offsets';
import { ListPartitionReassignmentsApi } from '../../../src/protocol/apis/list-partition-reassignments';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { OffsetCommitApi } from '../../../src/protocol/apis/offset-commit';
import { OffsetDeleteApi } from '../../../src/protocol/apis/offset-delete';
import { OffsetFetchApi } from '../../../src/protocol/apis/offset-fetch';
import { OffsetForLeaderEpochApi } from '../../../src/protocol/apis/offset-for-leader-epoch';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RenewDelegationTokenApi } from '../../../src/protocol/apis/renew-delegation-token';
import { StopReplicaApi } from '../../../src/protocol/apis/stop-replica';
import { SyncGroupApi } from '../../../src/protocol/apis/sync-group';
import { TxnOffsetCommitApi } from '../../../src/protocol/apis/txn-offset-commit';
import { UpdateMetadataApi } from '../../../src/protocol/apis/update-metadata';
import { WriteTxnMarkersApi } from '../../../src/protocol/apis/write-txn-markers';
import { crc32c } from '../../../src/records/crc32c';
import { AclOperation, AclOperationName, CLUSTER_NAME, ResourceType, ResourceTypeName, WILDCARD, WILDCARD_PRINCIPAL } from '../../../src/security/acl-binding';
import { BrokerProcess } from '../../helpers/broker-process';
import { freePort } from '../../helpers/free-port';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * The ACL matrix of issue 15: every API the brokers advertise has a row saying what Kafka 2.8's KafkaApis
 * authorizes for it (resource type, name, operation, and the error a refusal gives), and each row is run
 *   - with no ACLs at all (denied: allow.everyone.if.no.acl.found is false),
 *   - then, for a literal, a prefixed and a wildcard resource in turn: allowed by Allow ACLs of that pattern,
 *     denied by Deny ACLs of that pattern (deny before allow), and the ACLs removed again.
 * The principal is User:alice, a SASL PLAIN user; ACLs are added and removed with CreateAcls / DeleteAcls from
 * User:admin (a super user) through the broker that is not the controller, and every row goes to the
 * controller, so each step also waits for the change notification to reach the other broker (polled with a
 * deadline). Rows that Kafka does not authorize (ApiVersions, SaslHandshake, SaslAuthenticate, the delegation
 * token APIs other than Describe) say so and are checked to give the same answer in every phase.
 *
 * Kafka accepts only the literal `kafka-cluster` for CLUSTER resources (kafka-ts refuses a prefixed one), so the
 * cluster rows run on that literal in every phase, and the wildcard phase grants and denies it to `User:*`.
 * Every need of a row that is not the one it is refused for ("key") has its own resource name, so one row's
 * Deny never refuses another row, except where a resource is shared (the cluster, and every name under the
 * wildcard): there the expected code is the first need, in KafkaApis' order, that some Deny refuses.
 */

jest.setTimeout(120_000);

const PASSWORDS = { broker: 'broker-secret', admin: 'admin-secret', alice: 'alice-secret' } as const;
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" password="${PASSWORDS.broker}" ${Object.entries(PASSWORDS)
  .map(([u, p]) => `user_${u}="${p}"`)
  .join(' ')};`;
const ALICE = 'User:alice';
const TOPIC_AUTHORIZATION_FAILED = 29;
const GROUP_AUTHORIZATION_FAILED = 30;
const CLUSTER_AUTHORIZATION_FAILED = 31;
const TRANSACTIONAL_ID_AUTHORIZATION_FAILED = 53;
const AUTH_CODES = new Set([TOPIC_AUTHORIZATION_FAILED, GROUP_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_FAILED, TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 65]);
/** Not an error code: the answer leaves the resource out (Kafka filters instead of refusing). */
const HIDDEN = -2;
const ALLOWED = 0;

type Kind = 'literal' | 'prefixed' | 'wildcard';
interface Need {
  type: ResourceTypeName;
  name: string;
  op: AclOperationName;
  /** What the answer says when this check fails. */
  code: number;
}
interface Row {
  id: string;
  api: ApiDefinition;
  /** KafkaApis' checks in its order; empty when the API authorizes nothing. */
  needs: Need[];
  /** The need the Deny ACLs target (default the last). */
  key?: number;
  /** For rows without needs: the answer every principal gets in every phase. */
  always?: number;
  target?: () => Target;
  /** The authorization outcome: an error code of AUTH_CODES, HIDDEN, or ALLOWED. */
  probe: () => Promise<number>;
}

let ensemble: ZkEnsemble;
const brokers: BrokerProcess[] = [];
let admin: NetworkClient;
let alice: NetworkClient;
let controllerId = -1;
let otherId = -1;
let listGroupsCoordinator = -1;
let adminTokenId = '';
/** Names the phase, for the one row that needs a topic not created yet in each. */
let phase = 'none';

const BATCH = Buffer.from(
  '0000000000000000' + '0000003a' + '00000000' + '02' + '913ca1a6' + '0000' + '00000000' + '0000018bcfe56800' + '0000018bcfe56800' + 'ffffffffffffffff' + '0000' + '00000000' + '00000001' + '10000000026b027600',
  'hex',
);

/** The batch above as a transactional producer's: attributes bit 4, a producer id, the CRC-32C recomputed. */
function transactionalBatch(): Buffer {
  const b = Buffer.from(BATCH);
  b.writeInt16BE(0x10, 21);
  b.writeBigInt64BE(4242n, 43);
  b.writeUInt32BE(crc32c(b.subarray(21)) >>> 0, 17);
  return b;
}

/**
 * The batch above as an idempotent (non-transactional) producer's: a producer id, no transactional bit. Kafka
 * 2.8's handleProduceRequest no longer asks IdempotentWrite on the cluster for it (KAFKA-10619, KIP-679: topic
 * Write is enough; brokers before 2.8 answered CLUSTER_AUTHORIZATION_FAILED without it).
 */
function idempotentBatch(): Buffer {
  const b = Buffer.from(BATCH);
  b.writeBigInt64BE(4242n, 43);
  b.writeUInt32BE(crc32c(b.subarray(21)) >>> 0, 17);
  return b;
}

/** The first authorization error code anywhere in an answer (`errorCode`, `topicConfigErrorCode`, ...), else ALLOWED. */
function authCode(response: unknown): number {
  let found = ALLOWED;
  JSON.stringify(response, (k, v: unknown) => {
    if (found === ALLOWED && /errorCode$/i.test(k) && typeof v === 'number' && AUTH_CODES.has(v)) found = v;
    return Buffer.isBuffer(v) ? undefined : v;
  });
  return found;
}

const n = (row: string, kind: 't' | 'g' | 'x' = 't'): string => `mx.${row}.${kind}`;
const topic = (row: string, op: AclOperationName, code = TOPIC_AUTHORIZATION_FAILED): Need => ({ type: 'TOPIC', name: n(row), op, code });
const group = (row: string, op: AclOperationName): Need => ({ type: 'GROUP', name: n(row, 'g'), op, code: GROUP_AUTHORIZATION_FAILED });
const txn = (row: string): Need => ({ type: 'TRANSACTIONAL_ID', name: n(row, 'x'), op: 'WRITE', code: TRANSACTIONAL_ID_AUTHORIZATION_FAILED });
/** Auto-creation needs a topic that does not exist yet: a fresh name in every phase (its prefix stays). */
const autoCreated = (op: AclOperationName): Need => ({ type: 'TOPIC', get name() { return `${n('autocreate')}-${phase}`; }, op, code: TOPIC_AUTHORIZATION_FAILED });
const cluster = (op: AclOperationName, code = CLUSTER_AUTHORIZATION_FAILED): Need => ({ type: 'CLUSTER', name: CLUSTER_NAME, op, code });

async function as<Req, Res>(api: ApiDefinition<Req, Res>, body: Req, target: Target = controllerId): Promise<Res> {
  return alice.request(target, api, body, { version: api.maxVersion, retries: 0 });
}
const sent = <Req, Res>(api: ApiDefinition<Req, Res>, body: Req, target?: Target): Promise<number> => as(api, body, target).then(authCode);
const control = { controllerId: 0, controllerEpoch: 0, brokerEpoch: 0 };
const join = (row: string) => ({ groupId: n(row, 'g'), sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from('00000000000100027274ffffffff', 'hex') }] });
const member = (row: string) => ({ groupId: n(row, 'g'), generationId: 1, memberId: 'm', groupInstanceId: null });
const ids = (row: string) => ({ transactionalId: n(row, 'x'), producerId: 4242, producerEpoch: 0 });
const fetchBody = (row: string, replicaId: number) => ({
  replicaId, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
  topics: [{ topic: n(row), partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
  forgottenTopicsData: [], rackId: '',
});
const metadata = (topics: string[], allowAutoTopicCreation: boolean) => ({ topics: topics.map((name) => ({ name, topicId: Buffer.alloc(16) })), allowAutoTopicCreation, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
const BROKER = 4;
const TOPIC = 2;

const ROWS: Row[] = [
  { id: 'produce', api: ProduceApi, needs: [topic('produce', 'WRITE')], probe: () => sent(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: n('produce'), partitionData: [{ index: 0, records: BATCH }] }] }) },
  // Transactional records: Write on the transactional id first (53), then Write on the topic.
  { id: 'produceidempotent', api: ProduceApi, needs: [topic('produceidempotent', 'WRITE')], probe: () => sent(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: n('produceidempotent'), partitionData: [{ index: 0, records: idempotentBatch() }] }] }) },
  { id: 'producetxn', api: ProduceApi, needs: [txn('producetxn'), topic('producetxn', 'WRITE')], probe: () => sent(ProduceApi, { transactionalId: n('producetxn', 'x'), acks: 1, timeoutMs: 5000, topicData: [{ name: n('producetxn'), partitionData: [{ index: 0, records: transactionalBatch() }] }] }) },
  { id: 'fetch', api: FetchApi, needs: [topic('fetch', 'READ')], probe: () => sent(FetchApi, fetchBody('fetch', -1)) },
  // A follower's fetch (replica id >= 0): ClusterAction, else TOPIC_AUTHORIZATION_FAILED on every partition.
  { id: 'fetchreplica', api: FetchApi, needs: [cluster('CLUSTER_ACTION', TOPIC_AUTHORIZATION_FAILED)], probe: () => sent(FetchApi, fetchBody('fetchreplica', 7)) },
  { id: 'listoffsets', api: ListOffsetsApi, needs: [topic('listoffsets', 'DESCRIBE')], probe: () => sent(ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: n('listoffsets'), partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] }) },
  { id: 'metadata', api: MetadataApi, needs: [topic('metadata', 'DESCRIBE')], probe: () => sent(MetadataApi, metadata([n('metadata')], false)) },
  // Auto-creation needs Create on the cluster or the topic; a fresh name each round so that it is asked for.
  { id: 'autocreate', api: MetadataApi, needs: [autoCreated('DESCRIBE'), autoCreated('CREATE')], probe: () => sent(MetadataApi, metadata([autoCreated('CREATE').name], true)) },
  // An all-topics Metadata answer leaves out what the principal may not Describe.
  { id: 'alltopics', api: MetadataApi, needs: [{ ...topic('alltopics', 'DESCRIBE'), code: HIDDEN }], probe: () => as(MetadataApi, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false } as never).then((r) => (r.topics.some((t) => t.name === n('alltopics')) ? ALLOWED : HIDDEN)) },
  { id: 'leaderandisr', api: LeaderAndIsrApi, needs: [cluster('CLUSTER_ACTION')], probe: () => sent(LeaderAndIsrApi, { ...control, type: 0, ungroupedPartitionStates: [], topicStates: [], liveLeaders: [] }) },
  { id: 'stopreplica', api: StopReplicaApi, needs: [cluster('CLUSTER_ACTION')], probe: () => sent(StopReplicaApi, { ...control, deletePartitions: false, ungroupedPartitions: [], topics: [], topicStates: [] }) },
  { id: 'updatemetadata', api: UpdateMetadataApi, needs: [cluster('CLUSTER_ACTION')], probe: () => sent(UpdateMetadataApi, { ...control, ungroupedPartitionStates: [], topicStates: [], liveBrokers: [] }) },
  { id: 'controlledshutdown', api: ControlledShutdownApi, needs: [cluster('CLUSTER_ACTION')], probe: () => sent(ControlledShutdownApi, { brokerId: 99, brokerEpoch: 0 }) },
  { id: 'offsetcommit', api: OffsetCommitApi, needs: [group('offsetcommit', 'READ'), topic('offsetcommit', 'READ')], probe: () => sent(OffsetCommitApi, { ...member('offsetcommit'), generationId: -1, memberId: '', retentionTimeMs: -1, topics: [{ name: n('offsetcommit'), partitions: [{ partitionIndex: 0, committedOffset: 0, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }] }) },
  { id: 'offsetfetch', api: OffsetFetchApi, needs: [group('offsetfetch', 'DESCRIBE'), topic('offsetfetch', 'DESCRIBE')], probe: () => sent(OffsetFetchApi, { groupId: n('offsetfetch', 'g'), topics: [{ name: n('offsetfetch'), partitionIndexes: [0] }], requireStable: false }) },
  { id: 'findcoordinator', api: FindCoordinatorApi, needs: [group('findcoordinator', 'DESCRIBE')], probe: () => sent(FindCoordinatorApi, { key: n('findcoordinator', 'g'), keyType: 0 }) },
  { id: 'findtxncoordinator', api: FindCoordinatorApi, needs: [{ ...txn('findtxncoordinator'), op: 'DESCRIBE' }], probe: () => sent(FindCoordinatorApi, { key: n('findtxncoordinator', 'x'), keyType: 1 }) },
  { id: 'joingroup', api: JoinGroupApi, needs: [group('joingroup', 'READ')], probe: () => sent(JoinGroupApi, join('joingroup')) },
  { id: 'heartbeat', api: HeartbeatApi, needs: [group('heartbeat', 'READ')], probe: () => sent(HeartbeatApi, member('heartbeat')) },
  { id: 'leavegroup', api: LeaveGroupApi, needs: [group('leavegroup', 'READ')], probe: () => sent(LeaveGroupApi, { groupId: n('leavegroup', 'g'), memberId: '', members: [{ memberId: 'm', groupInstanceId: null }] }) },
  { id: 'syncgroup', api: SyncGroupApi, needs: [group('syncgroup', 'READ')], probe: () => sent(SyncGroupApi, { ...member('syncgroup'), protocolType: 'consumer', protocolName: 'range', assignments: [] }) },
  { id: 'describegroups', api: DescribeGroupsApi, needs: [group('describegroups', 'DESCRIBE')], probe: () => sent(DescribeGroupsApi, { groups: [n('describegroups', 'g')], includeAuthorizedOperations: false }) },
  // Describe on the cluster lists every group, else only the groups the principal may Describe.
  { id: 'listgroups', api: ListGroupsApi, needs: [{ ...group('listgroups', 'DESCRIBE'), code: HIDDEN }], target: () => listGroupsCoordinator, probe: () => as(ListGroupsApi, { statesFilter: [] }, listGroupsCoordinator).then((r) => (r.groups.some((g) => g.groupId === n('listgroups', 'g')) ? ALLOWED : HIDDEN)) },
  { id: 'saslhandshake', api: apiDef(ApiKey.SASL_HANDSHAKE), needs: [], always: ALLOWED, probe: freshAuthentication },
  { id: 'apiversions', api: ApiVersionsApi, needs: [], always: ALLOWED, probe: () => as(ApiVersionsApi, { clientSoftwareName: 'acl-matrix', clientSoftwareVersion: '1' }).then((r) => r.errorCode) },
  // v5+ also describes the new topic's configs, which needs DescribeConfigs on it (topicConfigErrorCode).
  { id: 'createtopics', api: CreateTopicsApi, needs: [topic('createtopics', 'CREATE'), topic('createtopics', 'DESCRIBE_CONFIGS')], key: 0, probe: () => sent(CreateTopicsApi, { topics: [{ name: n('createtopics'), numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }) },
  { id: 'deletetopics', api: DeleteTopicsApi, needs: [topic('deletetopics', 'DELETE')], probe: () => sent(DeleteTopicsApi, { topicNames: [n('deletetopics')], topics: [{ name: n('deletetopics'), topicId: Buffer.alloc(16) }], timeoutMs: 5000 }) },
  { id: 'deleterecords', api: DeleteRecordsApi, needs: [topic('deleterecords', 'DELETE')], probe: () => sent(DeleteRecordsApi, { topics: [{ name: n('deleterecords'), partitions: [{ partitionIndex: 0, offset: 0 }] }], timeoutMs: 5000 }) },
  { id: 'initproducerid', api: InitProducerIdApi, needs: [cluster('IDEMPOTENT_WRITE')], probe: () => sent(InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }) },
  { id: 'inittxnproducerid', api: InitProducerIdApi, needs: [txn('inittxnproducerid')], probe: () => sent(InitProducerIdApi, { transactionalId: n('inittxnproducerid', 'x'), transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }) },
  // ClusterAction (brokers) or Describe on each topic.
  { id: 'offsetforleaderepoch', api: OffsetForLeaderEpochApi, needs: [topic('offsetforleaderepoch', 'DESCRIBE')], probe: () => sent(OffsetForLeaderEpochApi, { replicaId: -1, topics: [{ topic: n('offsetforleaderepoch'), partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] }) },
  { id: 'addpartitionstotxn', api: AddPartitionsToTxnApi, needs: [txn('addpartitionstotxn'), topic('addpartitionstotxn', 'WRITE')], probe: () => sent(AddPartitionsToTxnApi, { ...ids('addpartitionstotxn'), topics: [{ name: n('addpartitionstotxn'), partitions: [0] }] }) },
  { id: 'addoffsetstotxn', api: AddOffsetsToTxnApi, needs: [txn('addoffsetstotxn'), group('addoffsetstotxn', 'READ')], probe: () => sent(AddOffsetsToTxnApi, { ...ids('addoffsetstotxn'), groupId: n('addoffsetstotxn', 'g') }) },
  { id: 'endtxn', api: EndTxnApi, needs: [txn('endtxn')], probe: () => sent(EndTxnApi, { ...ids('endtxn'), committed: false }) },
  { id: 'writetxnmarkers', api: WriteTxnMarkersApi, needs: [cluster('CLUSTER_ACTION')], probe: () => sent(WriteTxnMarkersApi, { markers: [{ producerId: 4242, producerEpoch: 0, transactionResult: false, coordinatorEpoch: 0, topics: [{ name: 'mx.none.t', partitionIndexes: [0] }] }] }) },
  { id: 'txnoffsetcommit', api: TxnOffsetCommitApi, needs: [txn('txnoffsetcommit'), group('txnoffsetcommit', 'READ'), topic('txnoffsetcommit', 'READ')], probe: () => sent(TxnOffsetCommitApi, { ...ids('txnoffsetcommit'), groupId: n('txnoffsetcommit', 'g'), generationId: -1, memberId: '', groupInstanceId: null, topics: [{ name: n('txnoffsetcommit'), partitions: [{ partitionIndex: 0, committedOffset: 0, committedLeaderEpoch: -1, committedMetadata: null }] }] }) },
  { id: 'describeacls', api: DescribeAclsApi, needs: [cluster('DESCRIBE')], probe: () => sent(DescribeAclsApi, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }) },
  // An ACL for nobody on a resource no row uses, so that an allowed CreateAcls / DeleteAcls changes nothing that matters.
  { id: 'createacls', api: CreateAclsApi, needs: [cluster('ALTER')], probe: () => sent(CreateAclsApi, { creations: [{ resourceType: ResourceType.TOPIC, resourceName: 'mx.junk.t', resourcePatternType: 3, principal: 'User:nobody', host: '*', operation: AclOperation.READ, permissionType: 3 }] }) },
  { id: 'deleteacls', api: DeleteAclsApi, needs: [cluster('ALTER')], probe: () => sent(DeleteAclsApi, { filters: [{ resourceTypeFilter: ResourceType.TOPIC, resourceNameFilter: 'mx.junk.t', patternTypeFilter: 3, principalFilter: 'User:nobody', hostFilter: null, operation: 1, permissionType: 1 }] }) },
  { id: 'describeconfigs', api: DescribeConfigsApi, needs: [topic('describeconfigs', 'DESCRIBE_CONFIGS')], probe: () => sent(DescribeConfigsApi, { resources: [{ resourceType: TOPIC, resourceName: n('describeconfigs'), configurationKeys: ['retention.ms'] }], includeSynonyms: false, includeDocumentation: false }) },
  { id: 'describebrokerconfigs', api: DescribeConfigsApi, needs: [cluster('DESCRIBE_CONFIGS')], probe: () => sent(DescribeConfigsApi, { resources: [{ resourceType: BROKER, resourceName: String(controllerId), configurationKeys: ['log.retention.ms'] }], includeSynonyms: false, includeDocumentation: false }) },
  { id: 'alterconfigs', api: AlterConfigsApi, needs: [topic('alterconfigs', 'ALTER_CONFIGS')], probe: () => sent(AlterConfigsApi, { resources: [{ resourceType: TOPIC, resourceName: n('alterconfigs'), configs: [] }], validateOnly: true }) },
  { id: 'alterbrokerconfigs', api: AlterConfigsApi, needs: [cluster('ALTER_CONFIGS')], probe: () => sent(AlterConfigsApi, { resources: [{ resourceType: BROKER, resourceName: String(controllerId), configs: [] }], validateOnly: true }) },
  { id: 'alterreplicalogdirs', api: AlterReplicaLogDirsApi, needs: [cluster('ALTER')], probe: () => sent(AlterReplicaLogDirsApi, { dirs: [{ path: '/nonexistent', topics: [{ name: n('alterreplicalogdirs'), partitions: [0] }] }] }) },
  // Describe on the cluster, else an empty answer.
  { id: 'describelogdirs', api: DescribeLogDirsApi, needs: [cluster('DESCRIBE', HIDDEN)], probe: () => as(DescribeLogDirsApi, { topics: null }).then((r) => (r.results.length > 0 ? ALLOWED : HIDDEN)) },
  { id: 'saslauthenticate', api: apiDef(ApiKey.SASL_AUTHENTICATE), needs: [], always: ALLOWED, probe: freshAuthentication },
  { id: 'createpartitions', api: CreatePartitionsApi, needs: [topic('createpartitions', 'ALTER')], probe: () => sent(CreatePartitionsApi, { topics: [{ name: n('createpartitions'), count: 2, assignments: null }], timeoutMs: 5000, validateOnly: true }) },
  // Any SASL user may create its own tokens and renew / expire those it owns or renews: no ACL is consulted
  // (a token the principal may not renew is DELEGATION_TOKEN_NOT_FOUND / OWNER_MISMATCH, never an authorization error).
  { id: 'createdelegationtoken', api: CreateDelegationTokenApi, needs: [], always: ALLOWED, probe: () => as(CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 }).then((r) => r.errorCode) },
  { id: 'renewdelegationtoken', api: RenewDelegationTokenApi, needs: [], always: 62, probe: () => as(RenewDelegationTokenApi, { hmac: Buffer.alloc(64), renewPeriodMs: -1 }).then((r) => r.errorCode) },
  { id: 'expiredelegationtoken', api: ExpireDelegationTokenApi, needs: [], always: 62, probe: () => as(ExpireDelegationTokenApi, { hmac: Buffer.alloc(64), expiryTimePeriodMs: -1 }).then((r) => r.errorCode) },
  // Another owner's token is listed only with Describe on it.
  { id: 'describedelegationtoken', api: DescribeDelegationTokenApi, needs: [{ type: 'DELEGATION_TOKEN', name: '', op: 'DESCRIBE', code: HIDDEN }], probe: () => as(DescribeDelegationTokenApi, { owners: null }).then((r) => (r.errorCode !== 0 ? r.errorCode : r.tokens.some((t) => t.tokenId === adminTokenId) ? ALLOWED : HIDDEN)) },
  { id: 'deletegroups', api: DeleteGroupsApi, needs: [group('deletegroups', 'DELETE')], probe: () => sent(DeleteGroupsApi, { groupsNames: [n('deletegroups', 'g')] }) },
  { id: 'electleaders', api: ElectLeadersApi, needs: [cluster('ALTER')], probe: () => sent(ElectLeadersApi, { electionType: 0, topicPartitions: [{ topic: n('electleaders'), partitions: [0] }], timeoutMs: 5000 }) },
  { id: 'incrementalalterconfigs', api: IncrementalAlterConfigsApi, needs: [topic('incrementalalterconfigs', 'ALTER_CONFIGS')], probe: () => sent(IncrementalAlterConfigsApi, { resources: [{ resourceType: TOPIC, resourceName: n('incrementalalterconfigs'), configs: [] }], validateOnly: true }) },
  { id: 'alterpartitionreassignments', api: AlterPartitionReassignmentsApi, needs: [cluster('ALTER')], probe: () => sent(AlterPartitionReassignmentsApi, { timeoutMs: 5000, topics: [{ name: n('alterpartitionreassignments'), partitions: [{ partitionIndex: 0, replicas: null }] }] }) },
  { id: 'listpartitionreassignments', api: ListPartitionReassignmentsApi, needs: [cluster('DESCRIBE')], probe: () => sent(ListPartitionReassignmentsApi, { timeoutMs: 5000, topics: null }) },
  { id: 'offsetdelete', api: OffsetDeleteApi, needs: [group('offsetdelete', 'DELETE')], probe: () => sent(OffsetDeleteApi, { groupId: n('offsetdelete', 'g'), topics: [{ name: n('offsetdelete'), partitions: [{ partitionIndex: 0 }] }] }) },
  { id: 'describeclientquotas', api: DescribeClientQuotasApi, needs: [cluster('DESCRIBE_CONFIGS')], probe: () => sent(DescribeClientQuotasApi, { components: [], strict: false }) },
  { id: 'alterclientquotas', api: AlterClientQuotasApi, needs: [cluster('ALTER_CONFIGS')], probe: () => sent(AlterClientQuotasApi, { entries: [{ entity: [{ entityType: 'client-id', entityName: 'mx' }], ops: [{ key: 'producer_byte_rate', value: 1024, remove: false }] }], validateOnly: true }) },
  { id: 'describeuserscramcredentials', api: DescribeUserScramCredentialsApi, needs: [cluster('DESCRIBE')], probe: () => sent(DescribeUserScramCredentialsApi, { users: [{ name: 'alice' }] }) },
  // Served by the active controller only (NOT_CONTROLLER elsewhere, before any authorization; see the last test).
  { id: 'alteruserscramcredentials', api: AlterUserScramCredentialsApi, needs: [cluster('ALTER')], probe: () => sent(AlterUserScramCredentialsApi, { deletions: [{ name: 'mx-nobody', mechanism: 1 }], upsertions: [] }) },
  // Authorized operations only with Describe on the cluster (0 otherwise).
  { id: 'describecluster', api: DescribeClusterApi, needs: [cluster('DESCRIBE', HIDDEN)], probe: () => as(DescribeClusterApi, { includeClusterAuthorizedOperations: true }).then((r) => (r.clusterAuthorizedOperations === 0 ? HIDDEN : authCode(r))) },
  { id: 'describeproducers', api: DescribeProducersApi, needs: [topic('describeproducers', 'READ')], probe: () => sent(DescribeProducersApi, { topics: [{ name: n('describeproducers'), partitionIndexes: [0] }] }) },
];

function apiDef(key: number): ApiDefinition {
  const api = allApis().find((a) => a.key === key);
  if (api === undefined) throw new Error(`no API ${key}`);
  return api;
}

/** SaslHandshake and SaslAuthenticate: a principal with no ACL, or every ACL denied, still authenticates. */
async function freshAuthentication(): Promise<number> {
  const c = saslClient('alice');
  try {
    return (await c.request('any', ApiVersionsApi, { clientSoftwareName: 'acl-matrix', clientSoftwareVersion: '1' }, { retries: 0 })).errorCode;
  } finally {
    c.close();
  }
}

function saslClient(user: keyof typeof PASSWORDS): NetworkClient {
  return new NetworkClient({
    bootstrapServers: brokers.map((b) => `127.0.0.1:${b.port}`),
    clientId: `acl-matrix-${user}`,
    security: { securityProtocol: 'SASL_PLAINTEXT' },
    sasl: { mechanism: 'PLAIN', username: user, password: PASSWORDS[user] },
    requestTimeoutMs: 10000,
  });
}

/** The resource a need names in one phase: its own name, a prefix of it, or `*` (the cluster: always literal). */
function aclFor(need: Need, kind: Kind): { resourceName: string; patternType: number; principal: string } {
  const name = need.type === 'DELEGATION_TOKEN' ? adminTokenId : need.name;
  if (need.type === 'CLUSTER') return { resourceName: CLUSTER_NAME, patternType: 3, principal: kind === 'wildcard' ? WILDCARD_PRINCIPAL : ALICE };
  if (kind === 'literal') return { resourceName: name, patternType: 3, principal: ALICE };
  if (kind === 'prefixed') return { resourceName: need.type === 'DELEGATION_TOKEN' ? name.slice(0, 6) : name.slice(0, name.lastIndexOf('.') + 1), patternType: 4, principal: ALICE };
  return { resourceName: WILDCARD, patternType: 3, principal: ALICE };
}

const keyOf = (row: Row): Need | undefined => row.needs[row.key ?? row.needs.length - 1];

async function addAcls(kind: Kind, permission: 'ALLOW' | 'DENY', rows: readonly Row[] = ROWS): Promise<void> {
  const needs = permission === 'ALLOW' ? rows.flatMap((r) => r.needs) : rows.flatMap((r) => keyOf(r) ?? []);
  const creations = new Map<string, Parameters<typeof CreateAclsApi.encodeRequest>[2]['creations'][number]>();
  for (const need of needs) {
    const acl = aclFor(need, kind);
    const c = { resourceType: ResourceType[need.type], resourceName: acl.resourceName, resourcePatternType: acl.patternType, principal: acl.principal, host: '*', operation: AclOperation[need.op], permissionType: permission === 'ALLOW' ? 3 : 2 };
    creations.set(JSON.stringify(c), c);
  }
  const r = await admin.request(otherId, CreateAclsApi, { creations: [...creations.values()] });
  expect(r.results.filter((x) => x.errorCode !== 0)).toEqual([]);
}

async function removeAllAcls(): Promise<void> {
  const r = await admin.request(otherId, DeleteAclsApi, { filters: [{ resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }] });
  expect(r.filterResults.map((f) => f.errorCode)).toEqual([0]);
}

/** What each row must answer in a phase: allowed, or the code of its first check that a Deny (or no ACL) refuses. */
function expected(step: 'none' | 'allow' | { deny: Kind }): Record<string, number> {
  const out: Record<string, number> = {};
  const denied = typeof step === 'object' ? ROWS.flatMap((r) => keyOf(r) ?? []) : [];
  const refuses = (need: Need): boolean => {
    if (step === 'none') return true;
    if (step === 'allow') return false;
    return denied.some((d) => d.type === need.type && d.op === need.op && (step.deny === 'wildcard' || d.type === 'CLUSTER' || d.name === need.name));
  };
  for (const row of ROWS) out[row.id] = row.always ?? row.needs.find(refuses)?.code ?? ALLOWED;
  return out;
}

/** A request that fails outright shows as its message. */
async function answers(rows: readonly Row[]): Promise<Record<string, number | string>> {
  const out: Record<string, number | string> = {};
  await Promise.all(rows.map(async (row) => void (out[row.id] = await row.probe().catch((e: Error) => e.message))));
  return out;
}

/**
 * Polls every row until the answers are the expected ones (ACL changes reach the controller through ZooKeeper),
 * then compares. Auto-creation (a name new to each step) is probed only once the other rows show the ACLs in
 * force: probed earlier, it could create its topic under the previous step's ACLs.
 */
async function settle(want: Record<string, number>): Promise<void> {
  let got: Record<string, number | string> = {};
  const poll = async (rows: readonly Row[]): Promise<void> => {
    await waitUntil(async () => {
      got = await answers(rows);
      return rows.every((r) => got[r.id] === want[r.id]);
    }, { timeoutMs: 20000, intervalMs: 200 }).catch(() => undefined);
  };
  await poll(ROWS.filter((r) => r.id !== 'autocreate'));
  await poll(ROWS);
  expect(got).toEqual(want);
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const zkConnect = ensemble.connectStringWithChroot(uniqueChroot('acl-matrix'));
  const started = await Promise.all([0, 1].map(async (id) => {
    const port = await freePort();
    return BrokerProcess.start({
      brokerId: id,
      zkConnect,
      port,
      props: {
        listeners: `SASL_PLAINTEXT://127.0.0.1:${port}`,
        'security.inter.broker.protocol': 'SASL_PLAINTEXT',
        'sasl.enabled.mechanisms': 'PLAIN',
        'sasl.mechanism.inter.broker.protocol': 'PLAIN',
        'listener.name.sasl_plaintext.plain.sasl.jaas.config': JAAS,
        'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
        'super.users': 'User:broker;User:admin',
        'delegation.token.master.key': 'matrix-master-key',
        'transaction.state.log.replication.factor': '1',
        'transaction.state.log.min.isr': '1',
        'transaction.state.log.num.partitions': '1',
        'offsets.topic.num.partitions': '1',
        'auto.create.topics.enable': 'true',
      },
    });
  }));
  brokers.push(...started);
  admin = saslClient('admin');
  alice = saslClient('alice');
  await waitUntil(async () => {
    await admin.refreshMetadata();
    return admin.metadata.controllerId >= 0 && admin.metadata.brokers.size === 2;
  }, { timeoutMs: 30000, message: 'both brokers and a controller in the metadata' });
  controllerId = admin.metadata.controllerId;
  await alice.refreshMetadata();
  otherId = controllerId === 0 ? 1 : 0;
  const topics = [...new Set(ROWS.flatMap((r) => r.needs).filter((x) => x.type === 'TOPIC' && !/autocreate|createtopics|deletetopics|alltopics/.test(x.name)).map((x) => x.name)), n('alltopics'), n('electleaders')];
  const created = await admin.request('controller', CreateTopicsApi, { topics: topics.map((name) => ({ name, numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [controllerId] }], configs: [] })), timeoutMs: 30000, validateOnly: false });
  expect(created.topics.filter((t) => t.errorCode !== 0)).toEqual([]);
  // A group for ListGroups (on its coordinator) and another owner's delegation token for DescribeDelegationToken.
  const found = await waitUntil(async () => {
    const r = await admin.request('any', FindCoordinatorApi, { key: n('listgroups', 'g'), keyType: 0 });
    return r.errorCode === 0 ? r : undefined;
  }, { timeoutMs: 30000, message: 'a coordinator for the ListGroups group' });
  listGroupsCoordinator = found.nodeId;
  await waitUntil(async () => {
    const first = await admin.request(listGroupsCoordinator, JoinGroupApi, join('listgroups'));
    if (first.errorCode !== 79) return undefined;
    return (await admin.request(listGroupsCoordinator, JoinGroupApi, { ...join('listgroups'), memberId: first.memberId })).errorCode === 0;
  }, { timeoutMs: 30000, message: 'the ListGroups group joined' });
  // __transaction_state created and loaded before the matrix, so that its rows answer at once.
  await waitUntil(async () => (await admin.request('any', FindCoordinatorApi, { key: n('warmup', 'x'), keyType: 1 })).errorCode === 0, { timeoutMs: 30000, message: 'a transaction coordinator' });
  const token = await admin.request('any', CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 });
  expect(token.errorCode).toBe(0);
  adminTokenId = token.tokenId;
  const tokenNeed = ROWS.find((r) => r.id === 'describedelegationtoken')?.needs[0];
  if (tokenNeed !== undefined) tokenNeed.name = adminTokenId;
  // The brokers' request threads have the topics (metadata) before the matrix starts.
  await waitUntil(async () => (await admin.request(controllerId, MetadataApi, metadata(topics, false))).topics.every((t) => t.errorCode === 0), { timeoutMs: 20000, message: 'the topics in the metadata' });
}, 120000);

afterAll(async () => {
  admin?.close();
  alice?.close();
  for (const b of brokers) await b.child.stop();
  await ensemble?.close();
});

describe('the ACL matrix: every advertised API, allowed and denied, for literal, prefixed and wildcard resources', () => {
  it('has a row for every API the brokers advertise', async () => {
    const advertised = (await admin.request(controllerId, ApiVersionsApi, { clientSoftwareName: 'acl-matrix', clientSoftwareVersion: '1' })).apiKeys.map((k) => k.apiKey);
    const registry = allApis().filter((a) => !NEVER_ADVERTISED.has(a.key)).map((a) => a.key);
    expect(advertised).toEqual(registry);
    const rowless = advertised.filter((key) => !ROWS.some((r) => r.api.key === key)).map((key) => apiKeyName(key));
    expect(rowless).toEqual([]);
  });

  it('with no ACLs, refuses every row with the error Kafka gives', async () => {
    await settle(expected('none'));
  });

  for (const kind of ['literal', 'prefixed', 'wildcard'] as const) {
    it(`${kind}: Allow ACLs let every row through, Deny ACLs of the same pattern refuse it`, async () => {
      try {
        phase = `${kind}-allow`;
        await addAcls(kind, 'ALLOW');
        await settle(expected('allow'));
        // Allow again for auto-creation's new literal name, then Deny.
        phase = `${kind}-deny`;
        await addAcls(kind, 'ALLOW', ROWS.filter((r) => r.id === 'autocreate'));
        await addAcls(kind, 'DENY');
        await settle(expected({ deny: kind }));
      } finally {
        await removeAllAcls();
      }
      phase = `${kind}-removed`;
      await settle(expected('none'));
    });
  }

  it('InitProducerId without a transactional id: IdempotentWrite on the cluster, or Write on any one topic (KIP-679), else CLUSTER_AUTHORIZATION_FAILED', async () => {
    const init = (): Promise<number> => as(InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 }).then((r) => r.errorCode);
    await settle(expected('none'));
    expect(await init()).toBe(CLUSTER_AUTHORIZATION_FAILED);
    const produce = ROWS.find((r) => r.id === 'produceidempotent') as Row;
    try {
      // Write on one topic only, no cluster ACL: the producer id is granted, and its idempotent batches go in.
      await addAcls('literal', 'ALLOW', [produce]);
      await waitUntil(async () => (await init()) === ALLOWED, { timeoutMs: 20000, intervalMs: 200, message: 'InitProducerId allowed by Write on one topic' });
      expect(await produce.probe()).toBe(ALLOWED);
    } finally {
      await removeAllAcls();
    }
    await waitUntil(async () => (await init()) === CLUSTER_AUTHORIZATION_FAILED, { timeoutMs: 20000, intervalMs: 200, message: 'InitProducerId refused again' });
  });

  it('AlterUserScramCredentials: NOT_CONTROLLER from any broker but the controller, before authorization; Describe and Alter need the cluster ACLs', async () => {
    const alter = { deletions: [{ name: 'mx-nobody', mechanism: 1 }], upsertions: [] };
    expect((await alice.request(otherId, AlterUserScramCredentialsApi, alter)).results.map((r) => r.errorCode)).toEqual([41]);
    expect((await alice.request(controllerId, AlterUserScramCredentialsApi, alter)).results.map((r) => r.errorCode)).toEqual([CLUSTER_AUTHORIZATION_FAILED]);
    expect((await alice.request(otherId, DescribeUserScramCredentialsApi, { users: null })).errorCode).toBe(CLUSTER_AUTHORIZATION_FAILED);
    // The super user: the controller deletes (nothing to delete: RESOURCE_NOT_FOUND), the other broker refuses.
    expect((await admin.request(controllerId, AlterUserScramCredentialsApi, alter)).results.map((r) => r.errorCode)).toEqual([91]);
    expect((await admin.request(otherId, AlterUserScramCredentialsApi, alter)).results.map((r) => r.errorCode)).toEqual([41]);
    expect((await admin.request(otherId, DescribeUserScramCredentialsApi, { users: null })).errorCode).toBe(0);
  });
});
