import { jmxExporterName, quantileLabel, requestMetricName, KAFKA_PERCENTILES } from '../../../src/metrics/jmx-name';
import { Reservoir } from '../../../src/metrics/reservoir';
import { KafkaMetrics } from '../../../src/metrics/kafka-metrics';
import { parseExposition, sampleValue } from '../../helpers/prometheus-text';
import { KafkaConfig } from '../../../src/common/config/kafka-config';

describe('jmxExporterName (kafka-2_0_0.yml, lowercaseOutputName)', () => {
  it.each([
    [{ domain: 'server', type: 'BrokerTopicMetrics', name: 'MessagesInPerSec', tags: ['topic'] }, 'Count', 'kafka_server_brokertopicmetrics_messagesin_total'],
    [{ domain: 'server', type: 'BrokerTopicMetrics', name: 'BytesInPerSec' }, 'Count', 'kafka_server_brokertopicmetrics_bytesin_total'],
    [{ domain: 'network', type: 'RequestMetrics', name: 'RequestsPerSec', tags: ['request', 'version'] }, 'Count', 'kafka_network_requestmetrics_requests_total'],
    [{ domain: 'server', type: 'ReplicaManager', name: 'UnderReplicatedPartitions' }, 'Value', 'kafka_server_replicamanager_underreplicatedpartitions'],
    [{ domain: 'controller', type: 'KafkaController', name: 'ActiveControllerCount' }, 'Value', 'kafka_controller_kafkacontroller_activecontrollercount'],
    [{ domain: 'network', type: 'RequestMetrics', name: 'TotalTimeMs', tags: ['request'] }, 'Percentile', 'kafka_network_requestmetrics_totaltimems'],
    [{ domain: 'network', type: 'RequestMetrics', name: 'TotalTimeMs', tags: ['request'] }, 'Count', 'kafka_network_requestmetrics_totaltimems_count'],
    [{ domain: 'controller', type: 'ControllerStats', name: 'LeaderElectionRateAndTimeMs' }, 'Count', 'kafka_controller_controllerstats_leaderelectionrateandtimems_count'],
    [{ domain: 'log', type: 'Log', name: 'Size', tags: ['topic', 'partition'] }, 'Value', 'kafka_log_log_size'],
    [{ domain: 'coordinator.group', type: 'GroupMetadataManager', name: 'NumGroups' }, 'Value', 'kafka_coordinator_group_groupmetadatamanager_numgroups'],
  ] as const)('%o %s -> %s', (bean, attribute, expected) => {
    expect(jmxExporterName(bean, attribute)).toBe(expected);
  });

  it('renders percentiles as the rules\' quantile label', () => {
    expect(KAFKA_PERCENTILES.map((p) => quantileLabel(p.attribute))).toEqual(['0.50', '0.75', '0.95', '0.98', '0.99', '0.999']);
  });

  it('names requests as Kafka\'s ApiKeys do', () => {
    expect(requestMetricName('PRODUCE')).toBe('Produce');
    expect(requestMetricName('API_VERSIONS')).toBe('ApiVersions');
    expect(requestMetricName('OFFSET_FOR_LEADER_EPOCH')).toBe('OffsetForLeaderEpoch');
  });
});

describe('Reservoir', () => {
  it('keeps the latest samples and interpolates like Yammer snapshots', () => {
    const r = new Reservoir(4);
    for (const v of [100, 1, 2, 3, 4]) r.update(v);
    expect(r.count).toBe(5);
    // 100 fell out of the ring: the samples are 1..4; position q*(n+1).
    expect(r.quantiles([0.5, 0.999, 0.01])).toEqual([2.5, 4, 1]);
  });
});

describe('KafkaMetrics exposition', () => {
  it('renders per-topic and broker-wide BrokerTopicMetrics under one name, read at scrape time', async () => {
    const m = new KafkaMetrics();
    m.brokerTopicStats.recordAppend('t', 70, 3);
    m.brokerTopicStats.recordAppend('u', 30, 1);
    const exp = parseExposition(await m.exposition());
    expect(sampleValue(exp, 'kafka_server_brokertopicmetrics_messagesin_total', { topic: 't' })).toBe(3);
    expect(sampleValue(exp, 'kafka_server_brokertopicmetrics_messagesin_total')).toBe(4);
    expect(sampleValue(exp, 'kafka_server_brokertopicmetrics_bytesin_total')).toBe(100);
    expect(exp.types.get('kafka_server_brokertopicmetrics_bytesin_total')).toBe('counter');
    m.brokerTopicStats.recordAppend('t', 10, 2);
    expect(sampleValue(parseExposition(await m.exposition()), 'kafka_server_brokertopicmetrics_messagesin_total', { topic: 't' })).toBe(5);
  });

  it('renders request histograms as quantile gauges and a _count counter', async () => {
    const m = new KafkaMetrics();
    const produce = m.requests.forApi(0, 'Produce');
    m.requests.record(produce, 9, 'NONE', { receivedMs: 0, dequeuedMs: 1, localDoneMs: 3, completedMs: 7, sendStartMs: 8, sentMs: 10 });
    const exp = parseExposition(await m.exposition());
    expect(sampleValue(exp, 'kafka_network_requestmetrics_requests_total', { request: 'Produce', version: '9' })).toBe(1);
    expect(sampleValue(exp, 'kafka_network_requestmetrics_errors_total', { request: 'Produce', error: 'NONE' })).toBe(1);
    expect(sampleValue(exp, 'kafka_network_requestmetrics_totaltimems', { request: 'Produce', quantile: '0.99' })).toBe(10);
    expect(sampleValue(exp, 'kafka_network_requestmetrics_remotetimems', { request: 'Produce', quantile: '0.50' })).toBe(4);
    expect(sampleValue(exp, 'kafka_network_requestmetrics_totaltimems_count', { request: 'Produce' })).toBe(1);
  });
});

describe('kafka.metrics.port', () => {
  const base = { 'zookeeper.connect': 'localhost:2181' };
  it('defaults to 0 (off) and refuses what is not a port, as Kafka refuses bad values', () => {
    expect(KafkaConfig.fromProperties(new Map(Object.entries(base))).get('kafka.metrics.port')).toBe(0);
    expect(() => KafkaConfig.fromProperties(new Map(Object.entries({ ...base, 'kafka.metrics.port': 'abc' })))).toThrow('Invalid value abc for configuration kafka.metrics.port: Not a number of type INT');
    expect(() => KafkaConfig.fromProperties(new Map(Object.entries({ ...base, 'kafka.metrics.port': '70000' })))).toThrow(/Invalid value 70000 for configuration kafka.metrics.port/);
  });
});
