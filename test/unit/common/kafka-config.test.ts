import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigException } from '../../../src/common/config/config-def';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { parseProperties } from '../../../src/common/config/properties';

function config(entries: Record<string, string>): KafkaConfig {
  return KafkaConfig.fromProperties(new Map(Object.entries({ 'zookeeper.connect': 'localhost:2181', ...entries })));
}

function error(entries: Record<string, string>): string {
  try {
    config(entries);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigException);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigException');
}

describe('KafkaConfig', () => {
  it('reads the stock config/server.properties with no unknown keys', () => {
    const text = fs.readFileSync(path.join(__dirname, '../../../config/server.properties'), 'utf8');
    const c = KafkaConfig.fromProperties(parseProperties(text));
    expect(c.unknownKeys).toEqual([]);
    expect(c.brokerId).toBe(0);
    expect(c.logDirs).toEqual(['/tmp/kafka-logs']);
    expect(c.zkConnect).toBe('localhost:2181');
    expect(c.zkConnectionTimeoutMs).toBe(18000);
    expect(c.logRetentionMs).toBe(168 * 3600000);
    expect(c.get('num.partitions')).toBe(1);
    expect(c.get('socket.request.max.bytes')).toBe(104857600);
  });

  it('types every key: a misspelt key or a wrong value type does not compile', () => {
    const c = config({});
    // @ts-expect-error misspelt key
    expect(c.get('num.partition')).toBeUndefined();
    // @ts-expect-error num.partitions is a number
    const asText: string = c.get('num.partitions');
    expect(typeof asText).toBe('number');
    const maybe: string | null = c.get('log.dirs');
    expect(maybe).toBeNull();
  });

  it("applies Kafka's defaults", () => {
    const c = config({});
    expect(c.brokerId).toBe(-1);
    expect(c.logDirs).toEqual(['/tmp/kafka-logs']);
    expect(c.zkSessionTimeoutMs).toBe(18000);
    expect(c.zkConnectionTimeoutMs).toBe(18000);
    expect(c.get('message.max.bytes')).toBe(1048588);
    expect(c.get('default.replication.factor')).toBe(1);
    expect(c.get('min.insync.replicas')).toBe(1);
    expect(c.get('unclean.leader.election.enable')).toBe(false);
    expect(c.get('auto.create.topics.enable')).toBe(true);
    expect(c.get('delete.topic.enable')).toBe(true);
    expect(c.get('auto.leader.rebalance.enable')).toBe(true);
    expect(c.get('controlled.shutdown.enable')).toBe(true);
    expect(c.get('log.cleaner.enable')).toBe(true);
    expect(c.get('log.retention.bytes')).toBe(-1);
    expect(c.get('log.segment.bytes')).toBe(1073741824);
    expect(c.get('log.retention.check.interval.ms')).toBe(300000);
    expect(c.get('replica.fetch.max.bytes')).toBe(1048576);
    expect(c.get('offsets.topic.num.partitions')).toBe(50);
    expect(c.listeners).toEqual([{ listenerName: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(c.advertisedListeners).toEqual(c.listeners);
  });

  it('lets log.retention.ms win over minutes and hours, and -1 mean forever', () => {
    expect(config({ 'log.retention.hours': '1' }).logRetentionMs).toBe(3600000);
    expect(config({ 'log.retention.minutes': '2', 'log.retention.hours': '1' }).logRetentionMs).toBe(120000);
    expect(config({ 'log.retention.ms': '5', 'log.retention.minutes': '2' }).logRetentionMs).toBe(5);
    expect(config({ 'log.retention.ms': '-1' }).logRetentionMs).toBe(-1);
  });

  it('prefers log.dirs over log.dir and splits the list', () => {
    expect(config({ 'log.dir': '/x', 'log.dirs': '/a, /b' }).logDirs).toEqual(['/a', '/b']);
    expect(config({ 'log.dir': '/x' }).logDirs).toEqual(['/x']);
  });

  it('parses listeners and advertised listeners, legacy host.name/port included', () => {
    const c = config({ listeners: 'PLAINTEXT://127.0.0.1:0', 'advertised.listeners': 'PLAINTEXT://kafka1:9093' });
    expect(c.listeners[0]).toEqual({ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 0, securityProtocol: 'PLAINTEXT' });
    expect(c.advertisedListeners[0]?.host).toBe('kafka1');
    const legacy = config({ port: '9999', 'host.name': 'h1', 'advertised.host.name': 'pub' });
    expect(legacy.listeners[0]).toMatchObject({ host: 'h1', port: 9999 });
    expect(legacy.advertisedListeners[0]).toMatchObject({ host: 'pub', port: 9999 });
  });

  it('names the key, the value and the rule for a bad value', () => {
    expect(error({ 'num.partitions': 'abc' })).toBe('Invalid value abc for configuration num.partitions: Not a number of type INT');
    expect(error({ 'num.partitions': '0' })).toBe('Invalid value 0 for configuration num.partitions: Value must be at least 1');
    expect(error({ 'auto.create.topics.enable': 'yes' })).toBe(
      'Invalid value yes for configuration auto.create.topics.enable: Expected value to be either true or false',
    );
    expect(error({ 'compression.type': 'brotli' })).toMatch(/^Invalid value brotli for configuration compression.type: String must be one of/);
    expect(error({ 'broker.id': '-5' })).toMatch(/^Invalid value -5 for configuration broker.id/);
    expect(error({ 'message.max.bytes': '99999999999' })).toMatch(/Not a number of type INT/);
    expect(error({ listeners: 'PLAINTEXT://host' })).toMatch(/Unable to parse PLAINTEXT:\/\/host to a broker endpoint/);
    expect(error({ listeners: 'FOO://h:1' })).toMatch(/No security protocol defined for listener FOO/);
  });

  it('refuses at start-up the settings that promise protection kafka-ts does not give, naming the key', () => {
    expect(error({ 'authorizer.class.name': 'com.example.MyAuthorizer' })).toBe(
      'authorizer.class.name=com.example.MyAuthorizer is not supported by kafka-ts: the authorizers it has are kafka.security.authorizer.AclAuthorizer and kafka.security.auth.SimpleAclAuthorizer (ACLs in ZooKeeper)',
    );
    expect(config({ 'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer' }).get('authorizer.class.name')).toBe('kafka.security.authorizer.AclAuthorizer');
    expect(config({ 'authorizer.class.name': 'kafka.security.auth.SimpleAclAuthorizer' }).get('authorizer.class.name')).toBe('kafka.security.auth.SimpleAclAuthorizer');
    expect(error({ 'allow.everyone.if.no.acl.found': 'yes' })).toBe('Invalid value yes for configuration allow.everyone.if.no.acl.found: Expected value to be either true or false');
    expect(error({ 'ssl.provider': 'BC' })).toMatch(/^ssl\.provider=BC is not supported/);
    expect(error({ 'listener.name.ssl.ssl.keymanager.algorithm': 'PKIX' })).toMatch(/^listener\.name\.ssl\.ssl\.keymanager\.algorithm=PKIX is not supported/);
    // SASL exists (src/security); only custom callback handler and login classes cannot be honoured.
    expect(config({ 'sasl.enabled.mechanisms': 'PLAIN' }).get('sasl.enabled.mechanisms')).toEqual(['PLAIN']);
    expect(error({ 'listener.name.internal.plain.sasl.server.callback.handler.class': 'com.example.H' })).toMatch(/^listener\.name\.internal\.plain\.sasl\.server\.callback\.handler\.class=com\.example\.H is not supported/);
    expect(config({ 'zookeeper.set.acl': 'false', 'authorizer.class.name': '' }).get('zookeeper.set.acl')).toBe(false);
  });

  it('takes zookeeper.set.acl and the zookeeper.ssl.* keys (the login and the TLS stores are checked at start-up)', () => {
    expect(config({ 'zookeeper.set.acl': 'true' }).get('zookeeper.set.acl')).toBe(true);
    expect(config({ 'zookeeper.ssl.client.enable': 'true' }).get('zookeeper.ssl.client.enable')).toBe(true);
    expect(config({ 'zookeeper.ssl.keystore.password': 'secret' }).get('zookeeper.ssl.endpoint.identification.algorithm')).toBe('HTTPS');
    expect(config({ 'zookeeper.ssl.client.enable': 'false' }).get('zookeeper.set.acl')).toBe(false);
  });

  it('requires zookeeper.connect', () => {
    expect(() => KafkaConfig.fromProperties(new Map())).toThrow('Missing required configuration "zookeeper.connect" which has no default value.');
  });

  it('reports unknown keys rather than failing', () => {
    expect(config({ 'no.such.key': '1' }).unknownKeys).toEqual(['no.such.key']);
  });

  it('dumps every key sorted, Long.MAX_VALUE as Kafka prints it', () => {
    const dump = config({}).describe();
    expect(dump.startsWith('KafkaConfig values: \n\t')).toBe(true);
    expect(dump).toContain('\tlog.flush.interval.messages = 9223372036854775807\n');
    expect(dump).toContain('\tlog.dirs = null\n');
    const keys = dump.split('\n').slice(1, -1).map((l) => l.trim().split(' = ')[0] ?? '');
    expect(keys).toEqual([...keys].sort());
  });
});
