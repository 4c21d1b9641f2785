import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ErrorCode } from '../../../src/common/error-codes';
import { CreatePartitionsApi } from '../../../src/protocol/apis/create-partitions';
import { CreatableTopic, CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { DeleteGroupsApi } from '../../../src/protocol/apis/delete-groups';
import { DescribeConfigsApi } from '../../../src/protocol/apis/describe-configs';
import { DescribeGroupsApi } from '../../../src/protocol/apis/describe-groups';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { HeartbeatApi } from '../../../src/protocol/apis/heartbeat';
import { JoinGroupApi } from '../../../src/protocol/apis/join-group';
import { LeaderAndIsrApi } from '../../../src/protocol/apis/leader-and-isr';
import { LeaveGroupApi } from '../../../src/protocol/apis/leave-group';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { OffsetCommitApi } from '../../../src/protocol/apis/offset-commit';
import { OffsetFetchApi } from '../../../src/protocol/apis/offset-fetch';
import { SyncGroupApi } from '../../../src/protocol/apis/sync-group';
import { ZNODE_MAX_DATA_BYTES } from '../../../src/zk/znodes/topic-assignment';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/**
 * Request values are input: names and sizes a client chooses must be answered at once with Kafka's errors and
 * never form another's znode or file path, never stall the controller, never take a broker down.
 */
describe('names and bounds on a 3-broker cluster', () => {
  let cluster: TestCluster;
  let controller: BrokerConnection;
  let other: BrokerConnection;
  const code = (name: keyof typeof ErrorCode): number => ErrorCode[name].code;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    const id = await cluster.waitForController();
    controller = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(id).port });
    other = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker((id + 1) % 3).port });
    await controller.connect();
    await other.connect();
    await controller.negotiate();
    await other.negotiate();
    // The controller answers admin requests once its failover is done.
    await waitUntil(async () => (await createTopics([topic({ name: 'a_b', numPartitions: 1, replicationFactor: 1 })]))[0]?.errorCode !== code('NOT_CONTROLLER'), { timeoutMs: 30000, message: 'the controller to take requests' });
  }, 120000);

  afterAll(async () => {
    controller?.close();
    other?.close();
    await cluster?.close();
  });

  const p = (zkPath: string): string => `${cluster.chroot}${zkPath}`;
  const topic = (t: Partial<CreatableTopic> & { name: string }): CreatableTopic => ({ numPartitions: -1, replicationFactor: -1, assignments: [], configs: [], ...t });

  async function createTopics(topics: CreatableTopic[]): Promise<{ name: string; errorCode: number; errorMessage: string | null }[]> {
    return (await controller.send(CreateTopicsApi, { topics, timeoutMs: 10000, validateOnly: false }, { version: 4 })).topics;
  }

  async function alive(): Promise<void> {
    for (const b of cluster.brokers.values()) {
      expect(b.child.isRunning()).toBe(true);
      const conn = new BrokerConnection({ host: '127.0.0.1', port: b.port });
      try {
        await conn.connect();
        expect((await conn.send(MetadataApi, { topics: [], allowAutoTopicCreation: false }, { version: 1 })).brokers).toHaveLength(3);
      } finally {
        conn.close();
      }
    }
  }

  it('CreateTopics: 2^31-1 partitions, RF above the brokers, duplicates, names, all answered at once', async () => {
    const started = Date.now();
    const results = await createTopics([
      topic({ name: 'huge', numPartitions: 2147483647, replicationFactor: 1 }),
      topic({ name: 'wide', numPartitions: 1, replicationFactor: 4 }),
      topic({ name: 'dups', assignments: [{ partitionIndex: 0, brokerIds: [1, 1] }] }),
      topic({ name: 'uneven', assignments: [{ partitionIndex: 0, brokerIds: [0, 1] }, { partitionIndex: 1, brokerIds: [2] }] }),
      topic({ name: 'gaps', assignments: [{ partitionIndex: 0, brokerIds: [0] }, { partitionIndex: 2, brokerIds: [1] }] }),
      topic({ name: 'zero', numPartitions: 0, replicationFactor: 1 }),
      topic({ name: 'norf', numPartitions: 1, replicationFactor: 0 }),
      topic({ name: 'a.b', numPartitions: 1, replicationFactor: 1 }),
      topic({ name: 'x'.repeat(250), numPartitions: 1, replicationFactor: 1 }),
      topic({ name: '..', numPartitions: 1, replicationFactor: 1 }),
      topic({ name: 'a/b', numPartitions: 1, replicationFactor: 1 }),
    ]);
    expect(Date.now() - started).toBeLessThan(2000);
    const byName = new Map(results.map((r) => [r.name, r]));
    expect(byName.get('huge')).toMatchObject({ errorCode: code('INVALID_PARTITIONS'), errorMessage: expect.stringMatching(/with 2147483647 partitions would take \d+ bytes, more than the 1047551 bytes a ZooKeeper znode can hold/) });
    expect(byName.get('wide')).toMatchObject({ errorCode: code('INVALID_REPLICATION_FACTOR'), errorMessage: 'Replication factor: 4 larger than available brokers: 3.' });
    expect(byName.get('dups')).toMatchObject({ errorCode: code('INVALID_REPLICA_ASSIGNMENT'), errorMessage: 'Duplicate replica assignment found: HashMap(0 -> ArrayBuffer(1, 1))' });
    expect(byName.get('uneven')).toMatchObject({ errorCode: code('INVALID_REPLICA_ASSIGNMENT'), errorMessage: 'All partitions should have the same number of replicas' });
    expect(byName.get('gaps')).toMatchObject({ errorCode: code('INVALID_REPLICA_ASSIGNMENT'), errorMessage: 'partitions should be a consecutive 0-based integer sequence' });
    expect(byName.get('zero')).toMatchObject({ errorCode: code('INVALID_PARTITIONS'), errorMessage: 'Number of partitions must be larger than 0.' });
    expect(byName.get('norf')).toMatchObject({ errorCode: code('INVALID_REPLICATION_FACTOR'), errorMessage: 'Replication factor must be larger than 0.' });
    expect(byName.get('a.b')).toMatchObject({ errorCode: code('INVALID_TOPIC_EXCEPTION'), errorMessage: "Topic 'a.b' collides with existing topics: a_b" });
    expect(byName.get('x'.repeat(250))).toMatchObject({ errorCode: code('INVALID_TOPIC_EXCEPTION'), errorMessage: expect.stringContaining("can't be longer than 249 characters") });
    expect(byName.get('..')).toMatchObject({ errorCode: code('INVALID_TOPIC_EXCEPTION'), errorMessage: 'Topic name cannot be "." or ".."' });
    expect(byName.get('a/b')).toMatchObject({ errorCode: code('INVALID_TOPIC_EXCEPTION') });
    const children = (await cluster.zk.getChildren(p('/brokers/topics'))) ?? [];
    expect(children.sort()).toEqual(['a_b']);
    await alive();
  });

  it('CreateTopics with an assignment naming an unknown broker is accepted, as in Kafka 2.8; CreatePartitions refuses it', async () => {
    // Its partition has no live replica, so no leader appears before the request's timeout: created, and
    // REQUEST_TIMED_OUT (Kafka's DelayedCreatePartitions); with timeout_ms 0 nothing is awaited.
    const [accepted] = (await controller.send(CreateTopicsApi, { topics: [topic({ name: 'waiting', assignments: [{ partitionIndex: 0, brokerIds: [7] }] })], timeoutMs: 500, validateOnly: false }, { version: 4 })).topics;
    expect(accepted).toMatchObject({ errorCode: code('REQUEST_TIMED_OUT'), errorMessage: null });
    expect(await cluster.zk.exists(p('/brokers/topics/waiting'))).not.toBeNull();
    const [unawaited] = (await controller.send(CreateTopicsApi, { topics: [topic({ name: 'unawaited', assignments: [{ partitionIndex: 0, brokerIds: [7] }] })], timeoutMs: 0, validateOnly: false }, { version: 4 })).topics;
    expect(unawaited).toMatchObject({ errorCode: 0 });
    expect((await createTopics([topic({ name: 'base', numPartitions: 2, replicationFactor: 2 })]))[0]?.errorCode).toBe(0);
    await cluster.waitForLeaders('base', 2);
    const started = Date.now();
    const { results } = await controller.send(
      CreatePartitionsApi,
      {
        topics: [
          { name: 'base', count: 2147483647, assignments: null },
          { name: 'base', count: 3, assignments: [{ brokerIds: [7, 1] }] },
          { name: 'base', count: 3, assignments: [{ brokerIds: [1, 1] }] },
          { name: 'base', count: 3, assignments: [{ brokerIds: [1] }] },
          { name: 'base', count: 1, assignments: null },
          { name: 'nothere', count: 3, assignments: null },
        ],
        timeoutMs: 10000,
        validateOnly: false,
      },
      { version: 1 },
    );
    expect(Date.now() - started).toBeLessThan(2000);
    expect(results.map((r) => [r.errorCode, r.errorMessage])).toEqual([
      [code('INVALID_PARTITIONS'), expect.stringMatching(/with 2147483647 partitions would take \d+ bytes/)],
      [code('INVALID_REPLICA_ASSIGNMENT'), 'Unknown broker(s) in replica assignment: 7.'],
      [code('INVALID_REPLICA_ASSIGNMENT'), 'Duplicate brokers not allowed in replica assignment: 1, 1 for partition id 2.'],
      [code('INVALID_REPLICA_ASSIGNMENT'), 'Inconsistent replication factor between partitions, partition 0 has 2 while partitions [2] have replication factors [1], respectively.'],
      [code('INVALID_PARTITIONS'), 'Topic currently has 2 partitions, which is higher than the requested 1.'],
      [code('UNKNOWN_TOPIC_OR_PARTITION'), "The topic 'nothere' does not exist."],
    ]);
    expect(Object.keys(JSON.parse((await cluster.zk.getData(p('/brokers/topics/base')))?.data?.toString() ?? '{}').partitions)).toEqual(['0', '1']);
    // The controller is not stalled: a topic made right after has its leaders.
    expect((await createTopics([topic({ name: 'right-after', numPartitions: 3, replicationFactor: 3 })]))[0]?.errorCode).toBe(0);
    await cluster.waitForLeaders('right-after', 3);
    await alive();
  });

  it('a znode of the largest accepted assignment size can be stored', async () => {
    await cluster.zk.createRecursive(p('/size-probe'), Buffer.alloc(ZNODE_MAX_DATA_BYTES, 0x61));
    expect((await cluster.zk.exists(p('/size-probe')))?.dataLength).toBe(ZNODE_MAX_DATA_BYTES);
    await cluster.zk.delete(p('/size-probe'));
  });

  it('topic names are checked where they enter: Metadata auto-creation, DescribeConfigs, LeaderAndIsr', async () => {
    const long = 'y'.repeat(250);
    const md = await other.send(MetadataApi, { topics: [{ name: long }, { name: 'bad name' }, { name: 'a.b' }], allowAutoTopicCreation: true }, { version: 4 });
    // 'a.b' collides with 'a_b': auto-creation refuses it as CreateTopics does.
    expect(md.topics.map((t) => t.errorCode)).toEqual([code('INVALID_TOPIC_EXCEPTION'), code('INVALID_TOPIC_EXCEPTION'), code('INVALID_TOPIC_EXCEPTION')]);
    const dc = await other.send(DescribeConfigsApi, { resources: [{ resourceType: 2, resourceName: 'a/b', configurationKeys: null }], includeSynonyms: false }, { version: 1 });
    expect(dc.results[0]).toMatchObject({ errorCode: code('INVALID_TOPIC_EXCEPTION'), errorMessage: 'Topic name "a/b" is illegal, it contains a character other than ASCII alphanumerics, \'.\', \'_\' and \'-\'' });
    // A LeaderAndIsr naming ".." (a log directory "../-0") is refused for that partition.
    const target = cluster.broker(1);
    const epoch = await cluster.controllerEpoch();
    const conn = new BrokerConnection({ host: '127.0.0.1', port: target.port });
    try {
      await conn.connect();
      const r = await conn.send(
        LeaderAndIsrApi,
        {
          controllerId: 0,
          controllerEpoch: epoch,
          brokerEpoch: -1,
          ungroupedPartitionStates: [],
          topicStates: [{ topicName: '..', partitionStates: [{ topicName: '..', partitionIndex: 0, controllerEpoch: epoch, leader: 1, leaderEpoch: 1, isr: [1], zkVersion: 0, replicas: [1], addingReplicas: [], removingReplicas: [], isNew: true }] }],
          liveLeaders: [],
        },
        { version: 2 },
      );
      expect(r.partitionErrors).toEqual([{ topicName: '..', partitionIndex: 0, errorCode: code('INVALID_TOPIC_EXCEPTION') }]);
    } finally {
      conn.close();
    }
    const dataDir = target.logDirs[0] as string;
    expect(fs.existsSync(path.join(dataDir, '..', '..-0'))).toBe(false);
    expect(fs.readdirSync(dataDir).filter((d) => d.startsWith('..'))).toEqual([]);
    expect(((await cluster.zk.getChildren(p('/brokers/topics'))) ?? []).filter((t) => t.length > 249 || t.includes(' '))).toEqual([]);
    await alive();
  });

  it("a group id with '/' (or '..') gets INVALID_GROUP_ID from every group API and touches no other group's znodes", async () => {
    // A real group with committed offsets: the target a crafted group id would reach.
    await cluster.zk.createRecursive(p('/consumers/victim/offsets/base/0'), Buffer.from('5'));
    const before = await snapshot('/consumers');
    for (const groupId of ['victim/offsets', 'a/b', '..', '']) {
      const offsets = [{ name: 'base', partitions: [{ partitionIndex: 0, committedOffset: 99, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }];
      const join = await other.send(JoinGroupApi, { groupId, sessionTimeoutMs: 10000, rebalanceTimeoutMs: 10000, memberId: '', groupInstanceId: null, protocolType: 'consumer', protocols: [{ name: 'range', metadata: Buffer.alloc(0) }] }, { version: 2 });
      expect(join.errorCode).toBe(code('INVALID_GROUP_ID'));
      expect((await other.send(SyncGroupApi, { groupId, generationId: 1, memberId: 'm', groupInstanceId: null, protocolType: null, protocolName: null, assignments: [] }, { version: 1 })).errorCode).toBe(code('INVALID_GROUP_ID'));
      expect((await other.send(HeartbeatApi, { groupId, generationId: 1, memberId: 'm', groupInstanceId: null }, { version: 1 })).errorCode).toBe(code('INVALID_GROUP_ID'));
      expect((await other.send(LeaveGroupApi, { groupId, memberId: 'm', members: [] }, { version: 1 })).errorCode).toBe(code('INVALID_GROUP_ID'));
      for (const version of [0, 2, 7]) {
        const commit = await other.send(OffsetCommitApi, { groupId, generationId: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1, topics: offsets }, { version });
        expect(commit.topics[0]?.partitions[0]?.errorCode).toBe(code('INVALID_GROUP_ID'));
      }
      for (const version of [0, 1]) {
        const fetched = await other.send(OffsetFetchApi, { groupId, topics: [{ name: 'base', partitionIndexes: [0] }], requireStable: false }, { version });
        expect(fetched.topics[0]?.partitions[0]).toMatchObject({ errorCode: code('INVALID_GROUP_ID'), committedOffset: -1 });
      }
      expect((await other.send(OffsetFetchApi, { groupId, topics: null, requireStable: false }, { version: 2 })).errorCode).toBe(code('INVALID_GROUP_ID'));
      expect((await other.send(DescribeGroupsApi, { groups: [groupId], includeAuthorizedOperations: false }, { version: 1 })).groups[0]?.errorCode).toBe(code('INVALID_GROUP_ID'));
      expect((await other.send(DeleteGroupsApi, { groupsNames: [groupId] }, { version: 0 })).results[0]?.errorCode).toBe(code('INVALID_GROUP_ID'));
      // FindCoordinator answers as Kafka's does (it forms no path).
      const found = await other.send(FindCoordinatorApi, { key: groupId, keyType: 0 }, { version: 1 });
      expect([code('NONE'), code('COORDINATOR_NOT_AVAILABLE')]).toContain(found.errorCode);
    }
    expect(await snapshot('/consumers')).toEqual(before);
    expect((await cluster.zk.getData(p('/consumers/victim/offsets/base/0')))?.data?.toString()).toBe('5');
    await alive();
  });

  it('kafkajs sees INVALID_GROUP_ID as a non-retriable error at once', async () => {
    // The offsets topic exists and has leaders (the earlier FindCoordinator requests created it).
    await waitUntil(async () => (await other.send(FindCoordinatorApi, { key: 'valid', keyType: 0 }, { version: 1 })).errorCode === code('NONE'), { timeoutMs: 60000, message: 'a group coordinator' });
    const kafka = new Kafka({ clientId: 'names', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 3 } });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await expect(admin.fetchOffsets({ groupId: 'x/y', topics: ['base'] })).rejects.toThrow(/group ?id|invalid/i);
    } finally {
      await admin.disconnect();
    }
    await alive();
  });

  it('the tools refuse the same on one line', async () => {
    const started = Date.now();
    const huge = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'huge', '--partitions', '2147483647', '--replication-factor', '1']);
    expect(huge.code).toBe(1);
    expect(huge.output).toMatch(/Error while executing topic command : The replica assignment of 2147483647 partitions with replication factor 1 would take \d+ bytes/);
    const wide = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'wide', '--partitions', '1', '--replication-factor', '4']);
    expect(wide.output).toMatch(/Error while executing topic command : Replication factor: 4 larger than available brokers: 3\./);
    const groups = await runTool('kafka-consumer-groups', ['--zookeeper', cluster.zkConnect, '--describe', '--group', 'victim/offsets']);
    expect(groups.code).toBe(1);
    expect(groups.output.trim().split('\n').filter((l) => /error/i.test(l))).toEqual([
      'Error: Executing consumer group command failed due to The group id "victim/offsets" cannot be stored under /consumers: contains \'/\'',
    ]);
    const consumer = await runTool('kafka-console-consumer', ['--zookeeper', cluster.zkConnect, '--topic', 'base', '--group', 'a/b', '--timeout-ms', '1000']);
    expect(consumer.code).toBe(1);
    expect(consumer.output).toMatch(/kafka\.common\.InvalidConfigException: group\.id a\/b is illegal, contains a character other than ASCII alphanumerics, '\.', '_' and '-'/);
    expect(Date.now() - started).toBeLessThan(60000);
    expect((await cluster.zk.getData(p('/consumers/victim/offsets/base/0')))?.data?.toString()).toBe('5');
    await alive();
  });

  async function snapshot(root: string): Promise<string[]> {
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      const node = await cluster.zk.getData(p(rel));
      if (node === null) return;
      out.push(`${rel}=${node.data?.toString() ?? ''}`);
      for (const c of (await cluster.zk.getChildren(p(rel))) ?? []) await walk(`${rel}/${c}`);
    };
    await walk(root);
    return out.sort();
  }
});
