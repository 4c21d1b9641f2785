import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { brokerLogConfigDefaults, createLogConfig, DEFAULT_LOG_CONFIG } from '../../../src/common/config/log-config';

function broker(entries: Record<string, string> | Map<string, string>): KafkaConfig {
  const map = entries instanceof Map ? entries : new Map(Object.entries(entries));
  return KafkaConfig.fromProperties(new Map([['zookeeper.connect', 'zk:2181'], ...map]));
}

describe('LogConfig', () => {
  it("has Kafka's defaults", () => {
    const c = DEFAULT_LOG_CONFIG;
    expect(c.segmentBytes).toBe(1073741824);
    expect(c.segmentMs).toBe(604800000);
    expect(c.retentionMs).toBe(604800000);
    expect(c.retentionBytes).toBe(-1);
    expect(c.maxMessageBytes).toBe(1048588);
    expect(c.indexIntervalBytes).toBe(4096);
    expect(c.segmentIndexBytes).toBe(10485760);
    expect(c.fileDeleteDelayMs).toBe(60000);
    expect(c.deleteRetentionMs).toBe(86400000);
    expect(c.cleanupPolicy).toEqual(['delete']);
    expect(c.compressionType).toBe('producer');
    expect(c.messageTimestampType).toBe('CreateTime');
    expect(c.minInSyncReplicas).toBe(1);
    expect(c.uncleanLeaderElectionEnable).toBe(false);
    expect(c.flushMessages).toBe(Number.MAX_SAFE_INTEGER);
    expect(c.originals['flush.ms']).toBe('9223372036854775807');
  });

  it('maps broker settings with precedence ms > minutes > hours', () => {
    expect(brokerLogConfigDefaults(broker({ 'log.retention.hours': '1' }))['retention.ms']).toBe(3600000);
    expect(brokerLogConfigDefaults(broker({ 'log.retention.hours': '1', 'log.retention.minutes': '2' }))['retention.ms']).toBe(120000);
    expect(brokerLogConfigDefaults(broker({ 'log.retention.hours': '1', 'log.retention.ms': '5' }))['retention.ms']).toBe(5);
    expect(brokerLogConfigDefaults(broker({ 'log.retention.hours': '-1' }))['retention.ms']).toBe(-1);
    const defaults = brokerLogConfigDefaults(broker(new Map([['log.segment.bytes', '1048576'], ['log.roll.hours', '1'], ['message.max.bytes', '2000']])));
    const c = createLogConfig(defaults, { 'segment.bytes': '4096', 'cleanup.policy': 'compact,delete' });
    expect(c.segmentBytes).toBe(4096);
    expect(c.segmentMs).toBe(3600000);
    expect(c.maxMessageBytes).toBe(2000);
    expect(c.cleanupPolicy).toEqual(['compact', 'delete']);
    expect(c.overriddenKeys).toEqual(['segment.bytes', 'cleanup.policy']);
  });

  it('refuses bad values naming key, value and rule', () => {
    expect(() => createLogConfig({}, { 'segment.bytes': '10' })).toThrow('Invalid value 10 for configuration segment.bytes: Value must be at least 14');
    expect(() => createLogConfig({}, { 'retention.ms': 'forever' })).toThrow(/retention.ms.*LONG/);
    expect(() => createLogConfig({}, { 'cleanup.policy': 'keep' })).toThrow(/cleanup.policy/);
    expect(() => createLogConfig({}, { 'compression.type': 'brotli' })).toThrow(/compression.type/);
    expect(() => createLogConfig({}, { 'message.timestamp.type': 'Now' })).toThrow(/message.timestamp.type/);
    expect(() => createLogConfig({}, { 'min.cleanable.dirty.ratio': '1.5' })).toThrow(/min.cleanable.dirty.ratio/);
    expect(() => createLogConfig({}, { 'unclean.leader.election.enable': 'yes' })).toThrow(/unclean.leader.election.enable/);
  });
});
