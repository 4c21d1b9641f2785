import { ConfigException } from '../../../src/common/config/config-def';
import { DynamicBrokerConfig } from '../../../src/common/config/dynamic-broker-config';
import { listenerChanges, listenerRegistrationsAltered, listenersChanged } from '../../../src/common/config/dynamic-listener-config';
import { KafkaConfig } from '../../../src/common/config/kafka-config';

const BASE: [string, string][] = [
  ['zookeeper.connect', 'zk:2181'],
  ['broker.id', '1'],
  ['listeners', 'INTERNAL://:9092,EXTERNAL://:9093'],
  ['listener.security.protocol.map', 'INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT,SECURE:SSL'],
  ['inter.broker.listener.name', 'INTERNAL'],
];

function config(extra: [string, string][] = []): KafkaConfig {
  return KafkaConfig.fromProperties(new Map([...BASE, ...extra]));
}

/** What validate throws: the message the client sees and the reconfigurable's own message behind it. */
function refusal(props: [string, string][], perBroker = true, extra: [string, string][] = []): [string, string | undefined] | undefined {
  try {
    new DynamicBrokerConfig(config(extra)).validate(new Map(props), perBroker);
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigException);
    const cause = (e as Error).cause;
    return [(e as Error).message, cause instanceof Error ? cause.message : undefined];
  }
}

describe('DynamicListenerConfig.validateReconfiguration (dynamic listeners)', () => {
  it('takes a new listener with its listener.name.<l>.* settings, and the removal of a listener', () => {
    expect(refusal([
      ['listeners', 'INTERNAL://:9092,EXTERNAL://:9093,SECURE://:9094'],
      ['listener.name.secure.ssl.keystore.location', '/k.jks'],
      ['listener.name.secure.ssl.client.auth', 'required'],
      ['listener.name.secure.ssl.enabled.protocols', 'TLSv1.2'],
    ])).toBeUndefined();
    expect(refusal([['listeners', 'INTERNAL://:9092']])).toBeUndefined();
  });

  it('refuses a change of an existing listener: its security protocol, its create-time settings', () => {
    expect(refusal([['listener.security.protocol.map', 'INTERNAL:PLAINTEXT,EXTERNAL:SSL']])).toEqual([
      'Invalid dynamic configuration',
      'Security protocol cannot be updated for existing listener ListenerName(EXTERNAL)',
    ]);
    expect(refusal([['listener.name.external.ssl.client.auth', 'required']])).toEqual([
      'Invalid dynamic configuration',
      'Configs cannot be updated dynamically for existing listener ListenerName(EXTERNAL), restart broker or create a new listener for update',
    ]);
    // What a kept listener changes in place: its key material, its connection limits, its SASL settings.
    expect(refusal([['listener.name.external.ssl.keystore.location', '/new.jks'], ['listener.name.external.max.connections', '5']])).toBeUndefined();
  });

  it("answers KafkaConfig's own messages first (Kafka builds the new KafkaConfig before the reconfigurables run)", () => {
    expect(refusal([['listeners', 'INTERNAL://:9092,OTHER://:9095']])?.[0]).toBe('Invalid value INTERNAL://:9092,OTHER://:9095 for configuration listeners: No security protocol defined for listener OTHER');
    expect(refusal([['listeners', 'EXTERNAL://:9093']])?.[0]).toBe(
      'inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are EXTERNAL',
    );
    expect(refusal([['advertised.listeners', 'INTERNAL://h:9092,SECURE://h:9094']])?.[0]).toBe(
      'advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found INTERNAL,SECURE. The valid options based on the current configuration are INTERNAL,EXTERNAL',
    );
  });

  it('is per broker only, as DynamicBrokerConfig.PerBrokerConfigs', () => {
    expect(refusal([['listeners', 'INTERNAL://:9092']], false)).toEqual(['Cannot update these configs at default cluster level, broker id must be specified: Set(listeners)', undefined]);
    expect(refusal([['listener.name.secure.ssl.keystore.location', '/k.jks']], false)).toEqual([
      'Cannot update these configs at default cluster level, broker id must be specified: Set(listener.name.secure.ssl.keystore.location)',
      undefined,
    ]);
  });

  it('finds the listeners added and removed by name, and whether the registration changes', () => {
    const old = config();
    const next = config([['listeners', 'INTERNAL://:9092,SECURE://:9094']]);
    expect(listenersChanged(old, next)).toBe(true);
    expect(listenersChanged(old, config([['num.io.threads', '9']]))).toBe(false);
    const { added, removed } = listenerChanges(old, next);
    expect(added.map((e) => e.listenerName)).toEqual(['SECURE']);
    expect(removed.map((e) => e.listenerName)).toEqual(['EXTERNAL']);
    expect(listenerRegistrationsAltered(old, next)).toBe(true);
    expect(listenerRegistrationsAltered(old, config([['listener.name.external.max.connections', '3']]))).toBe(false);
  });
});

describe('DynamicBrokerConfig.validateConfigs securityConfigsWithoutListenerPrefix', () => {
  it.each(['ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password', 'ssl.key.password', 'ssl.truststore.type', 'ssl.truststore.location', 'ssl.truststore.password', 'ssl.keystore.key', 'ssl.keystore.certificate.chain', 'ssl.truststore.certificates'])(
    'refuses %s without a listener prefix',
    (key) => {
      expect(refusal([[key, 'x']])).toEqual([`These security configs can be dynamically updated only per-listener using the listener prefix: Set(${key})`, undefined]);
    },
  );

  it('keeps the unprefixed keys of server.properties for every listener without its own, and ignores stored ones', () => {
    const dynamic = new DynamicBrokerConfig(config([['ssl.keystore.location', '/static.jks']]));
    expect(dynamic.current.listenerConfig('SECURE').raw('ssl.keystore.location')).toBe('/static.jks');
    dynamic.updateBrokerConfig(new Map([['ssl.keystore.location', '/stored.jks'], ['listener.name.secure.ssl.keystore.location', '/own.jks']]));
    expect(dynamic.current.listenerConfig('EXTERNAL').raw('ssl.keystore.location')).toBe('/static.jks');
    expect(dynamic.current.listenerConfig('SECURE').raw('ssl.keystore.location')).toBe('/own.jks');
  });
});
