import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { NetworkClient } from '../../../src/client/network-client';
import { ApiDefinition } from '../../../src/protocol/api-definition';
import { ApiKey } from '../../../src/protocol/api-keys';
import { NEVER_ADVERTISED, allApis } from '../../../src/protocol/apis/index';
import { CreateDelegationTokenApi } from '../../../src/protocol/apis/create-delegation-token';
import { DescribeDelegationTokenApi } from '../../../src/protocol/apis/describe-delegation-token';
import { ExpireDelegationTokenApi } from '../../../src/protocol/apis/expire-delegation-token';
import { RenewDelegationTokenApi } from '../../../src/protocol/apis/renew-delegation-token';
import { AddOffsetsToTxnApi } from '../../../src/protocol/apis/add-offsets-to-txn';
import { AddPartitionsToTxnApi } from '../../../src/protocol/apis/add-partitions-to-txn';
import { AlterClientQuotasApi } from '../../../src/protocol/apis/alter-client-quotas';
import { CreateAclsApi } from '../../../src/protocol/apis/create-acls';
import { DeleteAclsApi } from '../../../src/protocol/apis/delete-acls';
import { DescribeAclsApi } from '../../../src/protocol/apis/describe-acls';
import { AlterConfigsApi } from '../../../src/protocol/apis/alter-configs';
import { AlterPartitionReassignmentsApi } from '../../../src/protocol/apis/alter-partition-reassignments';
import { AlterReplicaLogDirsApi } from '../../../src/protocol/apis/alter-replica-log-dirs';
import { ApiVersionsApi } from '../../../src/protocol/apis/api-versions';
import { ControlledShutdownApi } from '../../../src/protocol/apis/controlled-shutdown';
import { CreatePartitionsApi } from '../../../src/protocol/apis/create-partitions';
import { CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { DeleteGroupsApi } from '../../../src/protocol/apis/delete-groups';
import { DeleteRecordsApi } from '../../../src/protocol/apis/delete-records';
import { DeleteTopicsApi } from '../../../src/protocol/apis/delete-topics';
import { DescribeClientQuotasApi } from '../../../src/protocol/apis/describe-client-quotas';
import { AlterUserScramCredentialsApi } from '../../../src/protocol/apis/alter-user-scram-credentials';
import { DescribeUserScramCredentialsApi } from '../../../src/protocol/apis/describe-user-scram-credentials';
import { DescribeClusterApi } from '../../../src/protocol/apis/describe-cluster';
import { DescribeProducersApi } from '../../../src/protocol/apis/describe-producers';
import { DescribeConfigsApi } from '../../../src/protocol/apis/describe-configs';
import { DescribeGroupsApi } from '../../../src/protocol/apis/describe-groups';
import { DescribeLogDirsApi } from '../../../src/protocol/apis/describe-log-dirs';
import { ElectLeadersApi } from '../../../src/protocol/apis/elect-leaders';
import { EndTxnApi } from '../../../src/protocol/apis/end-txn';
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
import { StopReplicaApi } from '../../../src/protocol/apis/stop-replica';
import { SyncGroupApi } from '../../../src/protocol/apis/sync-group';
import { TxnOffsetCommitApi } from '../../../src/protocol/apis/txn-offset-commit';
import { UpdateMetadataApi } from '../../../src/protocol/apis/update-metadata';
import { WriteTxnMarkersApi } from '../../../src/protocol/apis/write-txn-markers';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

// One record k=v (the kafkajs batch of test/unit/protocol/golden.test.ts), CRC-32C 913ca1a6.
const BATCH = Buffer.from(
  '0000000000000000' + '0000003a' + '00000000' + '02' + '913ca1a6' + '0000' + '00000000' + '0000018bcfe56800' + '0000018bcfe56800' + 'ffffffffffffffff' + '0000' + '00000000' + '00000001' + '10000000026b027600',
  'hex',
);
const BROKER_LOGGER = 8;
const TOPIC = 2;
const UNSUPPORTED_VERSION = 35;
const INVALID_REQUEST = 42;

/**
 * Every API the broker advertises, at the broker's maximum version, through the project's own NetworkClient.
 * Covered how:
 * - sent by this test, the version pinned to the registry's maximum (which ApiVersions must advertise): every
 *   client and admin API, from Produce to ListPartitionReassignments (the `sent` calls below);
 * - sent by the brokers themselves, checked in their kafka-request.log (kafka.request.logger set to DEBUG live
 *   through IncrementalAlterConfigs BROKER_LOGGER): LeaderAndIsr, UpdateMetadata (topic creation), StopReplica
 *   (topic deletion), ControlledShutdown (a broker stopped with SIGTERM);
 * - sent by a transaction coordinator to partition leaders, checked in kafka-request.log: WriteTxnMarkers;
 * - SaslHandshake (decodable, never advertised by a plaintext broker) is checked to be absent from ApiVersions.
 */
describe('every advertised API at its maximum version through NetworkClient, on 3 brokers', () => {
  let cluster: TestCluster;
  let client: NetworkClient;
  const covered = new Map<number, string>();
  // SaslHandshake and SaslAuthenticate are advertised only by a broker with a SASL listener, which this cluster
  // has not (test/integration/security/sasl.test.ts runs them).
  const SASL_ONLY = new Set<number>([ApiKey.SASL_HANDSHAKE, ApiKey.SASL_AUTHENTICATE]);
  const advertised = allApis().filter((a) => !NEVER_ADVERTISED.has(a.key) && !SASL_ONLY.has(a.key));

  async function sent<Req, Res>(target: Parameters<NetworkClient['request']>[0], api: ApiDefinition<Req, Res>, body: Req): Promise<Res> {
    const response = await client.request(target, api, body, { version: api.maxVersion });
    // No error code anywhere in the answer says the version or the request was refused.
    const codes = JSON.stringify(response, (_k, v: unknown) => (Buffer.isBuffer(v) ? undefined : v));
    expect(codes).not.toMatch(new RegExp(`"errorCode":(${UNSUPPORTED_VERSION}|${INVALID_REQUEST})\\b`));
    covered.set(api.key, `sent at v${api.maxVersion}`);
    return response;
  }

  const requestLogs = (): string =>
    [0, 1, 2]
      .map((id) => {
        const f = path.join(cluster.broker(id).logDir, 'kafka-request.log');
        return fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '';
      })
      .join('');

  async function loggedAtMax(api: ApiDefinition): Promise<void> {
    const name = api.name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
    await waitUntil(() => new RegExp(`apiKey=${name}, apiVersion=${api.maxVersion},`).test(requestLogs()), { timeoutMs: 30000, message: `${name} v${api.maxVersion} in a kafka-request.log` });
    expect(requestLogs()).not.toMatch(new RegExp(`apiKey=${name}, apiVersion=(?!${api.maxVersion},)`));
    covered.set(api.key, `sent by a broker at v${api.maxVersion} (kafka-request.log)`);
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'auto.leader.rebalance.enable': 'false', 'offsets.topic.replication.factor': '1' } });
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(','), clientId: 'max-versions' });
    await client.refreshMetadata();
  }, 120000);

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it('advertises the registry maximum of every API', async () => {
    for (const id of [0, 1, 2]) {
      const r = await sent(id, ApiVersionsApi, { clientSoftwareName: 'kafka-ts', clientSoftwareVersion: '0.1.0' });
      expect(r.errorCode).toBe(0);
      expect(r.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion])).toEqual(advertised.map((a) => [a.key, 0, a.maxVersion]));
    }
  });

  it('turns on the request log of every broker, then creates, grows, configures and describes a topic', async () => {
    for (const id of [0, 1, 2]) {
      const r = await sent(id, IncrementalAlterConfigsApi, { resources: [{ resourceType: BROKER_LOGGER, resourceName: String(id), configs: [{ name: 'kafka.request.logger', configOperation: 0, value: 'DEBUG' }] }], validateOnly: false });
      expect(r.responses[0]?.errorCode).toBe(0);
    }
    // The loggers change as the request is answered: wait for one logged request on each broker.
    for (const id of [0, 1, 2]) {
      const f = path.join(cluster.broker(id).logDir, 'kafka-request.log');
      await waitUntil(async () => {
        await client.request(id, DescribeClusterApi, { includeClusterAuthorizedOperations: false });
        return fs.existsSync(f) && fs.readFileSync(f, 'utf8').includes('Completed request:');
      }, { timeoutMs: 20000, message: `broker ${id} logging requests` });
    }
    const created = await sent('controller', CreateTopicsApi, {
      topics: [{ name: 'rt', numPartitions: 1, replicationFactor: 3, assignments: [], configs: [{ name: 'retention.ms', value: '3600000' }] }],
      timeoutMs: 30000,
      validateOnly: false,
    });
    expect(created.topics[0]).toMatchObject({ name: 'rt', errorCode: 0, numPartitions: 1, replicationFactor: 3 });
    expect(created.topics[0]?.topicId?.equals(Buffer.alloc(16))).toBe(false);
    await cluster.waitForLeaders('rt', 1);
    await loggedAtMax(LeaderAndIsrApi);
    await loggedAtMax(UpdateMetadataApi);

    const grown = await sent('controller', CreatePartitionsApi, { topics: [{ name: 'rt', count: 2, assignments: null }], timeoutMs: 30000, validateOnly: false });
    expect(grown.results).toEqual([{ name: 'rt', errorCode: 0, errorMessage: null }]);
    await cluster.waitForLeaders('rt', 2);

    const altered = await sent('any', AlterConfigsApi, { resources: [{ resourceType: TOPIC, resourceName: 'rt', configs: [{ name: 'retention.ms', value: '7200000' }] }], validateOnly: false });
    expect(altered.responses[0]).toMatchObject({ errorCode: 0, resourceName: 'rt' });
    const described = await waitUntil(async () => {
      const d = await sent('any', DescribeConfigsApi, { resources: [{ resourceType: TOPIC, resourceName: 'rt', configurationKeys: ['retention.ms'] }], includeSynonyms: true, includeDocumentation: true });
      return d.results[0]?.configs[0]?.value === '7200000' ? d : undefined;
    }, { timeoutMs: 20000, message: 'retention.ms=7200000' });
    expect(described.results[0]).toMatchObject({ errorCode: 0, resourceName: 'rt', configs: [{ name: 'retention.ms', configSource: 1 }] });

    const md = await sent('any', MetadataApi, { topics: [{ name: 'rt' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(md.brokers.map((b) => b.nodeId).sort()).toEqual([0, 1, 2]);
    expect(md.topics[0]).toMatchObject({ errorCode: 0, name: 'rt' });
    expect(md.topics[0]?.topicId).toEqual(created.topics[0]?.topicId);
    expect(md.topics[0]?.partitions).toHaveLength(2);

    const cluster0 = await sent('any', DescribeClusterApi, { includeClusterAuthorizedOperations: false });
    expect(cluster0).toMatchObject({ errorCode: 0, controllerId: await cluster.controllerId() });
    expect(cluster0.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const pid = await sent('any', InitProducerIdApi, { transactionalId: null, transactionTimeoutMs: 60000, producerId: -1, producerEpoch: -1 });
    expect(pid).toMatchObject({ errorCode: 0, producerEpoch: 0 });
    expect(pid.producerId).toBeGreaterThanOrEqual(0);
  }, 90000);

  it('produces, fetches, lists offsets, finds epochs and deletes records on the leader', async () => {
    await client.refreshMetadata(['rt']);
    const leader = client.metadata.leaderFor('rt', 0) as number;
    const produce = { transactionalId: null, acks: -1, timeoutMs: 10000, topicData: [{ name: 'rt', partitionData: [{ index: 0, records: BATCH }] }] };
    const p1 = await sent(leader, ProduceApi, produce);
    await sent(leader, ProduceApi, produce);
    expect(p1.responses[0]?.partitionResponses[0]).toMatchObject({ index: 0, errorCode: 0, baseOffset: 0 });

    const fetched = await sent(leader, FetchApi, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 0,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [{ topic: 'rt', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [],
      rackId: '',
    });
    expect(fetched.errorCode).toBe(0);
    const part = fetched.responses[0]?.partitionResponses[0];
    expect(part).toMatchObject({ errorCode: 0, highWatermark: 2 });
    expect((part?.recordSet as Buffer).length).toBe(2 * BATCH.length);

    const offsets = await sent(leader, ListOffsetsApi, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'rt', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -1, maxNumOffsets: 1 }] }] });
    expect(offsets.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, offset: 2, leaderEpoch: 0 });

    const epochs = await sent(leader, OffsetForLeaderEpochApi, { replicaId: -1, topics: [{ topic: 'rt', partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] }] });
    expect(epochs.topics[0]?.partitions[0]).toMatchObject({ errorCode: 0, leaderEpoch: 0, endOffset: 2 });

    const deleted = await sent(leader, DeleteRecordsApi, { topics: [{ name: 'rt', partitions: [{ partitionIndex: 0, offset: 1 }] }], timeoutMs: 30000 });
    expect(deleted.topics[0]?.partitions[0]).toEqual({ partitionIndex: 0, lowWatermark: 1, errorCode: 0 });

    // The batches above carry no producer id: the leader's producer state is empty, its answer clean.
    const producers = await sent(leader, DescribeProducersApi, { topics: [{ name: 'rt', partitionIndexes: [0] }] });
    expect(producers.topics).toEqual([{ name: 'rt', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null, activeProducers: [] }] }]);
  }, 60000);

  it('runs a consumer group through its coordinator: join, sync, heartbeat, commit, fetch, describe, list, leave, delete', async () => {
    // COORDINATOR_NOT_AVAILABLE (15) while the first FindCoordinator creates __consumer_offsets.
    const coordinator = await waitUntil(async () => {
      const r = await sent('any', FindCoordinatorApi, { key: 'rt-group', keyType: 0 });
      return r.errorCode === 15 ? undefined : r;
    }, { timeoutMs: 30000, message: 'the group coordinator found' });
    expect(coordinator.errorCode).toBe(0);
    const node = coordinator.nodeId;
    const join = { groupId: 'rt-group', sessionTimeoutMs: 30000, rebalanceTimeoutMs: 30000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.from('00000000000100027274ffffffff', 'hex') }] };
    // v4+: a member without an id is given one and asked to join again (KIP-394).
    const first = await waitUntil(async () => {
      const r = await sent(node, JoinGroupApi, join);
      // COORDINATOR_LOAD_IN_PROGRESS (14), COORDINATOR_NOT_AVAILABLE (15) or NOT_COORDINATOR (16) until the
      // offsets partition's LeaderAndIsr has reached the broker FindCoordinator named; clients retry these.
      return [14, 15, 16].includes(r.errorCode) ? undefined : r;
    }, { timeoutMs: 30000, message: 'the group coordinator ready' });
    expect(first.errorCode).toBe(79);
    const joined = await sent(node, JoinGroupApi, { ...join, memberId: first.memberId });
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolType: 'consumer', protocolName: 'range', leader: first.memberId, memberId: first.memberId });
    const member = { groupId: 'rt-group', generationId: 1, memberId: first.memberId, groupInstanceId: null };
    const synced = await sent(node, SyncGroupApi, { ...member, protocolType: 'consumer', protocolName: 'range', assignments: [{ memberId: first.memberId, assignment: Buffer.from('0001', 'hex') }] });
    expect(synced).toMatchObject({ errorCode: 0, protocolType: 'consumer', protocolName: 'range' });
    expect(synced.assignment).toEqual(Buffer.from('0001', 'hex'));
    expect((await sent(node, HeartbeatApi, member)).errorCode).toBe(0);

    const committed = await sent(node, OffsetCommitApi, { ...member, retentionTimeMs: -1, topics: [{ name: 'rt', partitions: [{ partitionIndex: 0, committedOffset: 2, committedLeaderEpoch: 0, commitTimestamp: -1, committedMetadata: 'm' }] }] });
    expect(committed.topics[0]?.partitions[0]).toEqual({ partitionIndex: 0, errorCode: 0 });
    const fetchedOffsets = await sent(node, OffsetFetchApi, { groupId: 'rt-group', topics: [{ name: 'rt', partitionIndexes: [0] }], requireStable: true });
    expect(fetchedOffsets.errorCode).toBe(0);
    // Only the offset: the ZooKeeper offset store keeps neither the commit's metadata nor its leader epoch yet
    // (Kafka's __consumer_offsets does; see docs/compatibility.md).
    expect(fetchedOffsets.topics[0]?.partitions[0]).toMatchObject({ partitionIndex: 0, committedOffset: 2, errorCode: 0 });

    const groups = await sent(node, DescribeGroupsApi, { groups: ['rt-group'], includeAuthorizedOperations: false });
    expect(groups.groups[0]).toMatchObject({ errorCode: 0, groupId: 'rt-group', groupState: 'Stable', protocolType: 'consumer', protocolData: 'range' });
    expect(groups.groups[0]?.members.map((m) => m.memberId)).toEqual([first.memberId]);
    const listed = await sent(node, ListGroupsApi, { statesFilter: ['Stable'] });
    expect(listed.errorCode).toBe(0);
    expect(listed.groups).toContainEqual({ groupId: 'rt-group', protocolType: 'consumer', groupState: 'Stable' });

    const left = await sent(node, LeaveGroupApi, { groupId: 'rt-group', memberId: '', members: [{ memberId: first.memberId, groupInstanceId: null }] });
    expect(left.errorCode).toBe(0);
    expect(left.members).toEqual([{ memberId: first.memberId, groupInstanceId: null, errorCode: 0 }]);
    const offsetDeleted = await sent(node, OffsetDeleteApi, { groupId: 'rt-group', topics: [{ name: 'rt', partitions: [{ partitionIndex: 0 }] }] });
    expect(offsetDeleted.errorCode).toBe(0);
    expect(offsetDeleted.topics[0]?.partitions[0]).toEqual({ partitionIndex: 0, errorCode: 0 });
    const groupDeleted = await sent(node, DeleteGroupsApi, { groupsNames: ['rt-group'] });
    expect(groupDeleted.results).toEqual([{ groupId: 'rt-group', errorCode: 0 }]);
  }, 60000);

  it('answers the admin APIs: quotas, log dirs, elections, reassignments, delegation tokens, ACLs', async () => {
    const quota = await sent('any', AlterClientQuotasApi, { entries: [{ entity: [{ entityType: 'client-id', entityName: 'rt-client' }], ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] }], validateOnly: false });
    expect(quota.entries).toEqual([{ errorCode: 0, errorMessage: null, entity: [{ entityType: 'client-id', entityName: 'rt-client' }] }]);
    const quotas = await waitUntil(async () => {
      const q = await sent('any', DescribeClientQuotasApi, { components: [{ entityType: 'client-id', matchType: 0, match: 'rt-client' }], strict: false });
      return (q.entries?.length ?? 0) > 0 ? q : undefined;
    }, { timeoutMs: 20000, message: 'the rt-client quota described' });
    expect(quotas).toMatchObject({ errorCode: 0, entries: [{ entity: [{ entityType: 'client-id', entityName: 'rt-client' }], values: [{ key: 'producer_byte_rate', value: 1048576 }] }] });

    // SCRAM credentials (KIP-554): the controller writes /config/users/rt-user; SCRAM-SHA-256 is mechanism 1.
    const scram = await sent('controller', AlterUserScramCredentialsApi, {
      deletions: [],
      upsertions: [{ name: 'rt-user', mechanism: 1, iterations: 4096, salt: crypto.randomBytes(16), saltedPassword: crypto.randomBytes(32) }],
    });
    expect(scram.results).toEqual([{ user: 'rt-user', errorCode: 0, errorMessage: null }]);
    const described = await waitUntil(async () => {
      const d = await sent('any', DescribeUserScramCredentialsApi, { users: [{ name: 'rt-user' }] });
      return d.results[0]?.errorCode === 0 ? d : undefined;
    }, { timeoutMs: 20000, message: 'the rt-user SCRAM credential described' });
    expect(described.results[0]?.credentialInfos).toEqual([{ mechanism: 1, iterations: 4096 }]);

    await client.refreshMetadata(['rt']);
    const leader = client.metadata.leaderFor('rt', 0) as number;
    const dirs = await sent(leader, DescribeLogDirsApi, { topics: [{ topic: 'rt', partitionIndex: [0] }] });
    // As Kafka, each dir lists every topic it holds, with only the asked-for partitions.
    const dir = dirs.results.find((d) => d.topics.some((t) => t.name === 'rt' && t.partitions.length > 0));
    expect(dir?.errorCode).toBe(0);
    expect(dir?.topics.find((t) => t.name === 'rt')?.partitions).toEqual([{ partitionIndex: 0, partitionSize: 2 * BATCH.length, offsetLag: 0, isFutureKey: false }]);
    // Back to the dir it is in: accepted, nothing moves.
    const moved = await sent(leader, AlterReplicaLogDirsApi, { dirs: [{ path: dir?.logDir as string, topics: [{ name: 'rt', partitions: [0] }] }] });
    expect(moved.results).toEqual([{ topicName: 'rt', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);

    // The preferred replica already leads: ELECTION_NOT_NEEDED for the partition, NONE at the top.
    const elected = await sent('controller', ElectLeadersApi, { electionType: 0, topicPartitions: [{ topic: 'rt', partitions: [0] }], timeoutMs: 30000 });
    expect(elected.errorCode).toBe(0);
    expect(elected.replicaElectionResults[0]?.partitionResult[0]).toMatchObject({ partitionId: 0, errorCode: 84 });

    const reassigned = await sent('controller', AlterPartitionReassignmentsApi, { timeoutMs: 30000, topics: [{ name: 'rt', partitions: [{ partitionIndex: 1, replicas: null }] }] });
    // Nothing to cancel: NO_REASSIGNMENT_IN_PROGRESS, Kafka's answer to a cancel of an idle partition.
    expect(reassigned.errorCode).toBe(0);
    expect(reassigned.responses[0]?.partitions[0]).toMatchObject({ partitionIndex: 1, errorCode: 85 });
    const listed = await sent('controller', ListPartitionReassignmentsApi, { timeoutMs: 30000, topics: null });
    expect(listed).toMatchObject({ errorCode: 0, topics: [] });

    // Delegation tokens: a PLAINTEXT connection may not ask for them (DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, 64).
    expect(await sent('any', CreateDelegationTokenApi, { renewers: [], maxLifetimeMs: -1 })).toMatchObject({ errorCode: 64, principalName: 'ANONYMOUS' });
    expect(await sent('any', RenewDelegationTokenApi, { hmac: Buffer.alloc(64), renewPeriodMs: -1 })).toMatchObject({ errorCode: 64, expiryTimestampMs: -1 });
    expect(await sent('any', ExpireDelegationTokenApi, { hmac: Buffer.alloc(64), expiryTimePeriodMs: -1 })).toMatchObject({ errorCode: 64, expiryTimestampMs: -1 });
    expect(await sent('any', DescribeDelegationTokenApi, { owners: null })).toMatchObject({ errorCode: 64, tokens: [] });

    // The ACL APIs without an authorizer: SECURITY_DISABLED (54), as Kafka answers them (test/integration/security/acls.test.ts runs them with one).
    const filter = { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 };
    expect(await sent('any', DescribeAclsApi, filter)).toMatchObject({ errorCode: 54 });
    const acl = { resourceType: 2, resourceName: 'rt', resourcePatternType: 3, principal: 'User:alice', host: '*', operation: 3, permissionType: 3 };
    expect((await sent('any', CreateAclsApi, { creations: [acl] })).results.map((r) => r.errorCode)).toEqual([54]);
    expect((await sent('any', DeleteAclsApi, { filters: [filter] })).filterResults.map((r) => r.errorCode)).toEqual([54]);
  }, 60000);

  it('runs a transaction through its coordinator: InitProducerId, AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn, WriteTxnMarkers', async () => {
    // COORDINATOR_NOT_AVAILABLE (15) while the first FindCoordinator creates __transaction_state.
    const found = await waitUntil(async () => {
      const r = await sent('any', FindCoordinatorApi, { key: 'rt-txn', keyType: 1 });
      return r.errorCode === 0 ? r : undefined;
    }, { timeoutMs: 60000, message: 'the transaction coordinator found' });
    const node = found.nodeId;
    // NOT_COORDINATOR (16) or COORDINATOR_LOAD_IN_PROGRESS (14) until the partition is loaded there.
    const producer = await waitUntil(async () => {
      const r = await sent(node, InitProducerIdApi, { transactionalId: 'rt-txn', transactionTimeoutMs: 60000 });
      return r.errorCode === 0 ? r : undefined;
    }, { timeoutMs: 30000, message: 'a transactional producer id' });
    const ids = { transactionalId: 'rt-txn', producerId: producer.producerId, producerEpoch: producer.producerEpoch };
    const added = await sent(node, AddPartitionsToTxnApi, { ...ids, topics: [{ name: 'rt', partitions: [0] }] });
    expect(added.results).toEqual([{ name: 'rt', results: [{ partitionIndex: 0, errorCode: 0 }] }]);
    expect((await sent(node, AddOffsetsToTxnApi, { ...ids, groupId: 'rt-txn-group' })).errorCode).toBe(0);
    const group = await sent('any', FindCoordinatorApi, { key: 'rt-txn-group', keyType: 0 });
    const txnCommit = await sent(group.nodeId, TxnOffsetCommitApi, {
      ...ids,
      groupId: 'rt-txn-group',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      topics: [{ name: 'rt', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, committedMetadata: null }] }],
    });
    expect(txnCommit.topics).toEqual([{ name: 'rt', partitions: [{ partitionIndex: 0, errorCode: 0 }] }]);
    expect((await sent(node, EndTxnApi, { ...ids, committed: true })).errorCode).toBe(0);
    await loggedAtMax(WriteTxnMarkersApi);
  }, 90000);

  it('deletes the topic (StopReplica) and shuts a broker down (ControlledShutdown), then every API is covered', async () => {
    const deleted = await sent('controller', DeleteTopicsApi, { topicNames: ['rt'], topics: [{ name: 'rt', topicId: Buffer.alloc(16) }], timeoutMs: 30000 });
    expect(deleted.responses[0]).toMatchObject({ name: 'rt', errorCode: 0 });
    await loggedAtMax(StopReplicaApi);
    const controller = (await cluster.controllerId()) as number;
    const victim = [0, 1, 2].find((id) => id !== controller) as number;
    const exit = await cluster.broker(victim).child.stop({ signal: 'SIGTERM', graceMs: 30000 });
    expect(exit.code).toBe(0);
    await loggedAtMax(ControlledShutdownApi);

    const missing = advertised.filter((a) => !covered.has(a.key)).map((a) => a.name);
    expect(missing).toEqual([]);
  }, 90000);
});
