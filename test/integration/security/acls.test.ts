import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { ApiDefinition } from '../../../src/protocol/api-definition';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { DeleteTopicsApi } from '../../../src/protocol/apis/delete-topics';
import { DescribeAclsApi } from '../../../src/protocol/apis/describe-acls';
import { DescribeConfigsApi } from '../../../src/protocol/apis/describe-configs';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { StopReplicaApi } from '../../../src/protocol/apis/stop-replica';
import { UpdateMetadataApi } from '../../../src/protocol/apis/update-metadata';
import { readResponseHeader } from '../../../src/protocol/headers';
import { ByteReader } from '../../../src/protocol/primitives/byte-reader';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';

/*
 * The ACL matrix over PLAINTEXT, where every client is User:ANONYMOUS: the brokers' own traffic (controller
 * requests, follower fetches) comes from 127.0.0.1 and gets ClusterAction from that host only, granted in
 * ZooKeeper before they start (as an operator would with kafka-acls --authorizer-properties); clients that must
 * lack it connect from 127.0.0.2. The principal is a parameter so that the same matrix can run as a SASL user.
 */
const PRINCIPAL = process.env['ACL_TEST_PRINCIPAL'] ?? 'User:ANONYMOUS';
const CODE = { TOPIC_AUTHORIZATION_FAILED: 29, GROUP_AUTHORIZATION_FAILED: 30, CLUSTER_AUTHORIZATION_FAILED: 31 };

let ensemble: ZkEnsemble;
let cluster: TestCluster;
let zkConnect: string;
let correlation = 100;

async function call<Req, Res>(port: number, api: ApiDefinition<Req, Res>, version: number, body: Req, localAddress?: string): Promise<Res> {
  const conn = await RawConnection.open(port, localAddress);
  try {
    const w = new ByteWriter();
    api.encodeRequest(version, w, body);
    const id = correlation++;
    conn.send(requestFrame(api.key, version, id, w.toBuffer(), 'acl-test', api.requestHeaderVersion(version) >= 2));
    const frame = await conn.response(id, 10000);
    if (frame === undefined) throw new Error(`no ${api.name} response`);
    const r = new ByteReader(frame);
    readResponseHeader(r, api.responseHeaderVersion(version));
    return api.decodeResponse(version, r);
  } finally {
    conn.close();
  }
}

async function topicError(port: number, topic: string): Promise<number | undefined> {
  const r = await call(port, MetadataApi, 1, { topics: [{ name: topic, topicId: Buffer.alloc(16) }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
  return r.topics.find((t) => t.name === topic)?.errorCode;
}

function acls(...args: string[]): Promise<{ code: number | null; output: string }> {
  return runTool('kafka-acls', ['--bootstrap-server', `127.0.0.1:${cluster.broker(0).port}`, ...args]);
}

beforeAll(async () => {
  ensemble = await startZkEnsemble({ size: 3 });
  const chroot = uniqueChroot('acls');
  zkConnect = ensemble.connectStringWithChroot(chroot);
  // What brokers need, from their own host only; Create/Alter/Describe on the cluster for the admin steps.
  const grant = await runTool('kafka-acls', [
    '--authorizer-properties', `zookeeper.connect=${zkConnect}`,
    '--add', '--allow-principal', PRINCIPAL, '--allow-host', '127.0.0.1',
    '--operation', 'ClusterAction', '--operation', 'Create', '--operation', 'Alter', '--operation', 'Describe', '--cluster',
  ]);
  expect(grant.code).toBe(0);
  expect(grant.output).toContain('Adding ACLs for resource `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL)`: \n \t(principal=User:ANONYMOUS, host=127.0.0.1, operation=CLUSTER_ACTION, permissionType=ALLOW)');
  cluster = await TestCluster.start({ brokers: 2, ensemble, chroot, props: { 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' } });
  const admin = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  // Create on the cluster is granted, Describe on topics is not: the leaders are awaited in ZooKeeper.
  const topics = ['lit-t', 'pre-a', 'other', 'wild-w'];
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 1, replicationFactor: 2 })), waitForLeaders: false });
  await admin.disconnect();
  for (const t of topics) await waitUntil(async () => ((await cluster.partitionState(t, 0))?.isr.length ?? 0) === 2, { timeoutMs: 30000, message: `${t} to have its replicas in sync` });
}, 240000);

afterAll(async () => {
  await cluster?.close();
  await ensemble?.close();
});

describe('ACLs over kafka-ts', () => {
  it('refuses a producer without Write and lets it write once kafka-acls --producer adds the ACLs (literal)', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
    await producer.connect();
    await expect(producer.send({ topic: 'lit-t', messages: [{ value: 'x' }] })).rejects.toThrow(/authoriz/i);
    const added = await acls('--add', '--producer', '--topic', 'lit-t', '--allow-principal', PRINCIPAL);
    expect(added.code).toBe(0);
    expect(added.output).toContain('Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=lit-t, patternType=LITERAL)`:');
    // Added through broker 0; broker 1 learns it from the change notification within seconds.
    await waitUntil(async () => (await topicError(cluster.broker(1).port, 'lit-t')) === 0, { timeoutMs: 15000, message: 'broker 1 to see the new ACL' });
    await waitUntil(
      async () => producer.send({ topic: 'lit-t', messages: [{ value: 'x' }] }).then(() => true, () => false),
      { timeoutMs: 15000, message: 'the produce to be allowed' },
    );
    await producer.disconnect();
  }, 90000);

  it('applies prefixed ACLs to the topics they prefix and to no other, and consumers need Read on the group', async () => {
    expect(await topicError(cluster.broker(0).port, 'pre-a')).toBe(CODE.TOPIC_AUTHORIZATION_FAILED);
    const added = await acls('--add', '--consumer', '--topic', 'pre-', '--group', 'g-', '--resource-pattern-type', 'prefixed', '--allow-principal', PRINCIPAL);
    expect(added.code).toBe(0);
    for (const b of [0, 1]) await waitUntil(async () => (await topicError(cluster.broker(b).port, 'pre-a')) === 0, { timeoutMs: 15000, message: `broker ${b} to allow pre-a` });
    expect(await topicError(cluster.broker(0).port, 'other')).toBe(CODE.TOPIC_AUTHORIZATION_FAILED);
    // Read on the prefixed groups, not on others: FindCoordinator answers GROUP_AUTHORIZATION_FAILED for those
    // (kafkajs reports that as "Failed to find group coordinator", hence the raw request).
    const coordinator = (key: string): Promise<number> => call(cluster.broker(1).port, FindCoordinatorApi, 1, { key, keyType: 0 }).then((r) => r.errorCode);
    expect(await coordinator('nope')).toBe(CODE.GROUP_AUTHORIZATION_FAILED);
    await waitUntil(async () => (await coordinator('g-1')) === 0, { timeoutMs: 20000, message: 'a coordinator for g-1' });
  }, 90000);

  it('ends the consumer tools on a topic or group they may not use, with the exceptions Kafka prints', async () => {
    const bootstrap = `127.0.0.1:${cluster.broker(0).port}`;
    // No Describe on 'other': the metadata refuses it. Kafka's process() logs and returns, so the status is 0.
    const noDescribe = await runTool('kafka-console-consumer', ['--bootstrap-server', bootstrap, '--topic', 'other', '--from-beginning']);
    expect(noDescribe.code).toBe(0);
    expect(noDescribe.output).toMatch(/ERROR Error processing message, terminating consumer process: {2}\(kafka\.tools\.ConsoleConsumer\$\)\norg\.apache\.kafka\.common\.errors\.TopicAuthorizationException: Not authorized to access topics: \[other\]\nProcessed a total of 0 messages/);
    // lit-t has the --producer ACLs (Describe, no Read): the leader refuses the Fetch.
    const noRead = await runTool('kafka-console-consumer', ['--bootstrap-server', bootstrap, '--topic', 'lit-t', '--partition', '0', '--offset', 'earliest']);
    expect([noRead.code, noRead.output]).toEqual([0, expect.stringContaining('org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [lit-t]')]);
    const noGroup = await runTool('kafka-console-consumer', ['--bootstrap-server', bootstrap, '--topic', 'pre-a', '--group', 'nope']);
    expect([noGroup.code, noGroup.output]).toEqual([0, expect.stringContaining('org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: nope\nProcessed a total of 0 messages')]);
    const verifiable = await runTool('kafka-verifiable-consumer', ['--bootstrap-server', bootstrap, '--topic', 'pre-a', '--group-id', 'nope']);
    expect(verifiable.code).toBe(0);
    expect(verifiable.output).toContain('Error during processing, terminating consumer process: org.apache.kafka.common.errors.GroupAuthorizationException: Not authorized to access group: nope');
    expect(verifiable.output).toMatch(/"name":"shutdown_complete"/);
    const perf = await runTool('kafka-consumer-perf-test', ['--bootstrap-server', bootstrap, '--topic', 'lit-t', '--messages', '1']);
    expect([perf.code, perf.output.trim().split('\n').pop()]).toEqual([1, 'Exception in thread "main" org.apache.kafka.common.errors.TopicAuthorizationException: Not authorized to access topics: [lit-t]']);
  }, 90000);

  it('denies before it allows, for wildcard resources too', async () => {
    expect((await acls('--add', '--topic', '*', '--operation', 'Describe', '--allow-principal', PRINCIPAL)).code).toBe(0);
    await waitUntil(async () => (await topicError(cluster.broker(1).port, 'other')) === 0, { timeoutMs: 15000, message: 'the wildcard ACL' });
    expect((await acls('--add', '--topic', 'wild-w', '--operation', 'Describe', '--deny-principal', PRINCIPAL)).code).toBe(0);
    await waitUntil(async () => (await topicError(cluster.broker(1).port, 'wild-w')) === CODE.TOPIC_AUTHORIZATION_FAILED, { timeoutMs: 15000, message: 'the deny ACL' });
    const removed = await acls('--remove', '--force', '--topic', 'wild-w', '--operation', 'Describe', '--deny-principal', PRINCIPAL);
    expect(removed.code).toBe(0);
    await waitUntil(async () => (await topicError(cluster.broker(1).port, 'wild-w')) === 0, { timeoutMs: 15000, message: 'the deny ACL to go' });
    const listed = await acls('--list', '--topic', '*');
    expect(listed.output).toContain(`Current ACLs for resource \`ResourcePattern(resourceType=TOPIC, name=*, patternType=LITERAL)\`: \n \t(principal=${PRINCIPAL}, host=*, operation=DESCRIBE, permissionType=ALLOW) \n`);
  }, 90000);

  it('refuses control-plane frames from a host without ClusterAction, and the data stays', async () => {
    const leaderPort = cluster.broker(0).port;
    const stop = await call(leaderPort, StopReplicaApi, 1, { controllerId: 0, controllerEpoch: 1000, brokerEpoch: -1, deletePartitions: true, ungroupedPartitions: [], topics: [{ name: 'lit-t', partitionIndexes: [0] }], topicStates: [] }, '127.0.0.2');
    expect(stop.errorCode).toBe(CODE.CLUSTER_AUTHORIZATION_FAILED);
    const update = await call(leaderPort, UpdateMetadataApi, 0, { controllerId: 0, controllerEpoch: 1000, brokerEpoch: -1, ungroupedPartitionStates: [], topicStates: [], liveBrokers: [] } as never, '127.0.0.2');
    expect((update as { errorCode: number }).errorCode).toBe(CODE.CLUSTER_AUTHORIZATION_FAILED);
    // The partition is still served by both brokers and its records are there.
    const consumer = new Kafka({ brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING }).admin();
    await consumer.connect();
    const offsets = await consumer.fetchTopicOffsets('lit-t');
    await consumer.disconnect();
    expect(Number(offsets[0]?.high)).toBeGreaterThan(0);
    const log = fs.readFileSync(path.join(cluster.broker(0).logDir, 'kafka-authorizer.log'), 'utf8');
    expect(log).toMatch(/Principal = User:ANONYMOUS is Denied Operation = ClusterAction from host = 127\.0\.0\.2 on resource = Cluster:LITERAL:kafka-cluster for request = StopReplica with resourceRefCount = 1/);
  }, 60000);

  it('answers CreateAcls from a principal without Alter on the cluster with CLUSTER_AUTHORIZATION_FAILED', async () => {
    const { CreateAclsApi } = await import('../../../src/protocol/apis/create-acls');
    const r = await call(cluster.broker(1).port, CreateAclsApi, 1, { creations: [{ resourceType: 2, resourceName: 'x', resourcePatternType: 3, principal: 'User:evil', host: '*', operation: 2, permissionType: 3 }] }, '127.0.0.2');
    expect(r.results[0]?.errorCode).toBe(CODE.CLUSTER_AUTHORIZATION_FAILED);
  }, 30000);

  it('refuses the admin APIs to a host without cluster ACLs, with the errors Kafka gives', async () => {
    const other = '127.0.0.2';
    const controller = cluster.broker((await cluster.controllerId()) ?? 0).port;
    const created = await call(controller, CreateTopicsApi, 3, { topics: [{ name: 'new-t', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, other);
    expect(created.topics[0]?.errorCode).toBe(CODE.TOPIC_AUTHORIZATION_FAILED);
    const createdV5 = await call(controller, CreateTopicsApi, 5, { topics: [{ name: 'new-t', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: true }, other);
    expect([createdV5.topics[0]?.errorCode, createdV5.topics[0]?.topicConfigErrorCode]).toEqual([CODE.TOPIC_AUTHORIZATION_FAILED, CODE.TOPIC_AUTHORIZATION_FAILED]);
    const deleted = await call(controller, DeleteTopicsApi, 1, { topicNames: ['other'], timeoutMs: 5000 }, other);
    expect(deleted.responses[0]?.errorCode).toBe(CODE.TOPIC_AUTHORIZATION_FAILED);
    const configs = await call(cluster.broker(0).port, DescribeConfigsApi, 1, { resources: [{ resourceType: 4, resourceName: '0', configurationKeys: null }, { resourceType: 2, resourceName: 'other', configurationKeys: null }], includeSynonyms: false }, other);
    expect(configs.results.map((r) => r.errorCode)).toEqual([CODE.CLUSTER_AUTHORIZATION_FAILED, CODE.TOPIC_AUTHORIZATION_FAILED]);
    const described = await call(cluster.broker(0).port, DescribeAclsApi, 1, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 }, other);
    expect(described.errorCode).toBe(CODE.CLUSTER_AUTHORIZATION_FAILED);
    // The same principal from the brokers' host, with Describe on the cluster, sees the ACLs.
    const allowed = await call(cluster.broker(0).port, DescribeAclsApi, 1, { resourceTypeFilter: 1, resourceNameFilter: null, patternTypeFilter: 1, principalFilter: null, hostFilter: null, operation: 1, permissionType: 1 });
    expect(allowed.errorCode).toBe(0);
    expect(allowed.resources.some((r) => r.resourceType === 4 && r.resourceName === 'kafka-cluster')).toBe(true);
  }, 60000);
});
