import { Kafka, logLevel } from 'kafkajs';
import { BIN } from '../../helpers/broker-process';
import { spawnChild, TestChild } from '../../helpers/child-processes';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';

const TOPIC = 'verified';
const MESSAGES = 200;

type Event = Record<string, unknown> & { name: string; timestamp: number };

function events(output: string): Event[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Event);
}

describe('kafka-verifiable-producer, kafka-verifiable-consumer and kafka-replica-verification on 3 brokers', () => {
  let cluster: TestCluster;
  let verifier: TestChild | undefined;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    const kafka = new Kafka({ clientId: 'verifiable-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
    await admin.disconnect();
    await cluster.waitForLeaders(TOPIC, 3);
  }, 120000);

  afterAll(async () => {
    await verifier?.stop();
    await cluster?.close();
  });

  it('every offset the producer got acked is consumed by the verifiable consumer', async () => {
    const produced = await runTool('kafka-verifiable-producer', ['--topic', TOPIC, '--bootstrap-server', cluster.bootstrap, '--max-messages', String(MESSAGES), '--acks', '-1', '--repeating-keys', '7']);
    expect(produced.code).toBe(0);
    const pe = events(produced.output);
    expect(pe[0]?.name).toBe('startup_complete');
    expect(pe.slice(-2).map((e) => e.name)).toEqual(['shutdown_complete', 'tool_data']);
    const acked = pe.filter((e) => e.name === 'producer_send_success');
    expect(acked).toHaveLength(MESSAGES);
    expect(Object.keys(acked[0] as Event)).toEqual(['timestamp', 'name', 'key', 'value', 'topic', 'partition', 'offset']);
    expect(new Set(acked.map((e) => e.value))).toEqual(new Set(Array.from({ length: MESSAGES }, (_, i) => String(i))));
    const summary = pe[pe.length - 1] as Event;
    expect(Object.keys(summary)).toEqual(['timestamp', 'name', 'sent', 'acked', 'target_throughput', 'avg_throughput']);
    expect(summary).toMatchObject({ sent: MESSAGES, acked: MESSAGES, target_throughput: -1 });

    const consumed = await runTool('kafka-verifiable-consumer', ['--topic', TOPIC, '--group-id', 'verifiers', '--bootstrap-server', cluster.bootstrap, '--max-messages', String(MESSAGES), '--verbose', '--session-timeout', '10000']);
    expect(consumed.code).toBe(0);
    const ce = events(consumed.output);
    expect(ce[0]?.name).toBe('startup_complete');
    expect(ce[1]).toMatchObject({ name: 'partitions_revoked', partitions: [] });
    const assigned = ce.find((e) => e.name === 'partitions_assigned') as unknown as { partitions: { topic: string; partition: number }[] };
    expect(assigned.partitions.map((p) => p.partition).sort()).toEqual([0, 1, 2]);
    expect(ce[ce.length - 1]?.name).toBe('shutdown_complete');
    const seen = new Set(ce.filter((e) => e.name === 'record_data').map((e) => `${e['partition']}:${e['offset']}`));
    for (const a of acked) expect(seen.has(`${a['partition']}:${a['offset']}`)).toBe(true);
    const batches = ce.filter((e) => e.name === 'records_consumed') as unknown as { count: number; partitions: { count: number; minOffset: number; maxOffset: number }[] }[];
    expect(batches.reduce((n, b) => n + b.partitions.reduce((m, p) => m + p.count, 0), 0)).toBe(MESSAGES);
    for (const p of batches.flatMap((b) => b.partitions)) expect(p.maxOffset - p.minOffset + 1).toBe(p.count);
    const commits = ce.filter((e) => e.name === 'offsets_committed');
    expect(commits.length).toBe(batches.length);
    expect(commits.every((c) => c['success'] === true)).toBe(true);
  }, 120000);

  it('kafka-replica-verification reports max lag 0 on the RF 3 topic', async () => {
    verifier = spawnChild(BIN('kafka-replica-verification'), ['--broker-list', cluster.bootstrap, '--topic-white-list', TOPIC, '--time', '-2', '--report-interval-ms', '500', '--max-wait-ms', '200']);
    await verifier.waitForLine(/: verification process is started\.$/, { timeoutMs: 60000 });
    const [line] = await verifier.waitForLine(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}: max lag is \d+ for partition \S+ at offset \d+ among 3 partitions$/, { timeoutMs: 60000 });
    expect(line).toMatch(/: max lag is 0 for partition verified-[012] at offset \d+ among 3 partitions$/);
    const exit = await verifier.stop();
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    verifier = undefined;
  }, 120000);

  it('bad arguments are one line and exit 1', async () => {
    const r = await runTool('kafka-verifiable-producer', ['--topic', TOPIC, '--bootstrap-server', cluster.bootstrap, '--acks', '2']);
    expect(r.code).toBe(1);
    expect(r.output.trim()).toBe("verifiable-producer: error: argument --acks: invalid choice: '2' (choose from {0, 1, -1})");
    const c = await runTool('kafka-verifiable-consumer', ['--topic', TOPIC, '--bootstrap-server', cluster.bootstrap]);
    expect(c.code).toBe(1);
    expect(c.output.trim()).toBe('verifiable-consumer: error: argument --group-id is required');
  }, 60000);
});
