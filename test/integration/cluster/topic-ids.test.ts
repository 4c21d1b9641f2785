import fs from 'node:fs';
import path from 'node:path';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { randomUuid, topicIdBytes, topicIdOf } from '../../../src/common/uuid';
import { CreateTopicsApi } from '../../../src/protocol/apis/create-topics';
import { DeleteTopicsApi } from '../../../src/protocol/apis/delete-topics';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { readJson } from '../../helpers/zk-inspect';

/** KIP-516 topic ids as Kafka 2.8 has them in ZooKeeper mode, on 3 brokers. */
describe('topic ids on 3 brokers', () => {
  let cluster: TestCluster;
  const connections: BrokerConnection[] = [];

  async function connect(brokerId: number): Promise<BrokerConnection> {
    const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(brokerId).port });
    connections.push(c);
    await c.connect();
    await c.negotiate();
    return c;
  }

  async function zkTopicId(topic: string): Promise<string | undefined> {
    const node = await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/${topic}`);
    return node?.['topic_id'] as string | undefined;
  }

  async function metadataTopicIds(topic: string): Promise<(string | undefined)[]> {
    return Promise.all(
      [0, 1, 2].map(async (b) => {
        const c = await connect(b);
        const md = await c.send(MetadataApi, { topics: [{ name: topic }], allowAutoTopicCreation: false }, { version: 11 });
        c.close();
        const t = md.topics[0];
        return t?.topicId === undefined ? undefined : topicIdOf(t.topicId);
      }),
    );
  }

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3 });
    await cluster.waitForMetadataReady();
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    await cluster?.close();
  });

  let id = '';

  it('CreateTopics v7 returns the id written into /brokers/topics/<t> (version 3), partition.metadata on every replica, Metadata v11 on every broker', async () => {
    const controller = await cluster.waitForController();
    const c = await connect(controller);
    expect(c.versionFor(CreateTopicsApi)).toBe(7);
    const r = await c.send(CreateTopicsApi, { topics: [{ name: 'ids', numPartitions: 2, replicationFactor: 3, assignments: [], configs: [] }], timeoutMs: 30000, validateOnly: false });
    const t = r.topics[0];
    expect(t).toMatchObject({ name: 'ids', errorCode: 0, numPartitions: 2, replicationFactor: 3 });
    id = topicIdOf(t?.topicId ?? Buffer.alloc(16)) ?? '';
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const node = await readJson(cluster.zk, `${cluster.chroot}/brokers/topics/ids`);
    expect(node).toMatchObject({ version: 3, topic_id: id });
    for (const b of [0, 1, 2]) {
      for (const p of [0, 1]) {
        const file = path.join(cluster.broker(b).logDirs[0] as string, `ids-${p}`, 'partition.metadata');
        await waitUntil(() => fs.existsSync(file), { timeoutMs: 30000 });
        expect(fs.readFileSync(file, 'utf8')).toBe(`version: 0\ntopic_id: ${id}`);
      }
    }
    await waitUntil(async () => (await metadataTopicIds('ids')).every((x) => x === id), { timeoutMs: 30000 });
  }, 90000);

  it('gives a kafka-topics --zookeeper topic an id (the controller), shows it in --describe, keeps it across CreatePartitions', async () => {
    const created = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'legacy', '--partitions', '1', '--replication-factor', '2']);
    expect(created.code).toBe(0);
    await waitUntil(async () => (await zkTopicId('legacy')) !== undefined, { timeoutMs: 30000 });
    const legacyId = (await zkTopicId('legacy')) as string;
    const described = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--describe', '--topic', 'legacy']);
    expect(described.output.split('\n')[0]).toBe(`Topic: legacy\tTopicId: ${legacyId}\tPartitionCount: 1\tReplicationFactor: 2\tConfigs: `);
    const altered = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--alter', '--topic', 'ids', '--partitions', '3']);
    expect(altered.code).toBe(0);
    await cluster.waitForLeaders('ids', 3);
    expect(await zkTopicId('ids')).toBe(id);
  }, 90000);

  it('keeps the ids across a controller failover', async () => {
    const old = await cluster.waitForController();
    await cluster.broker(old).child.stop({ signal: 'SIGTERM', graceMs: 30000 });
    await waitUntil(async () => {
      const now = await cluster.controllerId();
      return now !== undefined && now !== old;
    }, { timeoutMs: 60000 });
    await cluster.startBroker(old);
    await cluster.waitForBrokerInMetadata(old);
    expect(await zkTopicId('ids')).toBe(id);
    await waitUntil(async () => (await metadataTopicIds('ids')).every((x) => x === id), { timeoutMs: 30000 });
  }, 120000);

  it('DeleteTopics v6 deletes by id and answers UNKNOWN_TOPIC_ID for an id no topic has', async () => {
    const legacyId = (await zkTopicId('legacy')) as string;
    const c = await connect(await cluster.waitForController());
    expect(c.versionFor(DeleteTopicsApi)).toBe(6);
    const unknown = randomUuid();
    const r = await c.send(DeleteTopicsApi, { topicNames: [], topics: [{ name: null, topicId: topicIdBytes(legacyId) }, { name: null, topicId: topicIdBytes(unknown) }], timeoutMs: 30000 });
    expect(r.responses.map((x) => ({ name: x.name, id: topicIdOf(x.topicId ?? Buffer.alloc(16)), errorCode: x.errorCode }))).toEqual([
      { name: 'legacy', id: legacyId, errorCode: 0 },
      { name: null, id: unknown, errorCode: 100 },
    ]);
  }, 90000);
});
