import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { CreatePartitionsApi } from '../../../src/protocol/apis/create-partitions';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { ErrorCode } from '../../../src/common/error-codes';
import { ZookeeperConsumer } from '../../../src/rebalance/zookeeper-consumer';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

/**
 * ZooKeeper data is input: junk written where Kafka keeps its JSON must be logged with its path and handled as
 * Kafka handles it (skipped, deleted, ignored), and the cluster must go on working. After each piece of junk a
 * new topic is created, produced to and consumed with kafkajs, and every broker is checked alive.
 */
describe('junk in ZooKeeper on a 3-broker cluster', () => {
  let cluster: TestCluster;
  let round = 0;
  const JUNK = Buffer.from('{"this is": not json at all');

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'offsets.topic.num.partitions': '3', 'offsets.topic.replication.factor': '3' } });
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  const p = (path: string): string => `${cluster.chroot}${path}`;
  const kafka = (): Kafka => new Kafka({ clientId: 'zk-input', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 8, initialRetryTime: 200 } });
  const allLogs = (file = 'server.log'): string => [...cluster.brokers.values()].map((b) => b.readLog(file)).join('\n');

  /** Writes `data` at `path` (relative to the cluster's chroot): setData if it exists, create (persistent) if not. */
  async function write(path: string, data: Buffer | string): Promise<void> {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    if ((await cluster.zk.exists(p(path))) !== null) await cluster.zk.setData(p(path), buf);
    else await cluster.zk.createRecursive(p(path), buf);
  }

  /** Starts a killed broker again once its old session's registration is gone, and waits until all know it. */
  async function restart(id: number): Promise<void> {
    await waitUntil(async () => (await cluster.zk.exists(p(`/brokers/ids/${id}`))) === null, { timeoutMs: 30000, message: `broker ${id}'s old registration to expire` });
    await cluster.startBroker(id);
    await cluster.waitForBrokerInMetadata(id);
  }

  async function brokersAlive(): Promise<void> {
    for (const b of cluster.brokers.values()) {
      expect(b.child.isRunning()).toBe(true);
      const conn = new BrokerConnection({ host: '127.0.0.1', port: b.port });
      try {
        await conn.connect();
        const md = await conn.send(MetadataApi, { topics: [], allowAutoTopicCreation: false }, { version: 1 });
        expect(md.brokers.map((x) => x.nodeId).sort()).toEqual([0, 1, 2]);
        expect(md.controllerId).toBeGreaterThanOrEqual(0);
      } finally {
        conn.close();
      }
    }
  }

  /** A new topic (RF 3) is created, produced to and consumed back by a group; returns its name. */
  async function roundTrip(): Promise<string> {
    const topic = `after-junk-${++round}`;
    const client = kafka();
    const admin = client.admin();
    await admin.connect();
    try {
      // A generous timeout: the controller may have just changed, and a loaded machine elects leaders slowly. A
      // per-topic NOT_CONTROLLER (the brokers' metadata still names a controller that is resigning) is retried, as
      // Kafka's AdminClient does; kafkajs gives up on it.
      const created = await waitUntil(async () => {
        try {
          return await admin.createTopics({ topics: [{ topic, numPartitions: 2, replicationFactor: 3 }], waitForLeaders: true, timeout: 30000 });
        } catch (e) {
          const errors = (e as { errors?: { type?: string }[] }).errors;
          if (Array.isArray(errors) && errors.length > 0 && errors.every((x) => x.type === 'NOT_CONTROLLER')) return undefined;
          throw e;
        }
      }, { timeoutMs: 30000, message: `topic ${topic} created through the current controller` });
      expect(created).toBe(true);
    } finally {
      await admin.disconnect();
    }
    await cluster.waitForLeaders(topic, 2);
    const producer = client.producer();
    await producer.connect();
    await producer.send({ topic, acks: -1, messages: [{ key: 'a', value: 'one' }, { key: 'b', value: 'two' }, { key: 'c', value: 'three' }] });
    await producer.disconnect();
    const consumer = client.consumer({ groupId: `g-${topic}`, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed only ${seen.join(',')}`)), 45000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(message.value?.toString() ?? '');
            if (seen.length === 3) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    expect(seen.sort()).toEqual(['one', 'three', 'two']);
    await brokersAlive();
    return topic;
  }

  it('a junk broker registration is skipped with its path logged; the other brokers are handled', async () => {
    await write('/brokers/ids/99', JUNK);
    await write('/brokers/ids/not-a-number', '{"version":5}');
    await waitUntil(() => /Ignoring broker 99: failed to parse ZooKeeper registration at \/brokers\/ids\/99/.test(allLogs()), { message: 'the junk registration to be logged' });
    await waitUntil(() => /Ignoring \/brokers\/ids\/not-a-number: not a broker id/.test(allLogs()), { message: 'the non-id child to be logged' });
    const topic = await roundTrip();
    // The junk "broker" got no replicas.
    const assignment = JSON.parse((await cluster.zk.getData(p(`/brokers/topics/${topic}`)))?.data?.toString() ?? '{}') as { partitions: Record<string, number[]> };
    expect(new Set(Object.values(assignment.partitions).flat())).toEqual(new Set([0, 1, 2]));
    await cluster.zk.delete(p('/brokers/ids/99'));
    await cluster.zk.delete(p('/brokers/ids/not-a-number'));
  });

  it('junk in /controller does not wedge election: it is removed and a controller elected; killing the controller elects another', async () => {
    const epoch = await cluster.controllerEpoch();
    await write('/controller', JUNK);
    const elected = await waitUntil(async () => ((await cluster.controllerEpoch()) > epoch ? cluster.controllerId() : undefined), { timeoutMs: 30000, message: 'a controller after junk in /controller' });
    expect([0, 1, 2]).toContain(elected);
    await waitUntil(() => /Deleting \/controller with unreadable data/.test(allLogs()), { message: 'the junk /controller to be deleted with a log line' });
    await cluster.waitForControllerInMetadata((await cluster.waitForController()) as number);
    await roundTrip();

    // Junk again, and the controller dies at once: its session ends, the others still elect one of themselves.
    const victim = (await cluster.waitForController()) as number;
    const epoch2 = await cluster.controllerEpoch();
    await write('/controller', JUNK);
    await cluster.broker(victim).child.stop({ signal: 'SIGKILL' });
    const next = await waitUntil(async () => {
      const id = await cluster.controllerId().catch(() => undefined);
      return id !== undefined && id !== victim && (await cluster.controllerEpoch()) > epoch2 ? id : undefined;
    }, { timeoutMs: 30000, message: 'another broker to become controller' });
    expect(next).not.toBe(victim);
    await restart(victim);
    await cluster.waitForControllerInMetadata(next);
    await roundTrip();
  });

  it('junk in /controller_epoch: the next controller takes its zkVersion as the epoch and is elected', async () => {
    const controller = await cluster.waitForController();
    const before = await cluster.zk.exists(p('/controller_epoch'));
    await write('/controller_epoch', 'junk-epoch');
    await cluster.broker(controller).child.stop({ signal: 'SIGKILL' });
    const epoch = await waitUntil(async () => {
      const id = await cluster.controllerId().catch(() => undefined);
      const text = (await cluster.zk.getData(p('/controller_epoch')))?.data?.toString() ?? '';
      return id !== undefined && id !== controller && /^\d+$/.test(text) ? Number(text) : undefined;
    }, { timeoutMs: 30000, message: 'a controller elected over a junk /controller_epoch' });
    expect(epoch).toBe((before?.version ?? 0) + 2);
    await waitUntil(() => /Unreadable \/controller_epoch .*taking its zkVersion/.test(allLogs()), { message: 'the junk epoch to be logged' });
    await restart(controller);
    await roundTrip();
  });

  it('junk in /admin/reassign_partitions and /admin/preferred_replica_election is deleted with a log line', async () => {
    await write('/admin/reassign_partitions', JUNK);
    await waitUntil(async () => (await cluster.zk.exists(p('/admin/reassign_partitions'))) === null, { message: 'the junk reassignment to be deleted' });
    expect(allLogs('controller.log')).toMatch(/Ignoring partition reassignment due to invalid json: .*Deleting zk path \/admin\/reassign_partitions/);
    await write('/admin/reassign_partitions', '{"version":1,"partitions":[{"topic":"after-junk-1","partition":0,"replicas":[1,1]}]}');
    await waitUntil(async () => (await cluster.zk.exists(p('/admin/reassign_partitions'))) === null, { message: 'the invalid reassignment to be removed' });
    expect(allLogs('controller.log')).toMatch(/Failed reassignment through zk with the following errors: HashMap\(after-junk-1-0 -> ApiError\(error=INVALID_REPLICA_ASSIGNMENT, message=Duplicate replica ids in partition reassignment replica list/);
    await write('/admin/preferred_replica_election', JUNK);
    await waitUntil(async () => (await cluster.zk.exists(p('/admin/preferred_replica_election'))) === null, { message: 'the junk preferred election to be deleted' });
    expect(allLogs()).toMatch(/invalid json at \/admin\/preferred_replica_election/);
    await write('/isr_change_notification/isr_change_9999999999', JUNK);
    await waitUntil(async () => (await cluster.zk.exists(p('/isr_change_notification/isr_change_9999999999'))) === null, { message: 'the junk ISR notification to be deleted' });
    await roundTrip();
  });

  it('a junk topic assignment is a topic without new partitions; illegal topic names in ZooKeeper are ignored or deleted', async () => {
    const victim = await roundTrip();
    await write(`/brokers/topics/${victim}`, JUNK);
    await waitUntil(() => new RegExp(`Ignoring the unreadable partition assignment of topic ${victim} at /brokers/topics/${victim}`).test(allLogs()), { message: 'the junk assignment to be logged' });
    // Its partitions keep working where they are; adding partitions answers that the topic does not exist (as Kafka).
    const producer = kafka().producer();
    await producer.connect();
    await producer.send({ topic: victim, acks: -1, messages: [{ value: 'still here' }] });
    await producer.disconnect();
    const controller = await cluster.waitForController();
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(controller).port });
    try {
      await conn.connect();
      const r = await conn.send(CreatePartitionsApi, { topics: [{ name: victim, count: 5, assignments: null }], timeoutMs: 5000, validateOnly: false }, { version: 1 });
      expect(r.results[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, errorMessage: `The topic '${victim}' does not exist.` });
    } finally {
      conn.close();
    }

    const long = 'x'.repeat(250);
    await write(`/brokers/topics/${long}`, '{"version":2,"partitions":{"0":[0,1,2]}}');
    await write('/brokers/topics/bad name', '{"version":2,"partitions":{"0":[0]}}');
    await waitUntil(() => /Ignoring \/brokers\/topics\/bad name: Topic name "bad name" is illegal/.test(allLogs()), { message: 'the illegal topic name to be logged' });
    await write('/admin/delete_topics/bad name', '');
    await waitUntil(async () => (await cluster.zk.exists(p('/admin/delete_topics/bad name'))) === null, { message: 'the deletion request of an illegal name to be deleted' });
    await roundTrip();
    for (const b of cluster.brokers.values()) {
      const conn2 = new BrokerConnection({ host: '127.0.0.1', port: b.port });
      try {
        await conn2.connect();
        const md = await conn2.send(MetadataApi, { topics: null, allowAutoTopicCreation: false }, { version: 1 });
        expect(md.topics.map((t) => t.name)).not.toContain('bad name');
        expect(md.topics.map((t) => t.name)).not.toContain(long);
      } finally {
        conn2.close();
      }
    }
    await cluster.zk.deleteRecursive(p(`/brokers/topics/${long}`));
    await cluster.zk.deleteRecursive(p('/brokers/topics/bad name'));
  });

  it('a junk partition state fails only that partition; the controller and the rest go on', async () => {
    const topic = await roundTrip();
    const state = await cluster.partitionState(topic, 0);
    await write(`/brokers/topics/${topic}/partitions/0/state`, JUNK);
    // The controller reads the state when the partition's leader fails.
    const leader = state?.leader as number;
    await cluster.broker(leader).child.stop({ signal: 'SIGKILL' });
    await waitUntil(() => new RegExp(`Ignoring unreadable partition state at /brokers/topics/${topic}/partitions/0/state`).test(allLogs()), { timeoutMs: 30000, message: 'the junk state to be logged' });
    await restart(leader);
    await roundTrip();
  });

  it('a junk topic config and junk change notifications are logged and skipped; later changes still apply', async () => {
    const topic = await roundTrip();
    await write(`/config/topics/${topic}`, JUNK);
    await cluster.zk.create(p('/config/changes/config_change_'), JUNK, 'PERSISTENT_SEQUENTIAL');
    await cluster.zk.create(p('/config/changes/config_change_'), Buffer.from('{"version":7,"entity_path":"topics/x"}'), 'PERSISTENT_SEQUENTIAL');
    await cluster.zk.create(p('/config/changes/config_change_'), Buffer.from(`{"version":2,"entity_path":"topics/${topic}"}`), 'PERSISTENT_SEQUENTIAL');
    await waitUntil(() => /error processing change notification \{"version":7,"entity_path":"topics\/x"\} from \/config\/changes\/config_change_\d+[\s\S]*unsupported version '7'/.test(allLogs()), { message: 'the junk notification to be logged' });
    await waitUntil(() => new RegExp(`Ignoring unreadable topic config at /config/topics/${topic}`).test(allLogs()), { message: 'the junk config to be logged' });
    // The listener still works: a valid change afterwards is applied by every broker.
    const other = await roundTrip();
    await write(`/config/topics/${other}`, '{"version":1,"config":{"retention.ms":"3600000"}}');
    await cluster.zk.create(p('/config/changes/config_change_'), Buffer.from(`{"version":2,"entity_path":"topics/${other}"}`), 'PERSISTENT_SEQUENTIAL');
    await waitUntil(() => [...cluster.brokers.values()].every((b) => new RegExp(`Processing override for entityPath: topics/${other} with config: HashMap\\(retention.ms -> 3600000\\)`).test(b.readLog())), {
      message: 'every broker to apply the later change',
    });
    await roundTrip();
  });

  it('a junk ZooKeeper-consumer registration leaves that member out; the others consume everything', async () => {
    const topic = await roundTrip();
    const group = `zk-junk-${topic}`;
    await write(`/consumers/${group}/ids/${group}_ghost`, JUNK);
    const consumer = new ZookeeperConsumer({ zkConnect: cluster.zkConnect, groupId: group, topics: [topic], autoOffsetReset: 'smallest', rebalanceBackoffMs: 200, rebalanceMaxRetries: 10 });
    try {
      await consumer.start();
      const seen: string[] = [];
      const deadline = Date.now() + 30000;
      while (seen.length < 3 && Date.now() < deadline) for (const r of await consumer.poll()) seen.push(r.value?.toString() ?? '');
      expect(seen.sort()).toEqual(['one', 'three', 'two']);
      expect(consumer.assignment.map((tp) => tp.partition).sort()).toEqual([0, 1]);
      expect(allLogs()).not.toMatch(/can't rebalance/);
    } finally {
      await consumer.close();
    }
    await brokersAlive();
  });

  it('a junk committed offset is no offset: the group starts from its reset policy', async () => {
    const topic = await roundTrip();
    const group = `junk-offsets-${topic}`;
    await write(`/consumers/${group}/offsets/${topic}/0`, 'forty-two');
    await write(`/consumers/${group}/offsets/${topic}/1`, JUNK);
    const consumer = kafka().consumer({ groupId: group, maxWaitTimeInMs: 100 });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    const seen: string[] = [];
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`consumed only ${seen.join(',')}`)), 45000);
        void consumer.run({
          eachMessage: async ({ message }) => {
            seen.push(message.value?.toString() ?? '');
            if (seen.length === 3) {
              clearTimeout(timer);
              resolve();
            }
          },
        });
      });
    } finally {
      await consumer.disconnect();
    }
    expect(seen).toHaveLength(3);
    expect(allLogs()).toMatch(new RegExp(`Ignoring unreadable committed offset at /consumers/${group}/offsets/${topic}/\\d`));
    await brokersAlive();
  });
});
