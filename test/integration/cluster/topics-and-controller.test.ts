import { runTool } from '../../helpers/run-tool';
import fs from 'node:fs';
import path from 'node:path';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { LeaderAndIsrApi } from '../../../src/protocol/apis/leader-and-isr';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { FetchApi } from '../../../src/protocol/apis/fetch';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { RecordBatchBuilder } from '../../../src/records';

async function topics(cluster: TestCluster, ...args: string[]): Promise<{ code: number | null; stdout: string }> {
  const r = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, ...args]);
  return { code: r.code, stdout: r.output };
}

function batch(values: string[]): Buffer {
  const b = new RecordBatchBuilder();
  for (const v of values) b.append({ value: Buffer.from(v), timestamp: Date.now() });
  return b.build();
}

describe('controller, topics and the data path on 3 brokers', () => {
  let cluster: TestCluster;
  const connections: BrokerConnection[] = [];

  async function connect(brokerId: number): Promise<BrokerConnection> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerId).port });
    connections.push(c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    await cluster?.close();
  });

  it('creates a 6-partition topic with leaders spread over the brokers, and describes it in Kafka 2.x layout', async () => {
    const created = await topics(cluster, '--create', '--topic', 'spread', '--partitions', '6', '--replication-factor', '1');
    expect(created).toEqual({ code: 0, stdout: 'Created topic spread.' });
    const leaders = await cluster.waitForLeaders('spread', 6);
    for (const b of [0, 1, 2]) expect(leaders.filter((l) => l === b)).toHaveLength(2);

    const listed = await topics(cluster, '--list');
    expect(listed.stdout.split('\n')).toContain('spread');

    const described = await topics(cluster, '--describe', '--topic', 'spread');
    const lines = described.stdout.split('\n');
    expect(lines[0]).toMatch(/^Topic: spread\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 6\tReplicationFactor: 1\tConfigs: $/);
    expect(lines.slice(1)).toHaveLength(6);
    lines.slice(1).forEach((line, p) => {
      expect(line).toBe(`\tTopic: spread\tPartition: ${p}\tLeader: ${leaders[p]}\tReplicas: ${leaders[p]}\tIsr: ${leaders[p]}`);
    });
    const dir = path.join(cluster.broker(leaders[0] as number).logDirs[0] as string, 'spread-0');
    await waitUntil(() => fs.existsSync(dir), { message: 'the log directory of spread-0 on its leader' });
    expect(fs.readdirSync(dir).sort()).toEqual(expect.arrayContaining(['00000000000000000000.index', '00000000000000000000.log', '00000000000000000000.timeindex']));
  });

  it('adds partitions and changes topic configs through the tool; the controller and brokers pick them up', async () => {
    expect((await topics(cluster, '--create', '--topic', 'grow', '--partitions', '2', '--replication-factor', '2')).code).toBe(0);
    await cluster.waitForLeaders('grow', 2);
    const altered = await topics(cluster, '--alter', '--topic', 'grow', '--partitions', '4');
    expect(altered.stdout).toContain('Adding partitions succeeded!');
    await cluster.waitForLeaders('grow', 4);
    const config = await topics(cluster, '--alter', '--topic', 'grow', '--config', 'retention.ms=3600000', '--config', 'segment.bytes=1048576');
    expect(config.stdout).toContain('Updated config for topic grow.');
    const described = await topics(cluster, '--describe', '--topic', 'grow');
    expect(described.stdout.split('\n')[0]).toMatch(/^Topic: grow\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 4\tReplicationFactor: 2\tConfigs: retention.ms=3600000,segment.bytes=1048576$/);
    const leader = (await cluster.partitionState('grow', 0))?.leader as number;
    await waitUntil(() => /Processing override for entityPath: topics\/grow/.test(cluster.broker(leader).readLog()), { message: 'the leader to apply the config change' });
    const shrink = await topics(cluster, '--alter', '--topic', 'grow', '--partitions', '1');
    expect(shrink.code).toBe(1);
    expect(shrink.stdout).toContain('The number of partitions for a topic can only be increased. Topic grow currently has 4 partitions, 1 would not be an increase.');
  });

  it('deletes a topic: StopReplica with delete, data renamed for deletion, znodes removed', async () => {
    expect((await topics(cluster, '--create', '--topic', 'doomed', '--partitions', '3', '--replication-factor', '1')).code).toBe(0);
    const leaders = await cluster.waitForLeaders('doomed', 3);
    const deleted = await topics(cluster, '--delete', '--topic', 'doomed');
    expect(deleted.stdout).toBe('Topic doomed is marked for deletion.\nNote: This will have no impact if delete.topic.enable is not set to true.');
    // As Kafka, the controller removes the topic, then its config, then the deletion request.
    const gone = async (p: string): Promise<boolean> => (await cluster.zk.exists(`${cluster.chroot}${p}`)) === null;
    await waitUntil(async () => (await gone('/brokers/topics/doomed')) && (await gone('/config/topics/doomed')) && (await gone('/admin/delete_topics/doomed')), {
      timeoutMs: 30000,
      message: 'the topic, its config and its deletion request to go',
    });
    const dir = cluster.broker(leaders[0] as number).logDirs[0] as string;
    expect(fs.readdirSync(dir).filter((d) => d.startsWith('doomed-0'))).toEqual([expect.stringMatching(/^doomed-0\.[0-9a-f]{32}-delete$/)]);
    const controller = (await cluster.controllerId()) as number;
    expect(cluster.broker(controller).readLog('controller.log')).toMatch(/Deletion of topic doomed successfully completed/);
    expect((await topics(cluster, '--list')).stdout.split('\n')).not.toContain('doomed');
  });

  it('answers NOT_LEADER_OR_FOLLOWER from a non-leader and UNKNOWN_TOPIC_OR_PARTITION for unknown topics', async () => {
    expect((await topics(cluster, '--create', '--topic', 'lead', '--partitions', '1', '--replication-factor', '1')).code).toBe(0);
    const [leader] = await cluster.waitForLeaders('lead', 1);
    const other = [0, 1, 2].find((b) => b !== leader) as number;
    const conn = await connect(other);
    await waitUntil(async () => {
      const md = await conn.send(MetadataApi, { topics: [{ name: 'lead' }], allowAutoTopicCreation: false });
      return md.topics[0]?.partitions[0]?.leaderId === leader;
    }, { message: 'the metadata to reach the other broker' });
    const produce = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'lead', partitionData: [{ index: 0, records: batch(['x']) }] }] });
    expect(produce.responses[0]?.partitionResponses[0]?.errorCode).toBe(6);
    const fetch = await conn.send(FetchApi, {
      replicaId: -1, maxWaitMs: 0, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
      topics: [{ topic: 'lead', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
      forgottenTopicsData: [], rackId: '',
    });
    expect(fetch.responses[0]?.partitionResponses[0]?.errorCode).toBe(6);
    const unknown = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'nowhere', partitionData: [{ index: 0, records: batch(['x']) }] }] });
    expect(unknown.responses[0]?.partitionResponses[0]?.errorCode).toBe(3);
    // auto.create.topics.enable (the default): the produce created the topic, and a retry succeeds.
    await cluster.waitForLeaders('nowhere', 1);
    await waitUntil(async () => {
      const md = await conn.send(MetadataApi, { topics: [{ name: 'nowhere' }], allowAutoTopicCreation: false });
      const leader = md.topics[0]?.partitions[0]?.leaderId ?? -1;
      if (leader < 0) return false;
      const retry = await (await connect(leader)).send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'nowhere', partitionData: [{ index: 0, records: batch(['x']) }] }] });
      return retry.responses[0]?.partitionResponses[0]?.errorCode === 0;
    }, { message: 'a retried produce to the auto-created topic to succeed' });
  });

  it('auto-creates a topic on Metadata (LEADER_NOT_AVAILABLE first) with num.partitions', async () => {
    const conn = await connect(0);
    const first = await conn.send(MetadataApi, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: true });
    expect(first.topics[0]?.errorCode).toBe(5);
    await waitUntil(async () => {
      const md = await conn.send(MetadataApi, { topics: [{ name: 'auto-made' }], allowAutoTopicCreation: true });
      return md.topics[0]?.errorCode === 0 && md.topics[0].partitions.every((p) => p.leaderId >= 0);
    }, { message: 'the auto-created topic to get a leader' });
    const noCreate = await conn.send(MetadataApi, { topics: [{ name: 'not-made' }], allowAutoTopicCreation: false });
    expect(noCreate.topics[0]?.errorCode).toBe(3);
  });

  it('ignores a LeaderAndIsr from an older controller epoch with Kafka\'s warning', async () => {
    const conn = await connect(1);
    const epoch = await cluster.controllerEpoch();
    const response = await conn.send(
      LeaderAndIsrApi,
      {
        controllerId: 2,
        controllerEpoch: epoch - 1,
        brokerEpoch: -1,
        ungroupedPartitionStates: [],
        topicStates: [{ topicName: 'lead', partitionStates: [{ topicName: 'lead', partitionIndex: 0, controllerEpoch: epoch - 1, leader: 1, leaderEpoch: 99, isr: [1], zkVersion: 0, replicas: [1], addingReplicas: [], removingReplicas: [], isNew: false }] }],
        liveLeaders: [],
      },
      { version: 2 },
    );
    expect(response.errorCode).toBe(11);
    expect(cluster.broker(1).readLog('state-change.log')).toMatch(new RegExp(`Ignoring LeaderAndIsr request from controller 2 with correlation id \\d+ since its controller epoch ${epoch - 1} is old\\. Latest known controller epoch is ${epoch}`));
  });

  it('elects a new controller with a higher epoch when the controller broker is killed', async () => {
    const before = await cluster.controllerId();
    const epoch = await cluster.controllerEpoch();
    await cluster.broker(before as number).child.stop({ signal: 'SIGKILL' });
    const after = await waitUntil(async () => {
      const id = await cluster.controllerId();
      return id !== undefined && id !== before ? id : undefined;
    }, { timeoutMs: 20000, message: 'a new controller' });
    // /controller and /controller_epoch are two writes (the binding has no multi): the epoch follows shortly.
    await waitUntil(async () => (await cluster.controllerEpoch()) === epoch + 1, { timeoutMs: 10000, message: () => `controller epoch ${epoch + 1}` });
    const elected = new RegExp(`${after} successfully elected as the controller\\. Epoch incremented to ${epoch + 1}`);
    await waitUntil(() => elected.test(cluster.broker(after).readLog('controller.log')), { timeoutMs: 10000, message: 'the election line in controller.log' });
    expect((await topics(cluster, '--create', '--topic', 'after-failover', '--partitions', '2', '--replication-factor', '2')).code).toBe(0);
    const leaders = await cluster.waitForLeaders('after-failover', 2);
    for (const l of leaders) expect(l).not.toBe(before);
    await cluster.startBroker(before as number);
  });
});
