import { CONTROLLER_STATE_TIMERS } from '../../../src/metrics/controller-stats';
import { KafkaMetrics } from '../../../src/metrics/kafka-metrics';
import { parseExposition, sampleValue } from '../../helpers/prometheus-text';

describe('ControllerStats, LogFlushStats and ZooKeeper client metrics', () => {
  it('names the controller timers as Kafka 2.8\'s ControllerState does', () => {
    expect(CONTROLLER_STATE_TIMERS.get('BrokerChange')).toBe('LeaderElectionRateAndTimeMs');
    expect(CONTROLLER_STATE_TIMERS.get('AlterPartitionReassignment')).toBe('PartitionReassignmentRateAndTimeMs');
    expect(CONTROLLER_STATE_TIMERS.get('TopicChange')).toBe('TopicChangeRateAndTimeMs');
    expect(CONTROLLER_STATE_TIMERS.has('Idle')).toBe(false);
    expect(CONTROLLER_STATE_TIMERS.has('UpdateMetadataResponseReceived')).toBe(false);
    expect(CONTROLLER_STATE_TIMERS.size).toBe(16);
  });

  it('exports what the hooks recorded under the JMX exporter\'s names', async () => {
    const m = new KafkaMetrics();
    m.controllerStats.eventProcessed('BrokerChange', 12);
    m.controllerStats.eventProcessed('BrokerChange', 30);
    m.controllerStats.eventProcessed('Idle', 5);
    m.controllerStats.uncleanLeaderElections++;
    m.logFlush.update(3);
    m.zooKeeperClient.requestLatencyMs.update(2);
    m.zooKeeperClient.sessionEvent('SyncConnects');
    m.zooKeeperClient.sessionEvent('Disconnects');
    m.zooKeeperClient.sessionEvent('SyncConnects');
    const exp = parseExposition(await m.exposition());
    expect(sampleValue(exp, 'kafka_controller_controllerstats_leaderelectionrateandtimems_count')).toBe(2);
    expect(sampleValue(exp, 'kafka_controller_controllerstats_leaderelectionrateandtimems', { quantile: '0.999' })).toBe(30);
    // Every timer exists from the start, as Kafka registers them all.
    expect(sampleValue(exp, 'kafka_controller_controllerstats_updatefeaturesrateandtimems_count')).toBe(0);
    expect(sampleValue(exp, 'kafka_controller_controllerstats_uncleanleaderelections_total')).toBe(1);
    expect(sampleValue(exp, 'kafka_log_logflushstats_logflushrateandtimems_count')).toBe(1);
    expect(sampleValue(exp, 'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms', { quantile: '0.50' })).toBe(2);
    expect(sampleValue(exp, 'kafka_server_sessionexpirelistener_zookeepersyncconnects_total')).toBe(2);
    expect(sampleValue(exp, 'kafka_server_sessionexpirelistener_zookeeperdisconnects_total')).toBe(1);
    expect(sampleValue(exp, 'kafka_server_sessionexpirelistener_zookeeperexpires_total')).toBe(0);
    expect(exp.types.get('kafka_server_sessionexpirelistener_zookeeperexpires_total')).toBe('counter');
  });

  it('exports a named gauge from an asynchronous source at scrape time', async () => {
    const m = new KafkaMetrics();
    let reads = 0;
    m.namedGauge('kafka_consumergroup_lag', 'lag', ['consumergroup', 'topic', 'partition'], async () => {
      reads++;
      return [[{ consumergroup: 'g', topic: 't', partition: '0' }, 7]];
    });
    expect(reads).toBe(0);
    const exp = parseExposition(await m.exposition());
    expect(sampleValue(exp, 'kafka_consumergroup_lag', { consumergroup: 'g', topic: 't', partition: '0' })).toBe(7);
    expect(reads).toBe(1);
  });
});
