import fs from 'node:fs';
import path from 'node:path';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { Producer } from '../../../src/client/producer';
import { NetworkClient } from '../../../src/client/network-client';
import { ElectLeadersApi } from '../../../src/protocol/apis/elect-leaders';

/** Bytes of a partition's segment files on a broker's disk (what Log.size sums). */
function sizeOnDisk(cluster: TestCluster, broker: number, tp: string): number {
  const dir = path.join(cluster.broker(broker).logDirs[0] as string, tp);
  return fs.readdirSync(dir).filter((f) => f.endsWith('.log')).reduce((sum, f) => sum + fs.statSync(path.join(dir, f)).size, 0);
}

describe('kafka-log-dirs and kafka-leader-election (DescribeLogDirs, ElectLeaders) on 3 brokers', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'auto.leader.rebalance.enable': 'false', 'replica.lag.time.max.ms': '2000', 'unclean.leader.election.enable': 'false' } });
  }, 120000);
  afterAll(async () => cluster?.close());

  it('describes every broker\'s log dir with the sizes of what was produced', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'sized', '--partitions', '2', '--replication-factor', '3'])).code).toBe(0);
    await cluster.waitForLeaders('sized', 2);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1 });
    await Promise.all(Array.from({ length: 200 }, (_, i) => producer.send('sized', Buffer.from(`k${i}`), Buffer.from(`value-${i}`))));
    await producer.close();
    for (const tp of ['sized-0', 'sized-1']) {
      await waitUntil(() => new Set([0, 1, 2].map((b) => sizeOnDisk(cluster, b, tp))).size === 1, { timeoutMs: 20000, message: `${tp} replicated everywhere` });
    }
    const r = await runTool('kafka-log-dirs', ['--bootstrap-server', cluster.bootstrap, '--describe', '--topic-list', 'sized']);
    expect(r.code).toBe(0);
    const [query, received, json] = r.output.trim().split('\n');
    expect(query).toBe('Querying brokers for log directories information');
    expect(received).toBe('Received log directory information from brokers 0,1,2');
    const parsed = JSON.parse(json ?? '') as { version: number; brokers: { broker: number; logDirs: { logDir: string; error: string | null; partitions: { partition: string; size: number; offsetLag: number; isFuture: boolean }[] }[] }[] };
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed)).toEqual(['version', 'brokers']);
    expect(parsed.brokers.map((b) => b.broker)).toEqual([0, 1, 2]);
    for (const b of parsed.brokers) {
      expect(b.logDirs).toHaveLength(1);
      const dir = b.logDirs[0];
      expect(Object.keys(dir ?? {})).toEqual(['logDir', 'error', 'partitions']);
      expect(dir?.logDir).toBe(path.resolve(cluster.broker(b.broker).logDirs[0] as string));
      expect(dir?.error).toBeNull();
      expect(dir?.partitions.map((p) => p.partition).sort()).toEqual(['sized-0', 'sized-1']);
      for (const p of dir?.partitions ?? []) {
        expect(p).toEqual({ partition: p.partition, size: sizeOnDisk(cluster, b.broker, p.partition), offsetLag: 0, isFuture: false });
        expect(p.size).toBeGreaterThan(0);
      }
    }
    const missing = await runTool('kafka-log-dirs', ['--bootstrap-server', cluster.bootstrap, '--describe', '--broker-list', '0,7']);
    expect(missing.output.trim()).toBe('ERROR: The given brokers do not exist from --broker-list: 7. Current existent brokers: 0,1,2');
  });

  it('restores the preferred leaders with --election-type preferred, and reports what needed no election or does not exist', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'pref', '--replica-assignment', '1:2,1:2'])).code).toBe(0);
    await cluster.waitForLeaders('pref', 2);
    await cluster.broker(1).child.stop({ signal: 'SIGTERM', graceMs: 30000 });
    for (const p of [0, 1]) expect((await cluster.partitionState('pref', p))?.leader).toBe(2);
    await cluster.startBroker(1);
    await cluster.waitForBrokerInMetadata(1);
    // The first test's topic lost broker 1's leaderships too (when it was their preferred leader): it must be back
    // in those ISRs as well, or the election of all partitions would report them as not electable.
    for (const [topic, p] of [['pref', 0], ['pref', 1], ['sized', 0], ['sized', 1]] as const) {
      await waitUntil(async () => (await cluster.partitionState(topic, p))?.isr.includes(1), { timeoutMs: 30000, message: `broker 1 back in the ISR of ${topic}-${p}` });
    }

    const r = await runTool('kafka-leader-election', ['--bootstrap-server', cluster.bootstrap, '--election-type', 'preferred', '--all-topic-partitions']);
    expect(r.code).toBe(0);
    // pref-0 and pref-1, and any partition of the first test's topic that broker 1 led before its restart.
    const elected = /^Successfully completed leader election \(PREFERRED\) for partitions (.*)$/.exec(r.output)?.[1]?.split(', ') ?? [];
    expect(elected.filter((tp) => tp.startsWith('pref-')).sort()).toEqual(['pref-0', 'pref-1']);
    expect(elected.every((tp) => /^(pref|sized)-[01]$/.test(tp))).toBe(true);
    for (const p of [0, 1]) expect((await cluster.partitionState('pref', p))?.leader).toBe(1);
    const controller = (await cluster.controllerId()) as number;
    const started = /Starting replica leader election \(PREFERRED\) for partitions (\S+) triggered by AdminClientTriggered/.exec(cluster.broker(controller).readLog('controller.log'))?.[1]?.split(',') ?? [];
    expect(started.filter((tp) => tp.startsWith('pref-')).sort()).toEqual(['pref-0', 'pref-1']);

    const again = await runTool('kafka-leader-election', ['--bootstrap-server', cluster.bootstrap, '--election-type', 'PREFERRED', '--topic', 'pref', '--partition', '0']);
    expect(again).toEqual({ code: 0, output: 'Valid replica already elected for partitions pref-0' });

    const unknown = await runTool('kafka-leader-election', ['--bootstrap-server', cluster.bootstrap, '--election-type', 'preferred', '--topic', 'pref', '--partition', '9']);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('Error completing leader election (PREFERRED) for partition: pref-9: org.apache.kafka.common.errors.UnknownTopicOrPartitionException: The partition does not exist.\n');
    expect(unknown.output).toContain('Exception in thread "main" kafka.common.AdminCommandFailedException: 1 replica(s) could not be elected');
  });

  it('answers NOT_CONTROLLER off the controller and INVALID_REQUEST for a partition named twice (raw ElectLeaders)', async () => {
    const controller = (await cluster.waitForController()) as number;
    const other = [0, 1, 2].find((b) => b !== controller) as number;
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      await client.refreshMetadata();
      const offController = await client.request(other, ElectLeadersApi, { electionType: 0, topicPartitions: [{ topic: 'pref', partitions: [0] }], timeoutMs: 5000 });
      expect(offController).toEqual({ throttleTimeMs: 0, errorCode: 0, replicaElectionResults: [{ topic: 'pref', partitionResult: [{ partitionId: 0, errorCode: 41, errorMessage: null }] }] });
      const twice = await client.request(controller, ElectLeadersApi, { electionType: 0, topicPartitions: [{ topic: 'pref', partitions: [1, 1] }], timeoutMs: 5000 });
      expect(twice.replicaElectionResults[0]?.partitionResult[0]).toMatchObject({ partitionId: 1, errorCode: 42 });
    } finally {
      client.close();
    }
  });

  it('elects an out-of-sync replica with --election-type unclean although unclean.leader.election.enable=false', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'dirty', '--replica-assignment', '2:0'])).code).toBe(0);
    await cluster.waitForLeaders('dirty', 1);
    await cluster.broker(0).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => JSON.stringify((await cluster.partitionState('dirty', 0))?.isr) === '[2]', { timeoutMs: 20000, message: 'the ISR to shrink to broker 2' });
    await cluster.broker(2).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await cluster.partitionState('dirty', 0))?.leader === -1, { timeoutMs: 30000, message: 'dirty-0 to go offline' });
    await cluster.startBroker(0);
    await cluster.waitForBrokerInMetadata(0);
    expect((await cluster.partitionState('dirty', 0))?.leader).toBe(-1);

    const preferred = await runTool('kafka-leader-election', ['--bootstrap-server', cluster.bootstrap, '--election-type', 'preferred', '--topic', 'dirty', '--partition', '0']);
    expect(preferred.code).toBe(1);
    expect(preferred.output).toContain(
      'Error completing leader election (PREFERRED) for partition: dirty-0: org.apache.kafka.common.errors.PreferredLeaderNotAvailableException: Failed to elect leader for partition dirty-0 under strategy PreferredReplicaPartitionLeaderElectionStrategy\n',
    );

    const r = await runTool('kafka-leader-election', ['--bootstrap-server', cluster.bootstrap, '--election-type', 'unclean', '--topic', 'dirty', '--partition', '0']);
    expect(r).toEqual({ code: 0, output: 'Successfully completed leader election (UNCLEAN) for partitions dirty-0' });
    expect(await cluster.partitionState('dirty', 0)).toMatchObject({ leader: 0, isr: [0] });
    const controller = (await cluster.controllerId()) as number;
    expect(cluster.broker(controller).readLog('state-change.log')).toMatch(/Changed partition dirty-0 from OfflinePartition to OnlinePartition with state LeaderAndIsr\(leader=0, leaderEpoch=\d+, isr=List\(0\)/);
    await cluster.startBroker(2);
    await cluster.waitForBrokerInMetadata(2);
  });
});
