import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { IncrementalAlterConfigsApi } from '../../../src/protocol/apis/incremental-alter-configs';
import { MetadataApi } from '../../../src/protocol/apis/metadata';
import { ErrorCode } from '../../../src/common/error-codes';
import { freePort } from '../../helpers/free-port';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, ZkEnsemble } from '../../helpers/zk-ensemble';
import { readJson } from '../../helpers/zk-inspect';

const BROKER = 4;
const SET = 0;
const DELETE = 1;

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Kafka 2.8's dynamic listeners (DynamicListenerConfig) on 3 brokers: a second PLAINTEXT listener added to
 * broker 1 with kafka-configs, live; a client bootstrapped on it produces and consumes; broker 0, given the
 * same listener, answers Metadata on it with broker 1's new endpoint (the controller's UpdateMetadata after
 * BrokerModifications); the registration znode has it; the invalid changes are refused with Kafka's messages;
 * removed again, the port refuses connections.
 */
describe('dynamic listeners (listeners, advertised.listeners, listener.security.protocol.map per broker)', () => {
  let ensemble: ZkEnsemble;
  let cluster: TestCluster;
  let extra1: number;
  let extra0: number;
  const TOPIC = 'on-extra';

  /** IncrementalAlterConfigs of one BROKER resource, sent to broker `id`: the resource's error code and message. */
  async function alter(id: number, resourceName: string, configs: { name: string; configOperation: number; value: string | null }[]): Promise<[number, string | null]> {
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(id).port });
    try {
      await conn.connect();
      const r = await conn.send(IncrementalAlterConfigsApi, { resources: [{ resourceType: BROKER, resourceName, configs }], validateOnly: false }, { version: 1 });
      const res = r.responses[0];
      return [res?.errorCode ?? -1, res?.errorMessage ?? null];
    } finally {
      conn.close();
    }
  }

  async function brokersOn(port: number): Promise<{ nodeId: number; port: number }[]> {
    const conn = new BrokerConnection({ host: '127.0.0.1', port });
    try {
      await conn.connect();
      const md = await conn.send(MetadataApi, { topics: [], allowAutoTopicCreation: false }, { version: 1 });
      return md.brokers.map((b) => ({ nodeId: b.nodeId, port: b.port })).sort((a, b) => a.nodeId - b.nodeId);
    } finally {
      conn.close();
    }
  }

  const registration = (id: number): Promise<Record<string, unknown> | null> => readJson(cluster.zk, `${cluster.chroot}/brokers/ids/${id}`);

  beforeAll(async () => {
    // One ZooKeeper server is enough here (the listeners are the subject, not ZooKeeper): a quicker start.
    ensemble = await startZkEnsemble({ size: 1 });
    cluster = await TestCluster.start({ brokers: 3, ensemble });
    extra1 = await freePort();
    extra0 = await freePort();
    const created = await runTool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', TOPIC, '--replica-assignment', '1']);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 1);
  });

  afterAll(async () => {
    await cluster?.close();
    await ensemble?.close();
  });

  it('adds a listener live: it accepts, it is registered, every broker learns it', async () => {
    const b1 = cluster.broker(1);
    const added = await runTool('kafka-configs', [
      '--bootstrap-server', `127.0.0.1:${b1.port}`, '--entity-type', 'brokers', '--entity-name', '1', '--alter', '--add-config',
      `listeners=[PLAINTEXT://127.0.0.1:${b1.port},EXTRA://127.0.0.1:${extra1}],listener.security.protocol.map=[PLAINTEXT:PLAINTEXT,EXTRA:PLAINTEXT]`,
    ]);
    expect(added.output).toContain("Completed updating config for broker 1.");
    expect(added.code).toBe(0);
    await waitUntil(() => accepts(extra1), { timeoutMs: 15000, message: 'broker 1 to accept on its new listener' });
    const node = await waitUntil(async () => {
      const n = await registration(1);
      return (n?.['endpoints'] as string[] | undefined)?.length === 2 ? n : undefined;
    }, { timeoutMs: 15000, message: 'the registration of broker 1 to list its new endpoint' });
    expect(node['endpoints']).toEqual([`PLAINTEXT://127.0.0.1:${b1.port}`, `EXTRA://127.0.0.1:${extra1}`]);
    expect(node['listener_security_protocol_map']).toEqual({ PLAINTEXT: 'PLAINTEXT', EXTRA: 'PLAINTEXT' });
    expect(node['version']).toBe(5);

    // Broker 0 takes the listener too; asked on it, it lists both brokers' EXTRA endpoints (UpdateMetadata).
    expect(await alter(0, '0', [
      { name: 'listeners', configOperation: SET, value: `PLAINTEXT://127.0.0.1:${cluster.broker(0).port},EXTRA://127.0.0.1:${extra0}` },
      { name: 'listener.security.protocol.map', configOperation: SET, value: 'PLAINTEXT:PLAINTEXT,EXTRA:PLAINTEXT' },
    ])).toEqual([0, null]);
    await waitUntil(() => accepts(extra0), { timeoutMs: 15000, message: 'broker 0 to accept on its new listener' });
    await waitUntil(async () => JSON.stringify(await brokersOn(extra0)) === JSON.stringify([{ nodeId: 0, port: extra0 }, { nodeId: 1, port: extra1 }]), {
      timeoutMs: 15000,
      message: "broker 0's Metadata on EXTRA to list brokers 0 and 1 with their EXTRA ports",
    });
    const controller = (await cluster.controllerId()) ?? -1;
    const controllerLog = fs.readFileSync(path.join(cluster.broker(controller).logDir, 'controller.log'), 'utf8');
    expect(controllerLog).toContain(`Updated broker metadata: 1 : (EndPoint(127.0.0.1,${b1.port},ListenerName(PLAINTEXT),PLAINTEXT)) : null : Features{} -> 1 : (EndPoint(127.0.0.1,${b1.port},ListenerName(PLAINTEXT),PLAINTEXT),EndPoint(127.0.0.1,${extra1},ListenerName(EXTRA),PLAINTEXT)) : null : Features{}`);
    expect(controllerLog).toContain('Broker info update callback for 1');
  });

  it('serves clients on the new listener: produce, then consume', async () => {
    const kafka = new Kafka({ clientId: 'dynamic-listener', brokers: [`127.0.0.1:${extra1}`], logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    try {
      await producer.send({ topic: TOPIC, acks: -1, messages: ['a', 'b', 'c'].map((value) => ({ value })) });
    } finally {
      await producer.disconnect();
    }
    const consumed = await runTool('kafka-console-consumer', ['--bootstrap-server', `127.0.0.1:${extra1}`, '--topic', TOPIC, '--partition', '0', '--offset', 'earliest', '--max-messages', '3', '--timeout-ms', '15000']);
    expect(consumed.output).toContain('a\nb\nc\n');
    expect(consumed.output).toContain('Processed a total of 3 messages');
  });

  it.each([
    ['at the cluster default', '', [{ name: 'listeners', configOperation: SET, value: 'PLAINTEXT://127.0.0.1:1' }], 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name=''): Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)"],
    ['the security protocol of an existing listener', '1', [{ name: 'listener.security.protocol.map', configOperation: SET, value: 'PLAINTEXT:PLAINTEXT,EXTRA:SSL' }], 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): Invalid dynamic configuration"],
    ['the inter-broker listener removed', '1', [{ name: 'listeners', configOperation: SET, value: 'EXTRA://127.0.0.1:1' }], 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are EXTRA"],
    ['key material without a listener prefix', '1', [{ name: 'ssl.keystore.location', configOperation: SET, value: '/k.jks' }], 'INVALID_REQUEST', "Invalid config value for resource ConfigResource(type=BROKER, name='1'): These security configs can be dynamically updated only per-listener using the listener prefix: Set(ssl.keystore.location)"],
    ['a listener key this broker does not apply', '1', [{ name: 'ssl.cipher.suites', configOperation: SET, value: 'x' }], 'INVALID_CONFIG', 'These dynamic broker configs are not supported by this broker: ssl.cipher.suites'],
  ])('refuses %s', async (_what, resourceName, configs, error, message) => {
    expect(await alter(1, resourceName, configs)).toEqual([ErrorCode[error as 'INVALID_REQUEST' | 'INVALID_CONFIG'].code, message]);
  });

  it('removes the listener live: the port refuses connections and the registration drops it', async () => {
    expect(await alter(1, '1', [{ name: 'listeners', configOperation: DELETE, value: null }, { name: 'listener.security.protocol.map', configOperation: DELETE, value: null }])).toEqual([0, null]);
    await waitUntil(async () => !(await accepts(extra1)), { timeoutMs: 15000, message: 'broker 1 to stop accepting on the removed listener' });
    await waitUntil(async () => ((await registration(1))?.['endpoints'] as string[] | undefined)?.length === 1, { timeoutMs: 15000, message: 'the registration of broker 1 to drop the endpoint' });
    await waitUntil(async () => JSON.stringify(await brokersOn(extra0)) === JSON.stringify([{ nodeId: 0, port: extra0 }]), { timeoutMs: 15000, message: "broker 0's Metadata on EXTRA to drop broker 1" });
  });
});
