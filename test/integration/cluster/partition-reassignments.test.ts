import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { NetworkClient } from '../../../src/client/network-client';
import { AlterPartitionReassignmentsApi } from '../../../src/protocol/apis/alter-partition-reassignments';
import { ListPartitionReassignmentsApi } from '../../../src/protocol/apis/list-partition-reassignments';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';
import { readJson } from '../../helpers/zk-inspect';

function planFile(partitions: { topic: string; partition: number; replicas: number[] }[]): string {
  const file = path.join(tmpDir('reassign-'), 'plan.json');
  fs.writeFileSync(file, JSON.stringify({ version: 1, partitions }));
  return file;
}

describe('AlterPartitionReassignments, ListPartitionReassignments and kafka-reassign-partitions --bootstrap-server on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;

  /** /brokers/topics/<topic> as the controller wrote it. */
  const topicNode = async (topic: string): Promise<{ partitions: Record<string, number[]>; adding_replicas?: Record<string, number[]>; removing_replicas?: Record<string, number[]> }> =>
    (await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/${topic}`)) as never;

  const tool = (args: string[]): ReturnType<typeof runTool> => runTool('kafka-reassign-partitions', ['--bootstrap-server', cluster.bootstrap, ...args]);

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    kafka = new Kafka({ clientId: 'reassign-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    for (const [topic, assignment] of [['moved', '0:1,1:0'], ['stuck', '0:1']] as const) {
      expect((await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--replica-assignment', assignment])).code).toBe(0);
    }
    await cluster.waitForLeaders('moved', 2);
    await cluster.waitForLeaders('stuck', 1);
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'moved', acks: -1, messages: Array.from({ length: 20 }, (_, i) => ({ partition: i % 2, value: `m${i}` })) });
    await producer.disconnect();
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  it('moves a partition onto a new broker through kafkajs alterPartitionReassignments', async () => {
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.alterPartitionReassignments({ topics: [{ topic: 'moved', partitionAssignment: [{ partition: 0, replicas: [2, 1] }] }] });
      await waitUntil(async () => JSON.stringify((await topicNode('moved')).partitions['0']) === '[2,1]', { timeoutMs: 30000, message: 'moved-0 assigned to 2,1' });
      const node = await topicNode('moved');
      expect(node.adding_replicas ?? {}).toEqual({});
      expect(node.removing_replicas ?? {}).toEqual({});
      await waitUntil(async () => (await admin.listPartitionReassignments({})).topics.length === 0, { message: 'no reassignment listed' });
      await waitUntil(async () => JSON.stringify((await cluster.partitionState('moved', 0))?.isr.sort()) === '[1,2]', { message: 'moved-0 ISR 1,2' });
    } finally {
      await admin.disconnect();
    }
  });

  it('moves a partition with the tool\'s --execute and sees it complete with --verify', async () => {
    const plan = planFile([{ topic: 'moved', partition: 1, replicas: [2, 0] }]);
    const executed = await tool(['--execute', '--reassignment-json-file', plan]);
    expect(executed.code).toBe(0);
    expect(executed.output).toContain(
      'Current partition replica assignment\n\n{"version":1,"partitions":[{"topic":"moved","partition":1,"replicas":[1,0],"log_dirs":["any","any"]}]}\n\nSave this to use as the --reassignment-json-file option during rollback\n',
    );
    expect(executed.output.trim().split('\n').pop()).toBe('Successfully started partition reassignment for moved-1');
    await waitUntil(async () => (await tool(['--verify', '--reassignment-json-file', plan])).output.includes('Reassignment of partition moved-1 is complete.'), { timeoutMs: 30000, message: '--verify to report completion' });
    const verified = await tool(['--verify', '--reassignment-json-file', plan]);
    expect(verified.output).toContain('Status of partition reassignment:\nReassignment of partition moved-1 is complete.\n\nClearing broker-level throttles on brokers 0,1,2\nClearing topic-level throttles on topic moved');
    expect((await topicNode('moved')).partitions['1']).toEqual([2, 0]);
    const generated = planFile([]);
    fs.writeFileSync(generated, JSON.stringify({ version: 1, topics: [{ topic: 'moved' }] }));
    const proposal = await tool(['--generate', '--topics-to-move-json-file', generated, '--broker-list', '0,1']);
    expect(proposal.code).toBe(0);
    expect(proposal.output).toMatch(/^Current partition replica assignment\n\{"version":1,"partitions":\[\{"topic":"moved","partition":0,"replicas":\[2,1\].*\n\nProposed partition reassignment configuration\n\{"version":1,"partitions":\[/);
  });

  it('refuses unknown brokers, duplicate replicas, a cancel with nothing in progress and a non-controller (raw API and tool)', async () => {
    const controller = (await cluster.waitForController()) as number;
    const other = [0, 1, 2].find((b) => b !== controller) as number;
    const client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
    try {
      await client.refreshMetadata();
      const answer = await client.request(controller, AlterPartitionReassignmentsApi, {
        timeoutMs: 5000,
        topics: [
          { name: 'stuck', partitions: [{ partitionIndex: 0, replicas: [0, 9] }] },
          { name: 'moved', partitions: [{ partitionIndex: 0, replicas: [2, 2] }, { partitionIndex: 1, replicas: null }] },
          { name: 'nope', partitions: [{ partitionIndex: 0, replicas: [0] }] },
        ],
      });
      expect(answer.errorCode).toBe(0);
      const byTp = new Map(answer.responses.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, p])));
      expect(byTp.get('stuck-0')).toEqual({ partitionIndex: 0, errorCode: 39, errorMessage: 'Replica assignment has brokers that are not alive. Replica list: ArrayBuffer(9), live broker list: Set(0, 1, 2)' });
      expect(byTp.get('moved-0')).toEqual({ partitionIndex: 0, errorCode: 39, errorMessage: 'Duplicate replica ids in partition reassignment replica list: ArrayBuffer(2, 2)' });
      expect(byTp.get('moved-1')).toEqual({ partitionIndex: 1, errorCode: 85, errorMessage: null });
      expect(byTp.get('nope-0')).toEqual({ partitionIndex: 0, errorCode: 3, errorMessage: 'The partition does not exist.' });
      const offController = await client.request(other, AlterPartitionReassignmentsApi, { timeoutMs: 5000, topics: [{ name: 'stuck', partitions: [{ partitionIndex: 0, replicas: [0, 2] }] }] });
      expect(offController).toEqual({ throttleTimeMs: 0, errorCode: 41, errorMessage: null, responses: [] });
      const listOff = await client.request(other, ListPartitionReassignmentsApi, { timeoutMs: 5000, topics: null });
      expect(listOff).toEqual({ throttleTimeMs: 0, errorCode: 41, errorMessage: null, topics: [] });
    } finally {
      client.close();
    }
    const unknown = await tool(['--execute', '--reassignment-json-file', planFile([{ topic: 'stuck', partition: 0, replicas: [0, 9] }])]);
    expect(unknown.code).toBe(1);
    expect(unknown.output).toContain('Error: Unknown broker id 9');
    const throttled = await tool(['--execute', '--reassignment-json-file', planFile([{ topic: 'stuck', partition: 0, replicas: [0, 2] }]), '--throttle', 'fast']);
    expect(throttled.code).toBe(1);
    expect(throttled.output.trim()).toBe("Exception in thread \"main\" joptsimple.OptionArgumentConversionException: Cannot parse argument 'fast' of option throttle");
    const nothing = await tool(['--cancel', '--reassignment-json-file', planFile([{ topic: 'stuck', partition: 0, replicas: [0, 2] }])]);
    expect(nothing.code).toBe(0);
    expect(nothing.output).toContain('None of the specified partition reassignments are active.\nNone of the specified partition moves are active.');
  });

  it('lists a reassignment held up by a dead target replica and cancels it back to the original replicas', async () => {
    await cluster.broker(1).child.stop({ signal: 'SIGKILL' });
    await waitUntil(async () => JSON.stringify((await cluster.partitionState('stuck', 0))?.isr) === '[0]', { timeoutMs: 20000, message: 'the ISR of stuck-0 to shrink to broker 0' });
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.alterPartitionReassignments({ topics: [{ topic: 'stuck', partitionAssignment: [{ partition: 0, replicas: [0, 1, 2] }] }] });
      const listed = await admin.listPartitionReassignments({});
      expect(listed.topics).toEqual([{ name: 'stuck', partitions: [{ partition: 0, replicas: [0, 1, 2], addingReplicas: [2], removingReplicas: [] }] }]);
    } finally {
      await admin.disconnect();
    }
    const node = await topicNode('stuck');
    expect(node.partitions['0']).toEqual([0, 1, 2]);
    expect(node.adding_replicas).toEqual({ '0': [2] });
    const list = await tool(['--list']);
    expect(list.output).toContain('Current partition reassignments:\nstuck-0: replicas: 0,1,2. adding: 2.');
    const plan = planFile([{ topic: 'stuck', partition: 0, replicas: [0, 1, 2] }]);
    const busy = await tool(['--execute', '--reassignment-json-file', planFile([{ topic: 'moved', partition: 0, replicas: [2, 0] }])]);
    expect(busy.code).toBe(1);
    expect(busy.output).toContain('Cannot execute because there is an existing partition assignment.  Use --additional to override this');
    expect((await tool(['--verify', '--reassignment-json-file', plan, '--preserve-throttles'])).output).toContain('Status of partition reassignment:\nReassignment of partition stuck-0 is still in progress.');
    // Clearing the throttles would alter the configs of broker 1, which is down (Kafka's tool fails on it too).
    const cancelled = await tool(['--cancel', '--reassignment-json-file', plan, '--preserve-throttles']);
    expect(cancelled.code).toBe(0);
    expect(cancelled.output).toContain('Successfully cancelled partition reassignment for: stuck-0\nNone of the specified partition moves are active.');
    const after = await topicNode('stuck');
    expect(after.partitions['0']).toEqual([0, 1]);
    expect(after.adding_replicas ?? {}).toEqual({});
    expect(after.removing_replicas ?? {}).toEqual({});
    expect((await tool(['--list'])).output).toContain('No partition reassignments found.');
  });
});
