import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { freePorts } from '../../helpers/free-port';
import { startZkEnsemble, ZkEnsemble } from '../../helpers/zk-ensemble';
import { Exposition, parseExposition, sampleValue } from '../../helpers/prometheus-text';
import { topicsTool } from '../replication/replication-helpers';
import { runTool } from '../../helpers/run-tool';
import { BrokerConnection } from '../../../src/client/broker-connection';
import { ProduceApi } from '../../../src/protocol/apis/produce';
import { RecordBatchBuilder } from '../../../src/records';

const TOPIC = 'metrics-topic';

/** The names issue 17 asks for, as the JMX exporter's kafka-2_0_0.yml rules render Kafka 2.8's MBeans. */
const EXPECTED_NAMES = [
  'kafka_server_brokertopicmetrics_messagesin_total',
  'kafka_server_brokertopicmetrics_bytesin_total',
  'kafka_server_brokertopicmetrics_bytesout_total',
  'kafka_server_brokertopicmetrics_bytesrejected_total',
  'kafka_server_brokertopicmetrics_failedproducerequests_total',
  'kafka_server_brokertopicmetrics_failedfetchrequests_total',
  'kafka_server_brokertopicmetrics_totalproducerequests_total',
  'kafka_server_brokertopicmetrics_totalfetchrequests_total',
  'kafka_server_replicamanager_underreplicatedpartitions',
  'kafka_server_replicamanager_underminisrpartitioncount',
  'kafka_server_replicamanager_partitioncount',
  'kafka_server_replicamanager_leadercount',
  'kafka_server_replicamanager_offlinereplicacount',
  'kafka_server_replicamanager_isrshrinks_total',
  'kafka_server_replicamanager_isrexpands_total',
  'kafka_controller_kafkacontroller_activecontrollercount',
  'kafka_controller_kafkacontroller_offlinepartitionscount',
  'kafka_controller_kafkacontroller_preferredreplicaimbalancecount',
  'kafka_controller_kafkacontroller_globaltopiccount',
  'kafka_controller_kafkacontroller_globalpartitioncount',
  'kafka_network_requestmetrics_requests_total',
  'kafka_network_requestmetrics_errors_total',
  'kafka_network_requestmetrics_totaltimems',
  'kafka_network_requestmetrics_totaltimems_count',
  'kafka_network_requestmetrics_requestqueuetimems',
  'kafka_network_requestmetrics_localtimems',
  'kafka_network_requestmetrics_remotetimems',
  'kafka_network_requestmetrics_responsequeuetimems',
  'kafka_network_requestmetrics_responsesendtimems',
  'kafka_network_socketserver_networkprocessoravgidlepercent',
  'kafka_network_requestchannel_requestqueuesize',
  'kafka_network_requestchannel_responsequeuesize',
  'kafka_server_delayedoperationpurgatory_purgatorysize',
  'kafka_server_delayedoperationpurgatory_numdelayedoperations',
  'kafka_log_log_size',
  'kafka_log_log_numlogsegments',
  'kafka_log_log_logendoffset',
  'kafka_log_log_logstartoffset',
  'kafka_coordinator_group_groupmetadatamanager_numgroups',
  'kafka_coordinator_group_groupmetadatamanager_numoffsets',
  'kafka_controller_controllerstats_leaderelectionrateandtimems',
  'kafka_controller_controllerstats_leaderelectionrateandtimems_count',
  'kafka_controller_controllerstats_controllerchangerateandtimems_count',
  'kafka_controller_controllerstats_topicchangerateandtimems_count',
  'kafka_controller_controllerstats_partitionreassignmentrateandtimems_count',
  'kafka_controller_controllerstats_uncleanleaderelections_total',
  'kafka_log_logflushstats_logflushrateandtimems',
  'kafka_log_logflushstats_logflushrateandtimems_count',
  'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms',
  'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count',
  'kafka_server_sessionexpirelistener_zookeepersyncconnects_total',
  'kafka_server_sessionexpirelistener_zookeeperdisconnects_total',
  'kafka_server_sessionexpirelistener_zookeeperexpires_total',
  'process_cpu_seconds_total',
  'nodejs_eventloop_lag_seconds',
];

function batch(count: number, tag: string): Buffer {
  const b = new RecordBatchBuilder();
  for (let i = 0; i < count; i++) b.append({ value: Buffer.from(`${tag}-${i}`), timestamp: Date.now() });
  return b.build();
}

describe('Prometheus metrics endpoint (kafka.metrics.port)', () => {
  let ensemble: ZkEnsemble;
  let cluster: TestCluster;
  let metricsPorts: number[];
  let controller: number;
  let leader: number;
  let follower: number;
  const connections: BrokerConnection[] = [];

  async function scrape(brokerId: number): Promise<Exposition> {
    const res = await fetch(`http://127.0.0.1:${metricsPorts[brokerId] as number}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseExposition(await res.text());
  }

  async function value(brokerId: number, name: string, labels: Record<string, string> = {}): Promise<number> {
    return sampleValue(await scrape(brokerId), name, labels) ?? 0;
  }

  beforeAll(async () => {
    // A long ZooKeeper session keeps a stopped follower registered: the leader shrinks the ISR, not the controller.
    ensemble = await startZkEnsemble({ size: 3, tickTimeMs: 2000 });
    metricsPorts = await freePorts(3);
    cluster = await TestCluster.start({
      brokers: 3,
      ensemble,
      props: { 'replica.lag.time.max.ms': '3000', 'zookeeper.session.timeout.ms': '30000' },
      brokerProps: Object.fromEntries(metricsPorts.map((port, id) => [id, { 'kafka.metrics.port': String(port) }])),
    });
    controller = await cluster.waitForController();
    [leader, follower] = [0, 1, 2].filter((b) => b !== controller) as [number, number];
    const created = await topicsTool(cluster, '--create', '--topic', TOPIC, '--replica-assignment', `${leader}:${follower}:${controller}`);
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(TOPIC, 1);
  }, 120000);

  afterAll(async () => {
    for (const c of connections) c.close();
    for (const id of [0, 1, 2]) cluster?.brokers.get(id)?.child.signal('SIGCONT');
    await cluster?.close();
    await ensemble?.close();
  });

  it('serves a strictly valid exposition with the JMX exporter names on every broker', async () => {
    for (const id of [0, 1, 2]) {
      const exp = await scrape(id);
      const names = new Set(exp.samples.map((s) => s.name));
      expect(EXPECTED_NAMES.filter((n) => !names.has(n))).toEqual([]);
      expect(exp.types.get('kafka_server_brokertopicmetrics_messagesin_total')).toBe('counter');
      expect(exp.types.get('kafka_server_replicamanager_underreplicatedpartitions')).toBe('gauge');
      // Every sample belongs to a declared metric (a histogram's or summary's by its _bucket/_sum/_count suffix).
      const undeclared = exp.samples.filter((s) => {
        if (exp.types.has(s.name)) return false;
        const family = s.name.replace(/_(bucket|sum|count)$/, '');
        return !['histogram', 'summary'].includes(exp.types.get(family) ?? '');
      });
      expect(undeclared).toEqual([]);
    }
    // Only a broker that follows something has fetcher lag series: one per followed partition.
    await waitUntil(async () => sampleValue(await scrape(follower), 'kafka_server_fetcherlagmetrics_consumerlag', { topic: TOPIC, partition: '0' }) === 0, { timeoutMs: 10000, message: 'the follower to report its lag' });
    const onLeader = await scrape(leader);
    expect(sampleValue(onLeader, 'kafka_log_log_logendoffset', { topic: TOPIC, partition: '0' })).toBe(0);
    expect(sampleValue(onLeader, 'kafka_server_replicamanager_leadercount')).toBeGreaterThanOrEqual(1);
    const quantiles = onLeader.samples.filter((s) => s.name === 'kafka_network_requestmetrics_totaltimems' && s.labels['request'] === 'Metadata').map((s) => s.labels['quantile']);
    expect(quantiles).toEqual(['0.50', '0.75', '0.95', '0.98', '0.99', '0.999']);
  }, 30000);

  it('moves MessagesIn and BytesIn by exactly the produced records and batch bytes', async () => {
    const before = await scrape(leader);
    const counter = (exp: Exposition, name: string, labels: Record<string, string> = {}): number => sampleValue(exp, name, labels) ?? 0;
    const conn = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(leader).port, requestTimeoutMs: 20000 });
    connections.push(conn);
    await conn.connect();
    await conn.negotiate();
    const batches = [batch(5, 'a'), batch(7, 'b'), batch(11, 'c')];
    let version = -1;
    for (const records of batches) {
      const r = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }] });
      expect(r.responses[0]?.partitionResponses[0]?.errorCode).toBe(0);
      version = conn.versionFor(ProduceApi as never);
    }
    const bytes = batches.reduce((n, b) => n + b.length, 0);
    const after = await scrape(leader);
    for (const labels of [{ topic: TOPIC }, {}] as Record<string, string>[]) {
      expect(counter(after, 'kafka_server_brokertopicmetrics_messagesin_total', labels) - counter(before, 'kafka_server_brokertopicmetrics_messagesin_total', labels)).toBe(23);
      expect(counter(after, 'kafka_server_brokertopicmetrics_bytesin_total', labels) - counter(before, 'kafka_server_brokertopicmetrics_bytesin_total', labels)).toBe(bytes);
      expect(counter(after, 'kafka_server_brokertopicmetrics_totalproducerequests_total', labels) - counter(before, 'kafka_server_brokertopicmetrics_totalproducerequests_total', labels)).toBe(3);
    }
    const produceRequests = { request: 'Produce', version: String(version) };
    expect(counter(after, 'kafka_network_requestmetrics_requests_total', produceRequests) - counter(before, 'kafka_network_requestmetrics_requests_total', produceRequests)).toBe(3);
    expect(sampleValue(after, 'kafka_log_log_logendoffset', { topic: TOPIC, partition: '0' })).toBe(23);
    // The followers fetched the batches: replication bytes are not BytesOut, but the fetches are counted.
    await waitUntil(async () => (await value(leader, 'kafka_server_brokertopicmetrics_totalfetchrequests_total', { topic: TOPIC })) > 0, { timeoutMs: 10000, message: 'follower fetches to be counted' });
  }, 60000);

  it('times ZooKeeper requests and segment flushes (flush.messages=1)', async () => {
    // Every broker registered itself and read its topics through its ZooKeeper client, connected once.
    for (const id of [0, 1, 2]) {
      const exp = await scrape(id);
      expect(sampleValue(exp, 'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count')).toBeGreaterThan(0);
      expect(sampleValue(exp, 'kafka_server_sessionexpirelistener_zookeepersyncconnects_total')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(exp, 'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms', { quantile: '0.99' })).toBeGreaterThan(0);
    }
    const flushTopic = 'metrics-flush';
    const created = await topicsTool(cluster, '--create', '--topic', flushTopic, '--replica-assignment', String(leader), '--config', 'flush.messages=1');
    expect(created.code).toBe(0);
    await cluster.waitForLeaders(flushTopic, 1);
    const flushes = (exp: Exposition): number => sampleValue(exp, 'kafka_log_logflushstats_logflushrateandtimems_count') ?? 0;
    const before = flushes(await scrape(leader));
    const conn = connections[0] as BrokerConnection;
    for (const tag of ['f1', 'f2', 'f3']) {
      const r = await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: flushTopic, partitionData: [{ index: 0, records: batch(2, tag) }] }] });
      expect(r.responses[0]?.partitionResponses[0]?.errorCode).toBe(0);
    }
    // acks=1 answers after the append, and the flush it asks for may still be running: wait for the third.
    await waitUntil(async () => flushes(await scrape(leader)) >= before + 3, { timeoutMs: 10000, message: 'three segment flushes to be timed' });
  }, 60000);

  it('exports each group\'s consumer lag as the high watermark minus its committed offset', async () => {
    const group = 'metrics-lag-group';
    const reset = await runTool('kafka-consumer-groups', ['--bootstrap-server', cluster.bootstrap, '--group', group, '--topic', `${TOPIC}:0`, '--reset-offsets', '--to-offset', '10', '--execute']);
    expect(reset.code).toBe(0);
    const labels = { consumergroup: group, topic: TOPIC, partition: '0' };
    // Exactly one broker, the group's coordinator, exports the group; 23 records were produced above.
    const found = await waitUntil(
      async () => {
        const exps = await Promise.all([0, 1, 2].map((id) => scrape(id)));
        const having = exps.filter((e) => sampleValue(e, 'kafka_consumergroup_lag', labels) !== undefined);
        return having.length === 1 && sampleValue(having[0] as Exposition, 'kafka_consumergroup_lag', labels) === 23 - 10 ? (having[0] as Exposition) : undefined;
      },
      { timeoutMs: 15000, message: 'one broker to export the group\'s lag of 13' },
    );
    expect(sampleValue(found, 'kafka_consumergroup_current_offset', labels)).toBe(10);
    expect(sampleValue(found, 'kafka_coordinator_group_groupmetadatamanager_numoffsets')).toBeGreaterThanOrEqual(1);
  }, 60000);

  it('raises UnderReplicatedPartitions while a follower is stopped and lowers it after SIGCONT', async () => {
    expect(await value(leader, 'kafka_server_replicamanager_underreplicatedpartitions')).toBe(0);
    const shrinks = await value(leader, 'kafka_server_replicamanager_isrshrinks_total');
    cluster.broker(follower).child.signal('SIGSTOP');
    try {
      // A follower falls out of sync only when the leader has something it lacks.
      const conn = connections[0] as BrokerConnection;
      await conn.send(ProduceApi, { transactionalId: null, acks: 1, timeoutMs: 10000, topicData: [{ name: TOPIC, partitionData: [{ index: 0, records: batch(1, 'd') }] }] });
      await waitUntil(async () => (await value(leader, 'kafka_server_replicamanager_underreplicatedpartitions')) === 1, { timeoutMs: 20000, message: 'UnderReplicatedPartitions to reach 1' });
      expect(await value(leader, 'kafka_server_replicamanager_isrshrinks_total')).toBe(shrinks + 1);
    } finally {
      cluster.broker(follower).child.signal('SIGCONT');
    }
    await waitUntil(async () => (await value(leader, 'kafka_server_replicamanager_underreplicatedpartitions')) === 0, { timeoutMs: 30000, message: 'UnderReplicatedPartitions to fall back to 0' });
  }, 60000);

  it('has ActiveControllerCount sum to 1 across brokers, following a controller kill', async () => {
    const counts = async (ids: number[]): Promise<number[]> => Promise.all(ids.map((id) => value(id, 'kafka_controller_kafkacontroller_activecontrollercount')));
    const all = await counts([0, 1, 2]);
    expect(all.reduce((a, b) => a + b, 0)).toBe(1);
    expect(all[controller]).toBe(1);
    cluster.broker(controller).child.signal('SIGKILL');
    const rest = [0, 1, 2].filter((b) => b !== controller);
    const after = await waitUntil(
      async () => {
        const c = await counts(rest);
        return c.reduce((a, b) => a + b, 0) === 1 ? c : undefined;
      },
      { timeoutMs: 40000, message: 'another broker to report ActiveControllerCount 1' },
    );
    expect(rest[after.indexOf(1)]).toBe(await cluster.waitForController());
  }, 60000);

  it('times the controller\'s BrokerChange elections as LeaderElectionRateAndTimeMs', async () => {
    const active = await cluster.waitForController();
    const other = [0, 1, 2].find((b) => b !== active && b !== controller) as number;
    const elections = async (): Promise<number> => value(active, 'kafka_controller_controllerstats_leaderelectionrateandtimems_count');
    const before = await elections();
    expect(await value(active, 'kafka_controller_controllerstats_controllerchangerateandtimems_count')).toBeGreaterThanOrEqual(1);
    // A clean shutdown removes the broker's registration at once: the controller handles a BrokerChange.
    cluster.broker(other).child.signal('SIGTERM');
    await waitUntil(async () => (await elections()) > before, { timeoutMs: 30000, message: 'a BrokerChange to be timed' });
    expect(await value(active, 'kafka_controller_controllerstats_uncleanleaderelections_total')).toBe(0);
  }, 60000);
});
