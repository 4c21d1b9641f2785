import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { NetworkClient } from '../../../src/client/network-client';
import { ErrorCode } from '../../../src/common/error-codes';
import { DeleteRecordsApi } from '../../../src/protocol/apis/delete-records';
import { DescribeClusterApi } from '../../../src/protocol/apis/describe-cluster';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { waitUntil } from '../../helpers/wait-until';

const TOPIC = 'purge-me';

/**
 * Whether broker `id` moved its log start offset of TOPIC-0 to `offset`, as its server.log says (the
 * log-start-offset checkpoint would too, but only from 30 s after start-up): the leader for the client's request,
 * a follower from the leader's log start offset in a fetch response.
 */
function movedLogStartOffset(cluster: TestCluster, id: number, offset: number, asLeader: boolean): boolean {
  const reason = asLeader ? 'client delete records request' : 'leader offset increment';
  return cluster
    .broker(id)
    .readLog()
    .split('\n')
    .some((l) => l.includes(`[Log partition=${TOPIC}-0, dir=`) && l.includes(`Incremented log start offset to ${offset} due to ${reason}`));
}

async function earliestOffset(kafka: Kafka): Promise<string | undefined> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.fetchTopicOffsets(TOPIC)).find((o) => o.partition === 0)?.low;
  } finally {
    await admin.disconnect();
  }
}

async function expectLowWatermarkEverywhere(cluster: TestCluster, kafka: Kafka, leader: number, offset: number): Promise<void> {
  // ListOffsets earliest against the leader.
  expect(await earliestOffset(kafka)).toBe(String(offset));
  // DeleteRecords answered once every live replica had moved its log start offset there: it is in their logs.
  for (const id of [0, 1, 2]) {
    await waitUntil(() => movedLogStartOffset(cluster, id, offset, id === leader), { message: `broker ${id}'s log start offset ${offset} in its server.log` });
  }
}

function offsetFile(partitions: { topic: string; partition: number; offset: number }[]): string {
  const file = path.join(tmpDir('delete-records-'), 'offsets.json');
  fs.writeFileSync(file, JSON.stringify({ partitions, version: 1 }));
  return file;
}

describe('DeleteRecords, DescribeCluster and kafka-broker-api-versions on 3 brokers', () => {
  let cluster: TestCluster;
  let kafka: Kafka;
  let client: NetworkClient;
  let leader: number;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'log.flush.start.offset.checkpoint.interval.ms': '200' } });
    kafka = new Kafka({ clientId: 'delete-records-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 3 }], waitForLeaders: true });
    await admin.disconnect();
    [leader] = (await cluster.waitForLeaders(TOPIC, 1)) as [number];
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: TOPIC, acks: -1, messages: Array.from({ length: 10 }, (_, i) => ({ value: `m${i}` })) });
    await producer.disconnect();
    client = new NetworkClient({ bootstrapServers: cluster.bootstrap.split(',') });
  }, 120000);

  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it('kafkajs deleteTopicRecords moves the low watermark of the leader and of both followers', async () => {
    const admin = kafka.admin();
    await admin.connect();
    // kafkajs looks the leader up in metadata it must have loaded first.
    await admin.fetchTopicMetadata({ topics: [TOPIC] });
    await admin.deleteTopicRecords({ topic: TOPIC, partitions: [{ partition: 0, offset: '3' }] });
    await admin.disconnect();
    await expectLowWatermarkEverywhere(cluster, kafka, leader, 3);
  }, 60000);

  it('kafka-delete-records prints the new low watermark, which every replica reaches', async () => {
    const run = await runTool('kafka-delete-records', ['--bootstrap-server', cluster.bootstrap, '--offset-json-file', offsetFile([{ topic: TOPIC, partition: 0, offset: 6 }])]);
    expect(run.code).toBe(0);
    expect(run.output).toBe(`Executing records delete operation\nRecords delete operation completed:\npartition: ${TOPIC}-0\tlow_watermark: 6`);
    await expectLowWatermarkEverywhere(cluster, kafka, leader, 6);
  }, 60000);

  it('answers an offset above the high watermark, an unknown partition and a follower with Kafka\'s errors', async () => {
    await client.refreshMetadata([TOPIC]);
    const follower = [0, 1, 2].find((id) => id !== leader) as number;
    const ask = (node: number, partition: number, offset: number): Promise<{ partitionIndex: number; lowWatermark: number; errorCode: number }[]> =>
      client.request(node, DeleteRecordsApi, { topics: [{ name: TOPIC, partitions: [{ partitionIndex: partition, offset }] }], timeoutMs: 5000 }).then((r) => r.topics.flatMap((t) => t.partitions));
    expect(await ask(leader, 0, 11)).toEqual([{ partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE.code }]);
    expect(await ask(leader, 0, -5)).toEqual([{ partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.OFFSET_OUT_OF_RANGE.code }]);
    expect(await ask(leader, 7, 1)).toEqual([{ partitionIndex: 7, lowWatermark: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code }]);
    expect(await ask(follower, 0, 7)).toEqual([{ partitionIndex: 0, lowWatermark: -1, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER.code }]);

    const run = await runTool('kafka-delete-records', [
      '--bootstrap-server',
      cluster.bootstrap,
      '--offset-json-file',
      offsetFile([
        { topic: TOPIC, partition: 0, offset: 100 },
        { topic: TOPIC, partition: 7, offset: 1 },
      ]),
    ]);
    expect(run.code).toBe(0);
    expect(run.output).toBe(
      [
        'Executing records delete operation',
        'Records delete operation completed:',
        `partition: ${TOPIC}-0\terror: org.apache.kafka.common.errors.OffsetOutOfRangeException: The requested offset is not within the range of offsets maintained by the server.`,
        `partition: ${TOPIC}-7\terror: org.apache.kafka.common.errors.LeaderNotAvailableException: There is no leader for this topic-partition as we are in the middle of a leadership election.`,
      ].join('\n'),
    );
    // Nothing moved.
    expect(await earliestOffset(kafka)).toBe('6');
  }, 60000);

  it('refuses a bad offset file with Kafka\'s one-line message', async () => {
    const file = path.join(tmpDir('delete-records-'), 'bad.json');
    fs.writeFileSync(file, JSON.stringify({ partitions: [{ topic: TOPIC, partition: 0, offset: 1 }, { topic: TOPIC, partition: 0, offset: 2 }] }));
    const run = await runTool('kafka-delete-records', ['--bootstrap-server', cluster.bootstrap, '--offset-json-file', file]);
    expect(run.code).toBe(1);
    expect(run.output).toBe(`Offset json file contains duplicate topic partitions: ${TOPIC}-0`);
  });

  it('DescribeCluster names the cluster, its controller and its brokers', async () => {
    const controller = await cluster.controllerId();
    const plain = await client.request('any', DescribeClusterApi, { includeClusterAuthorizedOperations: false });
    expect(plain.errorCode).toBe(0);
    expect(plain.controllerId).toBe(controller);
    expect(plain.clusterId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(plain.brokers.map((b) => [b.brokerId, b.host, b.port, b.rack])).toEqual([0, 1, 2].map((id) => [id, '127.0.0.1', cluster.broker(id).port, null]));
    expect(plain.clusterAuthorizedOperations).toBe(-2147483648);
    const withOps = await client.request('any', DescribeClusterApi, { includeClusterAuthorizedOperations: true });
    // CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE.
    expect(withOps.clusterAuthorizedOperations).toBe(8096);
  });

  it('kafka-broker-api-versions prints every broker\'s table in Kafka\'s layout', async () => {
    const run = await runTool('kafka-broker-api-versions', ['--bootstrap-server', cluster.bootstrap]);
    expect(run.code).toBe(0);
    const blocks = run.output.split(/\n(?=127\.0\.0\.1:)/);
    expect(blocks).toHaveLength(3);
    for (const id of [0, 1, 2]) {
      const block = blocks.find((b) => b.startsWith(`127.0.0.1:${cluster.broker(id).port} (id: ${id} rack: null) -> (\n`)) as string;
      expect(block).toBeDefined();
      const lines = block.trimEnd().split('\n');
      expect(lines.at(-1)).toBe(')');
      // Kafka 2.8's 56 ZooKeeper-broker APIs, one per line.
      expect(lines.slice(1, -1)).toHaveLength(56);
      expect(lines[1]).toBe('\tProduce(0): 0 to 9 [usable: 9],');
      expect(lines).toContain('\tDeleteRecords(21): 0 to 2 [usable: 2],');
      expect(lines).toContain('\tAddPartitionsToTxn(24): 0 to 3 [usable: 3],');
      expect(lines).toContain('\tDescribeAcls(29): 0 to 2 [usable: 2],');
      expect(lines).toContain('\tDescribeCluster(60): 0 [usable: 0],');
      expect(lines.at(-2)).toBe('\tDescribeProducers(61): 0 [usable: 0]');
      // Advertised only by a broker with a SASL listener.
      expect(lines).toContain('\tSaslHandshake(17): UNSUPPORTED,');
    }
  });
});
