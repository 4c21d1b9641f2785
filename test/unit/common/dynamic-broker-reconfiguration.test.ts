import { ConfigException } from '../../../src/common/config/config-def';
import { APPLIED_DYNAMIC_CONFIGS, DynamicBrokerConfig } from '../../../src/common/config/dynamic-broker-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';

function broker(extra: [string, string][] = []): DynamicBrokerConfig {
  return new DynamicBrokerConfig(KafkaConfig.fromProperties(new Map([['zookeeper.connect', 'zk:2181'], ['broker.id', '1'], ...extra])));
}

/** What validate throws: the message the client sees, and the reconfigurable's own message behind it. */
function refusal(config: DynamicBrokerConfig, props: [string, string][], perBroker = false): [string, string | undefined] | undefined {
  try {
    config.validate(new Map(props), perBroker);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigException);
    const cause = (e as Error).cause;
    return [(e as Error).message, cause instanceof Error ? cause.message : undefined];
  }
}

describe('DynamicBrokerConfig reconfiguration checks (DynamicThreadPool, SocketServer, LogCleaner)', () => {
  it('applies the thread pool, connection and cleaner keys instead of refusing them', () => {
    for (const k of ['num.io.threads', 'num.network.threads', 'num.replica.fetchers', 'background.threads', 'num.recovery.threads.per.data.dir', 'max.connections', 'max.connections.per.ip', 'max.connections.per.ip.overrides', 'log.cleaner.threads', 'log.cleaner.io.max.bytes.per.second', 'log.cleaner.dedupe.buffer.size', 'log.cleaner.io.buffer.size', 'log.cleaner.io.buffer.load.factor', 'log.cleaner.backoff.ms']) {
      expect(APPLIED_DYNAMIC_CONFIGS.has(k)).toBe(true);
    }
    for (const k of ['max.connection.creation.rate', 'metric.reporters']) expect(APPLIED_DYNAMIC_CONFIGS.has(k)).toBe(true);
    for (const k of ['listeners', 'advertised.listeners', 'listener.security.protocol.map']) expect(APPLIED_DYNAMIC_CONFIGS.has(k)).toBe(true);
    for (const k of ['ssl.cipher.suites', 'ssl.keystore.location']) expect(APPLIED_DYNAMIC_CONFIGS.has(k)).toBe(false);
  });

  it.each([
    [[['num.replica.fetchers', '0']], 'Dynamic thread count update validation failed for num.replica.fetchers=0, value should be at least 1'],
    [[['num.replica.fetchers', '3']], 'Dynamic thread count update validation failed for num.replica.fetchers=3, value should not be greater than double the current value 1'],
    [[['num.io.threads', '3']], 'Dynamic thread count update validation failed for num.io.threads=3, value should be at least half the current value 8'],
    [[['num.io.threads', '17']], 'Dynamic thread count update validation failed for num.io.threads=17, value should not be greater than double the current value 8'],
    [[['num.network.threads', '7']], 'Dynamic thread count update validation failed for num.network.threads=7, value should not be greater than double the current value 3'],
    [[['background.threads', '4']], 'Dynamic thread count update validation failed for background.threads=4, value should be at least half the current value 10'],
    [[['log.cleaner.threads', '0']], 'Log cleaner threads should be at least 1'],
    [[['log.cleaner.threads', '3']], 'Log cleaner threads cannot be increased to more than double the current value 1'],
  ] as [[string, string][], string][])('refuses %j as Kafka does: Invalid dynamic configuration, caused by %s', (props, cause) => {
    expect(refusal(broker(), props)).toEqual(['Invalid dynamic configuration', cause]);
  });

  it('accepts values within half and double of the current ones, judged against the dynamic value in force', () => {
    const config = broker();
    expect(refusal(config, [['num.replica.fetchers', '2'], ['num.io.threads', '4'], ['num.network.threads', '6'], ['background.threads', '20'], ['log.cleaner.threads', '2'], ['log.cleaner.backoff.ms', '100']])).toBeUndefined();
    config.updateDefaultConfig(new Map([['num.replica.fetchers', '2']]));
    expect(config.current.get('num.replica.fetchers')).toBe(2);
    expect(refusal(config, [['num.replica.fetchers', '4']])).toBeUndefined();
    expect(refusal(config, [['num.replica.fetchers', '5']])).toEqual(['Invalid dynamic configuration', 'Dynamic thread count update validation failed for num.replica.fetchers=5, value should not be greater than double the current value 2']);
    // Removing the dynamic value goes back to the static one: also a change to check.
    config.updateDefaultConfig(new Map([['num.io.threads', '16']]));
    expect(refusal(config, [['num.io.threads', '7']])).toEqual(['Invalid dynamic configuration', 'Dynamic thread count update validation failed for num.io.threads=7, value should be at least half the current value 16']);
  });

  it('checks log.cleaner.threads only when a cleaner key changes and the cleaner runs', () => {
    // log.cleaner.threads=0 is a valid static value (atLeast(0)); any other key may still change.
    const noThreads = broker([['log.cleaner.threads', '0']]);
    expect(refusal(noThreads, [['log.retention.ms', '1000']])).toBeUndefined();
    expect(refusal(noThreads, [['log.cleaner.backoff.ms', '100']])).toEqual(['Invalid dynamic configuration', 'Log cleaner threads should be at least 1']);
    expect(refusal(broker([['log.cleaner.enable', 'false']]), [['log.cleaner.threads', '5']])).toBeUndefined();
  });

  it('refuses connection limits the broker config itself refuses, and bad types, with their own messages', () => {
    expect(refusal(broker(), [['max.connections.per.ip', '0']])).toEqual(['max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.', undefined]);
    expect(refusal(broker(), [['max.connections.per.ip', '0'], ['max.connections.per.ip.overrides', '127.0.0.1:5']])).toBeUndefined();
    expect(refusal(broker(), [['max.connections.per.ip', 'x']])).toEqual(['Invalid value x for configuration max.connections.per.ip: Not a number of type INT', undefined]);
    expect(refusal(broker(), [['max.connections.per.ip.overrides', 'nope']])?.[0]).toMatch(/^Invalid value nope for configuration max.connections.per.ip.overrides/);
  });

  it('makes the new values the current config, which its listeners see', () => {
    const config = broker();
    const seen: number[] = [];
    config.onChange((c) => seen.push(c.get('max.connections.per.ip')));
    config.updateDefaultConfig(new Map([['max.connections.per.ip', '7'], ['log.cleaner.backoff.ms', '500']]));
    expect(seen).toEqual([7]);
    expect(config.current.get('log.cleaner.backoff.ms')).toBe(500);
    expect(config.configSynonyms('max.connections.per.ip', false)[0]).toEqual({ name: 'max.connections.per.ip', value: '7', source: 3 });
  });
});

describe('DynamicBrokerConfig passwords (password.encoder.secret), listener keys and metric.reporters', () => {
  const JAAS = 'listener.name.sasl_plaintext.plain.sasl.jaas.config';

  it('stores passwords encoded, reads them decoded, and refuses them without a secret or at the default', () => {
    const withSecret = broker([['password.encoder.secret', 'enc-secret']]);
    const persisted = withSecret.toPersistentProps(new Map([[JAAS, 'secret-jaas'], ['listener.name.ssl.ssl.key.password', 'k3y'], ['max.connections', '5']]), true);
    expect(persisted.get('max.connections')).toBe('5');
    expect(persisted.get(JAAS)).toMatch(/^encryptedPassword:.*,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,initializationVector:/);
    expect(withSecret.fromPersistentProps(persisted)).toEqual(new Map([[JAAS, 'secret-jaas'], ['listener.name.ssl.ssl.key.password', 'k3y'], ['max.connections', '5']]));
    // Applied from ZooKeeper: the merged config holds the decoded value.
    withSecret.updateBrokerConfig(persisted);
    expect(withSecret.current.originals.get(JAAS)).toBe('secret-jaas');
    // Another secret cannot read it: that entry is left out, the rest applies.
    const other = broker([['password.encoder.secret', 'other']]);
    other.updateBrokerConfig(persisted);
    expect(other.current.originals.has(JAAS)).toBe(false);
    expect(other.current.get('max.connections')).toBe(5);
    // password.encoder.old.secret still reads what the previous secret stored.
    expect(broker([['password.encoder.secret', 'new'], ['password.encoder.old.secret', 'enc-secret']]).fromPersistentProps(persisted).get(JAAS)).toBe('secret-jaas');
    expect(() => broker().toPersistentProps(new Map([[JAAS, 'x']]), true)).toThrow(new ConfigException('Password encoder secret not configured'));
    expect(() => withSecret.toPersistentProps(new Map([['ssl.keystore.password', 'x']]), false)).toThrow(new ConfigException('Password config can be defined only at broker level'));
  });

  it('takes max.connection.creation.rate and listener connection limits at the default, listener SASL keys per broker only', () => {
    expect(refusal(broker(), [['max.connection.creation.rate', '10'], ['listener.name.external.max.connections', '3'], ['listener.name.external.max.connection.creation.rate', '2']])).toBeUndefined();
    expect(refusal(broker(), [['listener.name.external.max.connections', '-1']], true)).toEqual(['Invalid value -1 for configuration listener.name.external.max.connections: Value must be at least 0', undefined]);
    expect(refusal(broker(), [[JAAS, 'x']])).toEqual([`Cannot update these configs at default cluster level, broker id must be specified: Set(${JAAS})`, undefined]);
    expect(() => broker().validate(new Map([['listener.name.external.ssl.principal.mapping.rules', 'DEFAULT']]), true)).toThrow('Cannot update these configs dynamically: Set(listener.name.external.ssl.principal.mapping.rules)');
    expect(refusal(broker(), [['listener.name.plaintext.ssl.cipher.suites', 'x']], true)).toEqual([
      'Invalid dynamic configuration',
      'Configs cannot be updated dynamically for existing listener ListenerName(PLAINTEXT), restart broker or create a new listener for update',
    ]);
  });

  it("refuses a metric reporter class as Kafka does for one it cannot load; an empty list is fine", () => {
    expect(refusal(broker(), [['metric.reporters', 'com.example.Reporter']])).toEqual(['Invalid dynamic configuration', 'Validation of dynamic config update of Set(metric.reporters) failed with class class kafka.server.DynamicMetricsReporters']);
    expect(refusal(broker(), [['metric.reporters', '']])).toBeUndefined();
  });
});
