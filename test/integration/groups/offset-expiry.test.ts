import { existsSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ErrorCode } from '../../../src/common/error-codes';
import { FindCoordinatorApi } from '../../../src/protocol/apis/find-coordinator';
import { StopReplicaApi } from '../../../src/protocol/apis/stop-replica';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { runTool } from '../../helpers/run-tool';
import { createTopic, GROUP_TEST_PROPS } from './group-test-setup';

/*
 * Kafka 2.8's offsets housekeeping and the offsets topic's creation rule on 3 brokers: offsets.retention.minutes=1
 * with a 1 s check interval; offsets.topic.replication.factor=3, so that with one broker up FindCoordinator is
 * refused until the other two come up. Also StopReplica v3's leader-epoch fencing.
 */
describe('offset expiry, offsets topic creation gating, StopReplica v3', () => {
  let cluster: TestCluster;
  const connections: BrokerConnection[] = [];

  const connect = async (id: number): Promise<BrokerConnection> => {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(id).port });
    await c.connect();
    connections.push(c);
    return c;
  };

  beforeAll(async () => {
    cluster = await TestCluster.start({
      brokers: 1,
      props: { ...GROUP_TEST_PROPS, 'offsets.topic.replication.factor': '3', 'offsets.retention.minutes': '1', 'offsets.retention.check.interval.ms': '1000' },
    });
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    await cluster?.close();
  });

  it('answers FindCoordinator COORDINATOR_NOT_AVAILABLE and creates no __consumer_offsets until 3 brokers are alive', async () => {
    const conn = await connect(0);
    for (const version of [0, 3]) {
      const r = await conn.send(FindCoordinatorApi, { key: 'g-early', keyType: 0 }, { version });
      expect(r.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE.code);
    }
    await waitUntil(() => /larger than available brokers: 1\./.test(cluster.broker(0).readLog('server.log')), { timeoutMs: 10000, message: 'the refused creation logged' });
    expect(await cluster.zk.exists(`${cluster.chroot}/brokers/topics/__consumer_offsets`)).toBeNull();

    await Promise.all([cluster.startBroker(1), cluster.startBroker(2)]);
    await cluster.waitForBrokerInMetadata(1);
    await cluster.waitForBrokerInMetadata(2);
    let found = -1;
    await waitUntil(
      async () => {
        const r = await conn.send(FindCoordinatorApi, { key: 'g-early', keyType: 0 }, { version: 3 });
        found = r.errorCode === 0 ? r.nodeId : -1;
        return found >= 0;
      },
      { timeoutMs: 60000, intervalMs: 200, message: 'a coordinator once 3 brokers are up' },
    );
    const state = await cluster.partitionState('__consumer_offsets', 0);
    expect(state?.isr.length).toBe(3);
  }, 120000);

  it('expires the offsets of a group once it has been Empty for the retention, znodes and group gone; an active group keeps them', async () => {
    await createTopic(cluster, 'exp', 2, 3);
    const kafka = new Kafka({ clientId: 'expiry', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 } });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'exp', acks: -1, messages: Array.from({ length: 4 }, (_, i) => ({ value: `m${i}`, partition: i % 2 })) });
    await producer.disconnect();

    const consume = async (groupId: string): Promise<ReturnType<typeof kafka.consumer>> => {
      let seen = 0;
      const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 300, maxWaitTimeInMs: 100 });
      await consumer.connect();
      await consumer.subscribe({ topic: 'exp', fromBeginning: true });
      await consumer.run({ autoCommitInterval: 100, eachMessage: async () => void seen++ });
      await waitUntil(() => seen >= 4, { timeoutMs: 30000, message: `${groupId} to consume` });
      return consumer;
    };
    const offsetsOf = (group: string): Promise<string[] | null> => cluster.zk.getChildren(`${cluster.chroot}/consumers/${group}/offsets/exp`);

    const gone = await consume('g-gone');
    const active = await consume('g-active');
    try {
      await waitUntil(async () => (await offsetsOf('g-gone'))?.length === 2 && (await offsetsOf('g-active'))?.length === 2, { timeoutMs: 30000, message: 'both groups committed' });
      await gone.disconnect();
      const emptySince = Date.now();
      // While the retention runs: Kafka 2.8's OffsetsMessageFormatter reads the commits back from __consumer_offsets.
      const offsets = await runTool('kafka-console-consumer', [
        '--bootstrap-server', cluster.bootstrap, '--topic', '__consumer_offsets', '--from-beginning', '--timeout-ms', '3000',
        '--formatter', 'kafka.coordinator.group.GroupMetadataManager$OffsetsMessageFormatter',
      ]);
      expect(offsets.output).toMatch(/^\[g-active,exp,0\]::OffsetAndMetadata\(offset=\d+, leaderEpoch=Optional(\.empty|\[\d+\]), metadata=, commitTimestamp=\d+, expireTimestamp=None\)$/m);
      // Retention 1 minute from when the group became Empty; checked every second.
      await waitUntil(async () => (await cluster.zk.exists(`${cluster.chroot}/consumers/g-gone`)) === null, { timeoutMs: 90000, intervalMs: 500, message: 'g-gone removed' });
      expect(Date.now() - emptySince).toBeGreaterThanOrEqual(55000);
      expect((await offsetsOf('g-active'))?.sort()).toEqual(['0', '1']);
      const logs = [0, 1, 2].map((id) => cluster.broker(id).readLog('server.log')).join('\n');
      expect(logs).toMatch(/\[GroupMetadataManager brokerId=\d\] Removed 2 expired offsets in \d+ milliseconds\. \(kafka\.coordinator\.group\.GroupMetadataManager\)/);
      expect(logs).toMatch(/Group g-gone transitioned to Dead in generation \d+/);
    } finally {
      await active.disconnect();
    }
  }, 150000);

  it('ignores a StopReplica v3 whose leader epoch is not newer than the partition\'s (FENCED_LEADER_EPOCH), and keeps the replica', async () => {
    await createTopic(cluster, 'fenced', 1, 3);
    const state = (await cluster.partitionState('fenced', 0))!;
    const follower = [0, 1, 2].find((id) => id !== state.leader)!;
    const conn = await connect(follower);
    const controllerEpoch = await cluster.controllerEpoch();
    // The same epoch (a new topic's 0) is stale for 2.8 (only a newer one stops); an older one too, if there is one (-1 would be NoEpoch).
    for (const leaderEpoch of state.leader_epoch > 0 ? [state.leader_epoch, state.leader_epoch - 1] : [state.leader_epoch]) {
      const r = await conn.send(
        StopReplicaApi,
        {
          controllerId: (await cluster.controllerId())!,
          controllerEpoch,
          brokerEpoch: -1,
          deletePartitions: false,
          ungroupedPartitions: [],
          topics: [],
          topicStates: [{ topicName: 'fenced', partitionStates: [{ partitionIndex: 0, leaderEpoch, deletePartition: true }] }],
        },
        { version: 3 },
      );
      expect(r).toEqual({ errorCode: 0, partitionErrors: [{ topicName: 'fenced', partitionIndex: 0, errorCode: ErrorCode.FENCED_LEADER_EPOCH.code }] });
    }
    const stateChange = cluster.broker(follower).readLog('state-change.log');
    expect(stateChange).toMatch(/Ignoring StopReplica request \(delete=true\) from controller \d+ with correlation id \d+ epoch \d+ for partition fenced-0 since its associated leader epoch \d+ matches the current leader epoch/);
    // The replica is still there and in sync.
    expect(cluster.broker(follower).logDirs.some((d) => existsSync(`${d}/fenced-0`))).toBe(true);
    expect((await cluster.partitionState('fenced', 0))?.isr.sort()).toEqual([0, 1, 2]);
  }, 60000);
});
