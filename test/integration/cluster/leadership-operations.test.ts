import { runTool } from '../../helpers/run-tool';
import fs from 'node:fs';
import path from 'node:path';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { Producer } from '../../../src/client/producer';
import { NetworkClient } from '../../../src/client/network-client';
import { PartitionConsumer } from '../../../src/client/partition-consumer';


async function consumeAll(bootstrap: string, topic: string, partition: number, expected: number): Promise<string[]> {
  const client = new NetworkClient({ bootstrapServers: bootstrap.split(',') });
  try {
    const consumer = new PartitionConsumer(client, { maxWaitMs: 100 });
    await consumer.assign([{ topic, partition }], 'earliest');
    const values: string[] = [];
    await waitUntil(async () => {
      for (const r of await consumer.poll()) values.push(r.value?.toString() ?? '');
      return values.length >= expected;
    }, { timeoutMs: 30000, message: `${expected} records from ${topic}-${partition}` });
    return values;
  } finally {
    client.close();
  }
}

describe('leadership operations on 3 brokers with replication', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({
      brokers: 3,
      props: { 'auto.leader.rebalance.enable': 'false', 'replica.lag.time.max.ms': '3000', 'controlled.shutdown.retry.backoff.ms': '500' },
    });
  }, 120000);
  afterAll(async () => cluster?.close());

  // Each scenario creates topics right after brokers came back: start from a cluster the controller has seen whole.
  beforeEach(async () => {
    for (const id of [0, 1, 2]) await cluster.waitForBrokerInMetadata(id);
  }, 60000);

  it('controlled shutdown moves leaderships away before the broker stops, with no failed send', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'moving', '--partitions', '6', '--replication-factor', '3'])).code).toBe(0);
    const leaders = await cluster.waitForLeaders('moving', 6);
    const victim = leaders[0] as number;
    const controllerBefore = (await cluster.controllerId()) as number;
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1, lingerMs: 1, retryBackoffMs: 50 });
    let sent = 0;
    const sends: Promise<unknown>[] = [];
    let stop = false;
    const loop = (async () => {
      while (!stop) {
        sends.push(producer.send('moving', Buffer.from(`k${sent % 12}`), Buffer.from(`m${sent}`)));
        sent++;
        if (sent % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    await waitUntil(() => sent > 2000, { message: 'some traffic before the shutdown' });
    const exit = await cluster.broker(victim).child.stop({ signal: 'SIGTERM', graceMs: 30000 });
    expect(exit.code).toBe(0);
    stop = true;
    await loop;
    const results = await Promise.allSettled(sends);
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    await producer.close();
    const log = cluster.broker(victim).readLog();
    expect(log).toMatch(/\[KafkaServer id=\d+\] Starting controlled shutdown/);
    expect(log).toMatch(/\[KafkaServer id=\d+\] Controlled shutdown succeeded/);
    // The controller that handled the request (possibly the victim itself) logged it.
    expect(cluster.broker(controllerBefore).readLog('controller.log')).toMatch(new RegExp(`Shutting down broker ${victim}`));
    for (let p = 0; p < 6; p++) expect((await cluster.partitionState('moving', p))?.leader).not.toBe(victim);
    await cluster.startBroker(victim);
    await cluster.waitForBrokerInMetadata(victim);
  });

  it('kafka-preferred-replica-election moves leadership back to the preferred replica', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'preferred', '--replica-assignment', '1:2'])).code).toBe(0);
    await cluster.waitForLeaders('preferred', 1);
    expect((await cluster.partitionState('preferred', 0))?.leader).toBe(1);
    await cluster.broker(1).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await cluster.partitionState('preferred', 0))?.leader === 2, { timeoutMs: 20000, message: 'broker 2 to take over' });
    await cluster.startBroker(1);
    await cluster.waitForBrokerInMetadata(1);
    await waitUntil(async () => (await cluster.partitionState('preferred', 0))?.isr.includes(1), { timeoutMs: 30000, message: 'broker 1 back in the ISR' });
    const r = await runTool('kafka-preferred-replica-election', ['--zookeeper', cluster.zkConnect]);
    expect(r.code).toBe(0);
    expect(r.output).toMatch(/Successfully started preferred replica election for partitions Set\(.*preferred-0.*\)/);
    await waitUntil(async () => (await cluster.partitionState('preferred', 0))?.leader === 1, { timeoutMs: 20000, message: 'the preferred replica to lead again' });
    const controller = (await cluster.controllerId()) as number;
    expect(cluster.broker(controller).readLog('controller.log')).toMatch(/Partition preferred-0 completed preferred replica leader election\. New leader is 1/);
  });

  it('reassigns a partition from brokers {0,1} to {1,2} with its data', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'moved', '--replica-assignment', '0:1'])).code).toBe(0);
    await cluster.waitForLeaders('moved', 1);
    const producer = new Producer({ bootstrapServers: cluster.bootstrap.split(','), acks: -1 });
    await Promise.all(Array.from({ length: 500 }, (_, i) => producer.send('moved', null, Buffer.from(`r${i}`))));
    await producer.close();
    const dir = tmpDir('reassign-');
    const topicsFile = path.join(dir, 'topics.json');
    fs.writeFileSync(topicsFile, JSON.stringify({ topics: [{ topic: 'moved' }], version: 1 }));
    const generated = await runTool('kafka-reassign-partitions', ['--zookeeper', cluster.zkConnect, '--generate', '--topics-to-move-json-file', topicsFile, '--broker-list', '1,2']);
    expect(generated.code).toBe(0);
    const [, current, , , proposed] = generated.output.split('\n');
    expect(JSON.parse(current ?? '')).toEqual({ version: 1, partitions: [{ topic: 'moved', partition: 0, replicas: [0, 1], log_dirs: ['any', 'any'] }] });
    const proposal = JSON.parse(proposed ?? '') as { partitions: { replicas: number[] }[] };
    expect([...(proposal.partitions[0]?.replicas ?? [])].sort()).toEqual([1, 2]);
    const plan = path.join(dir, 'plan.json');
    fs.writeFileSync(plan, JSON.stringify({ version: 1, partitions: [{ topic: 'moved', partition: 0, replicas: [1, 2] }] }));
    const executed = await runTool('kafka-reassign-partitions', ['--zookeeper', cluster.zkConnect, '--execute', '--reassignment-json-file', plan]);
    expect(executed.code).toBe(0);
    expect(executed.output).toContain('Successfully started reassignment of partitions.');
    await waitUntil(async () => (await runTool('kafka-reassign-partitions', ['--zookeeper', cluster.zkConnect, '--verify', '--reassignment-json-file', plan])).output.includes('Reassignment of partition moved-0 completed successfully'), {
      timeoutMs: 60000,
      intervalMs: 1000,
      message: 'the reassignment to complete',
    });
    const assignment = JSON.parse((await cluster.zk.getData(`${cluster.chroot}/brokers/topics/moved`))?.data?.toString() ?? '{}') as { partitions: Record<string, number[]> };
    expect(assignment.partitions['0']).toEqual([1, 2]);
    const values = await consumeAll(cluster.bootstrap, 'moved', 0, 500);
    expect(values).toEqual(Array.from({ length: 500 }, (_, i) => `r${i}`));
    await waitUntil(() => !fs.readdirSync(cluster.broker(0).logDirs[0] as string).includes('moved-0'), { timeoutMs: 20000, message: 'the old replica to be deleted from broker 0' });
  });

  it('takes a partition offline when all its replicas are down, elects no out-of-sync replica, and brings it back', async () => {
    expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'fragile', '--replica-assignment', '0:1'])).code).toBe(0);
    await cluster.waitForLeaders('fragile', 1);
    await cluster.broker(0).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await cluster.partitionState('fragile', 0))?.leader === 1, { timeoutMs: 20000, message: 'broker 1 to lead' });
    await cluster.broker(1).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => (await cluster.partitionState('fragile', 0))?.leader === -1, { timeoutMs: 20000, message: 'the partition to go offline' });
    expect((await cluster.partitionState('fragile', 0))?.isr).toEqual([1]);
    const unavailable = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--describe', '--topic', 'fragile', '--unavailable-partitions']);
    expect(unavailable.output).toBe('\tTopic: fragile\tPartition: 0\tLeader: none\tReplicas: 0,1\tIsr: 1');
    await cluster.startBroker(0);
    // Broker 0 is out of sync (not in the ISR): with unclean election disabled it must not lead.
    const controller = (await cluster.controllerId()) as number;
    await waitUntil(() => /New broker startup callback for 0/.test(cluster.broker(controller).readLog('controller.log')), { timeoutMs: 20000, message: 'the controller to see broker 0 back' });
    expect((await cluster.partitionState('fragile', 0))?.leader).toBe(-1);
    await cluster.startBroker(1);
    await waitUntil(async () => (await cluster.partitionState('fragile', 0))?.leader === 1, { timeoutMs: 20000, message: 'the in-sync replica to lead again' });
    expect(cluster.broker(controller).readLog('state-change.log')).toMatch(/Changed partition fragile-0 from OfflinePartition to OnlinePartition with state LeaderAndIsr\(leader=1/);
  });
});

