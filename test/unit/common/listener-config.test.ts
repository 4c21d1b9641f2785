import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { listenerPrefix } from '../../../src/common/config/listener-config';
import { isAppliedDynamicConfig, validateDynamicBrokerKeys } from '../../../src/common/config/dynamic-broker-config';

function config(extra: Record<string, string>): KafkaConfig {
  return KafkaConfig.fromProperties(new Map(Object.entries({ 'zookeeper.connect': 'localhost:2181', 'broker.id': '0', ...extra })));
}

function error(extra: Record<string, string>): string {
  try {
    config(extra);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}

describe('listener.name.<listener>.<key> (valuesWithPrefixOverride)', () => {
  const base = { listeners: 'PLAINTEXT://:9092,INTERNAL://:9093', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:SSL', 'inter.broker.listener.name': 'INTERNAL' };

  it('lets the listener-prefixed key win over the broker key, which wins over the default', () => {
    const c = config({ ...base, 'ssl.keystore.location': '/broker.jks', 'listener.name.internal.ssl.keystore.location': '/internal.jks', 'ssl.client.auth': 'requested' });
    const internal = c.listenerConfig('INTERNAL');
    expect(listenerPrefix('INTERNAL')).toBe('listener.name.internal.');
    expect(internal.raw('ssl.keystore.location')).toBe('/internal.jks');
    expect(c.listenerConfig('PLAINTEXT').raw('ssl.keystore.location')).toBe('/broker.jks');
    expect(internal.get('ssl.client.auth')).toBe('requested');
    expect(internal.get('ssl.keystore.type')).toBe('JKS');
    expect(internal.raw('ssl.truststore.location')).toBeUndefined();
    expect(c.unknownKeys).toEqual([]);
  });

  it('names the prefixed key when its value is bad', () => {
    const c = config({ ...base, 'listener.name.internal.ssl.client.auth': 'always' });
    expect(() => c.listenerConfig('internal').get('ssl.client.auth')).toThrow('Invalid value always for configuration listener.name.internal.ssl.client.auth: String must be one of: required, requested, none');
  });
});

describe("listener validation (KafkaConfig.validateValues' messages)", () => {
  it('inter-broker listener: one way to name it, and it must be advertised', () => {
    expect(error({ 'inter.broker.listener.name': 'PLAINTEXT', 'security.inter.broker.protocol': 'PLAINTEXT' })).toBe('Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.');
    expect(error({ listeners: 'PLAINTEXT://:9092,SSL://:9093', 'advertised.listeners': 'SSL://h:9093' })).toBe(
      'inter.broker.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are SSL',
    );
    expect(config({ listeners: 'SSL://:9093', 'security.inter.broker.protocol': 'SSL' }).interBrokerListenerName).toBe('SSL');
  });

  it('advertised listeners are a subset of the listeners', () => {
    expect(error({ listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://h:9092,SSL://h:9093' })).toBe(
      'advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found PLAINTEXT,SSL. The valid options based on the current configuration are PLAINTEXT',
    );
  });

  it('control.plane.listener.name: advertised, and not the inter-broker listener', () => {
    const listeners = { listeners: 'PLAINTEXT://:9092,CONTROLLER://:9094', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,CONTROLLER:SSL' };
    expect(config({ ...listeners, 'control.plane.listener.name': 'CONTROLLER' }).controllerListenerName).toBe('CONTROLLER');
    expect(config(listeners).controllerListenerName).toBe('PLAINTEXT');
    expect(error({ ...listeners, 'control.plane.listener.name': 'NOPE' })).toBe(
      'control.plane.listener.name must be a listener name defined in advertised.listeners. The valid options based on currently configured listeners are PLAINTEXT,CONTROLLER',
    );
    expect(error({ ...listeners, 'control.plane.listener.name': 'PLAINTEXT' })).toBe(
      'control.plane.listener.name, when defined, should have a different value from the inter broker listener name. Currently they both have the value PLAINTEXT',
    );
  });

  it('hides ssl passwords in the start-up dump', () => {
    const dump = config({ 'ssl.keystore.password': 'p4ss', 'ssl.key.password': 'k3y', 'ssl.truststore.password': 't4ust', 'ssl.keystore.key': 'PEMKEY' }).describe();
    expect(dump).toContain('\tssl.keystore.password = [hidden]\n');
    expect(dump).toContain('\tssl.keystore.key = [hidden]\n');
    for (const secret of ['p4ss', 'k3y', 't4ust', 'PEMKEY']) expect(dump).not.toContain(secret);
  });
});

describe('dynamic listener SSL keys', () => {
  it('takes listener.name.<l>.ssl.keystore.location and its password per broker only', () => {
    expect(isAppliedDynamicConfig('listener.name.ssl.ssl.keystore.location')).toBe(true);
    expect(() => validateDynamicBrokerKeys(new Map([['listener.name.ssl.ssl.keystore.location', '/new.jks']]), true)).not.toThrow();
    expect(() => validateDynamicBrokerKeys(new Map([['listener.name.ssl.ssl.keystore.location', '/new.jks']]), false)).toThrow(
      'Cannot update these configs at default cluster level, broker id must be specified: Set(listener.name.ssl.ssl.keystore.location)',
    );
    expect(() => validateDynamicBrokerKeys(new Map([['listener.name.ssl.ssl.keystore.password', 'x']]), true)).not.toThrow();
    expect(() => validateDynamicBrokerKeys(new Map([['listener.name.ssl.ssl.keystore.password', 'x']]), false)).toThrow('Cannot update these configs at default cluster level');
    expect(() => validateDynamicBrokerKeys(new Map([['listener.name.ssl.ssl.client.auth', 'always']]), true)).toThrow('Invalid value always for configuration listener.name.ssl.ssl.client.auth: String must be one of: required, requested, none');
  });
});
