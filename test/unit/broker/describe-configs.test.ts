import { brokerConfigEntries, topicConfigEntries } from '../../../src/broker/handlers/describe-configs';
import { DynamicBrokerConfig } from '../../../src/common/config/dynamic-broker-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { createLogConfig } from '../../../src/common/config/log-config';

/** Broker 1 with log.retention.hours=24 and log.segment.bytes=1048576 in server.properties. */
function broker(): DynamicBrokerConfig {
  return new DynamicBrokerConfig(
    KafkaConfig.fromProperties(new Map([['zookeeper.connect', 'zk:2181'], ['broker.id', '1'], ['log.retention.hours', '24'], ['log.segment.bytes', '1048576']])),
  );
}

describe('DescribeConfigs sources and synonyms (ZkAdminManager.createTopicConfigEntry / createBrokerConfigEntry)', () => {
  it('a topic key: override, then per-broker, dynamic default, static and default synonyms of its log.* key', () => {
    const d = broker();
    d.updateDefaultConfig(new Map([['log.segment.bytes', '2097152']]));
    d.updateBrokerConfig(new Map([['log.segment.bytes', '4194304']]));
    const overrides = new Map([['segment.bytes', '8388608']]);
    const entries = topicConfigEntries(createLogConfig(d.logDefaults, overrides), overrides, d, true);
    const segment = entries.find((e) => e.name === 'segment.bytes');
    expect(segment).toMatchObject({ value: '8388608', configSource: 1, isDefault: false, readOnly: false, isSensitive: false, configType: 3 });
    expect(segment?.synonyms).toEqual([
      { name: 'segment.bytes', value: '8388608', source: 1 },
      { name: 'log.segment.bytes', value: '4194304', source: 2 },
      { name: 'log.segment.bytes', value: '2097152', source: 3 },
      { name: 'log.segment.bytes', value: '1048576', source: 4 },
      { name: 'log.segment.bytes', value: '1073741824', source: 5 },
    ]);
    const cleanup = entries.find((e) => e.name === 'cleanup.policy');
    expect(cleanup).toMatchObject({ value: 'delete', configSource: 5, isDefault: true, configType: 7, synonyms: [{ name: 'log.cleanup.policy', value: 'delete', source: 5 }] });
  });

  it('the throttled-replica lists: topic keys without a broker synonym, empty by default', () => {
    const d = broker();
    const overrides = new Map([['leader.replication.throttled.replicas', '0:1,1:2']]);
    const entries = topicConfigEntries(createLogConfig(d.logDefaults, overrides), overrides, d, true);
    expect(entries.find((e) => e.name === 'leader.replication.throttled.replicas')).toMatchObject({ value: '0:1,1:2', configSource: 1, configType: 7, synonyms: [{ name: 'leader.replication.throttled.replicas', value: '0:1,1:2', source: 1 }] });
    expect(entries.find((e) => e.name === 'follower.replication.throttled.replicas')).toMatchObject({ value: '', configSource: 5, isDefault: true, configType: 7, synonyms: [] });
  });

  it('retention.ms set through log.retention.hours only: Kafka drops the leading other-named synonyms', () => {
    const d = broker();
    const entries = topicConfigEntries(createLogConfig(d.logDefaults), new Map(), d, true);
    expect(entries.find((e) => e.name === 'retention.ms')).toMatchObject({ value: '86400000', configSource: 5, synonyms: [] });
    d.updateDefaultConfig(new Map([['log.retention.ms', '60000']]));
    const after = topicConfigEntries(createLogConfig(d.logDefaults), new Map(), d, true);
    expect(after.find((e) => e.name === 'retention.ms')).toMatchObject({
      value: '60000',
      configSource: 3,
      synonyms: [{ name: 'log.retention.ms', value: '60000', source: 3 }, { name: 'log.retention.hours', value: '24', source: 4 }, { name: 'log.retention.hours', value: '168', source: 5 }],
    });
  });

  it('a broker: every key, dynamic ones writable, static ones read-only, passwords hidden', () => {
    const d = broker();
    d.updateBrokerConfig(new Map([['log.retention.ms', '5000']]));
    const entries = brokerConfigEntries(d, true, true);
    expect(entries.find((e) => e.name === 'log.retention.ms')).toMatchObject({ value: '5000', configSource: 2, readOnly: false, configType: 5 });
    expect(entries.find((e) => e.name === 'broker.id')).toMatchObject({ value: '1', configSource: 4, readOnly: true, synonyms: [{ name: 'broker.id', value: '1', source: 4 }, { name: 'broker.id', value: '-1', source: 5 }] });
    expect(entries.find((e) => e.name === 'ssl.key.password')).toMatchObject({ value: null, isSensitive: true, configType: 9 });
    expect(entries.find((e) => e.name === 'num.io.threads')).toMatchObject({ value: '8', configSource: 5, readOnly: false, isDefault: true });
  });

  it('the cluster default (""): only the <default> entries, without the per-broker source', () => {
    const d = broker();
    d.updateDefaultConfig(new Map([['log.segment.bytes', '2097152']]));
    d.updateBrokerConfig(new Map([['log.segment.bytes', '4194304']]));
    expect(brokerConfigEntries(d, false, true)).toEqual([
      expect.objectContaining({
        name: 'log.segment.bytes',
        value: '2097152',
        configSource: 3,
        synonyms: [{ name: 'log.segment.bytes', value: '2097152', source: 3 }, { name: 'log.segment.bytes', value: '1048576', source: 4 }, { name: 'log.segment.bytes', value: '1073741824', source: 5 }],
      }),
    ]);
  });

  it('dynamic changes update the shared log defaults in place and tell the listeners', () => {
    const d = broker();
    const defaults = d.logDefaults;
    const seen: number[] = [];
    d.onChange((c) => seen.push(c.logRetentionMs));
    d.updateDefaultConfig(new Map([['log.retention.ms', '1000']]));
    d.updateBrokerConfig(new Map([['log.retention.ms', '2000']]));
    d.updateBrokerConfig(new Map());
    expect(seen).toEqual([1000, 2000, 1000]);
    expect(defaults['retention.ms']).toBe(1000);
  });
});

describe('DescribeConfigs of listener keys and dynamic passwords (KafkaConfig.configType, brokerConfigSynonyms)', () => {
  it("a listener's limit has its base key's type and synonym; a JAAS entry is a sensitive password", () => {
    const d = new DynamicBrokerConfig(
      KafkaConfig.fromProperties(new Map([['zookeeper.connect', 'zk:2181'], ['broker.id', '1'], ['password.encoder.secret', 's'], ['max.connections', '100']])),
    );
    const jaas = 'listener.name.sasl_plaintext.plain.sasl.jaas.config';
    d.updateBrokerConfig(d.toPersistentProps(new Map([['listener.name.plaintext.max.connections', '7'], [jaas, 'secret-jaas']]), true));
    const entries = brokerConfigEntries(d, true, true);
    expect(entries.find((e) => e.name === 'listener.name.plaintext.max.connections')).toMatchObject({
      value: '7',
      configSource: 2,
      isSensitive: false,
      configType: 3,
      synonyms: [
        { name: 'listener.name.plaintext.max.connections', value: '7', source: 2 },
        { name: 'max.connections', value: '100', source: 4 },
        { name: 'max.connections', value: '2147483647', source: 5 },
      ],
    });
    expect(entries.find((e) => e.name === jaas)).toMatchObject({ value: null, configSource: 2, isSensitive: true, configType: 9, synonyms: [{ name: jaas, value: null, source: 2 }] });
  });
});
