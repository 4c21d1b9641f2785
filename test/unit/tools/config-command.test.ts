import { PasswordEncoder } from '../../../src/common/config/password-encoder';
import { CliError } from '../../../src/tools/cli';
import {
  checkConfigCommandArgs,
  ConfigCommandError,
  ConfigCommandOptions,
  entityText,
  formatConfigEntry,
  formatZkConfigs,
  parseConfigsToBeAdded,
  parseConfigsToBeDeleted,
  ZkConfigCommand,
} from '../../../src/tools/config-command';
import { AdminZk } from '../../../src/zk/admin-zk';
import { FakeZk } from '../../helpers/fake-zk';

const opts = (o: Partial<ConfigCommandOptions>): ConfigCommandOptions => ({ entityType: [], entityName: [], deleteConfig: [], ...o });

function message(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return (e as Error).message;
  }
  return 'no error';
}

describe('kafka-configs --add-config / --delete-config parsing (ConfigCommand.parseConfigsToBeAdded)', () => {
  it('splits on commas outside brackets and removes the brackets from values', () => {
    expect([...parseConfigsToBeAdded('retention.ms=1000,cleanup.policy=[compact,delete], segment.bytes = 20')]).toEqual([
      ['retention.ms', '1000'],
      ['cleanup.policy', 'compact,delete'],
      ['segment.bytes', '20'],
    ]);
  });

  it('keeps an empty value and drops a trailing comma', () => {
    expect([...parseConfigsToBeAdded('ssl.endpoint.identification.algorithm=,a=1,')]).toEqual([['ssl.endpoint.identification.algorithm', ''], ['a', '1']]);
  });

  it('refuses a pair without exactly one =', () => {
    for (const bad of ['a', 'a=1=2', 'a=1,b']) {
      expect(message(() => parseConfigsToBeAdded(bad))).toBe('Invalid entity config: all configs to be added must be in the format "key=val".');
    }
  });

  it('--delete-config: comma-separated and repeatable, trimmed', () => {
    expect(parseConfigsToBeDeleted(['a, b', 'c'])).toEqual(['a', 'b', 'c']);
  });
});

describe('kafka-configs output', () => {
  it('entity names as ConfigCommand.Entity.toString', () => {
    expect(entityText('topics', 't')).toBe("topic 't'");
    expect(entityText('clients', 'a%2Fb')).toBe("client-id 'a/b'");
    expect(entityText('clients', '<default>')).toBe('default client-id');
    expect(entityText('users', 'alice')).toBe("user-principal 'alice'");
    expect(entityText('brokers', '0')).toBe("brokers '0'");
  });

  it('describe lines', () => {
    expect(formatConfigEntry({ name: 'retention.ms', value: '1000', readOnly: false, isDefault: false, configSource: 1, isSensitive: false, synonyms: [{ name: 'retention.ms', value: '1000', source: 1 }, { name: 'log.retention.hours', value: '168', source: 5 }] })).toBe(
      '  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000, DEFAULT_CONFIG:log.retention.hours=168}',
    );
    expect(formatConfigEntry({ name: 'ssl.key.password', value: null, readOnly: true, isDefault: false, configSource: 4, isSensitive: true, synonyms: [] })).toBe('  ssl.key.password=null sensitive=true synonyms={}');
    expect(formatZkConfigs("topic 't'", new Map([['a', '1'], ['b', '2']]))).toBe("Configs for topic 't' are a=1,b=2");
    expect(formatZkConfigs("topic 't'", new Map())).toBe("Configs for topic 't' are ");
  });
});

describe('kafka-configs argument checks (ConfigCommandOptions.checkArgs)', () => {
  it.each([
    [{ zookeeper: 'z', entityType: ['topics'] }, 'Command must include exactly one action: --describe, --alter'],
    [{ zookeeper: 'z', describe: true, alter: true, entityType: ['topics'] }, 'Command must include exactly one action: --describe, --alter'],
    [{ zookeeper: 'z', describe: true, entityType: ['topics'], addConfig: 'a=1' }, 'Option "[describe]" can\'t be used with option "[add-config]"'],
    [{ zookeeper: 'z', describe: true, entityType: ['nope'] }, 'Invalid entity type nope, the entity type must be one of topics, clients, users, brokers, ips with the --zookeeper argument'],
    [{ bootstrapServer: 'b', describe: true, entityType: ['nope'] }, 'Invalid entity type nope, the entity type must be one of topics, clients, users, brokers, ips, broker-loggers with the --bootstrap-server argument'],
    [{ zookeeper: 'z', describe: true }, 'At least one entity type must be specified'],
    [{ zookeeper: 'z', describe: true, entityType: ['topics', 'brokers'] }, "Only 'users' and 'clients' entity types may be specified together"],
    [{ describe: true, entityType: ['topics'] }, 'One of the required --bootstrap-server or --zookeeper arguments must be specified'],
    [{ zookeeper: 'z', bootstrapServer: 'b', describe: true, entityType: ['topics'] }, 'Only one of --bootstrap-server or --zookeeper must be specified'],
    [{ zookeeper: 'z', describe: true, all: true, entityType: ['topics'] }, '--bootstrap-server must be specified for --all'],
    [{ zookeeper: 'z', describe: true, entityType: ['brokers'], entityName: ['x'] }, 'The entity name for brokers must be a valid integer broker id, but it is: x'],
    [{ zookeeper: 'z', describe: true, entityType: ['topics'], entityDefault: true }, '--entity-default must not be specified with --describe of topics'],
    [{ zookeeper: 'z', alter: true, entityType: ['topics'], addConfig: 'a=1' }, 'An entity name must be specified with --alter of topics'],
    [{ zookeeper: 'z', alter: true, entityType: ['clients'], addConfig: 'a=1' }, 'An entity-name or default entity must be specified with --alter of users, clients, brokers or ips'],
    [{ zookeeper: 'z', alter: true, entityType: ['topics'], entityName: ['t'] }, 'At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter'],
  ])('%j', (o, expected) => {
    expect(message(() => checkConfigCommandArgs(opts(o)))).toBe(expected);
  });

  it('accepts the usual forms', () => {
    expect(message(() => checkConfigCommandArgs(opts({ zookeeper: 'z', alter: true, entityType: ['topics'], entityName: ['t'], addConfig: 'a=1' })))).toBe('no error');
    expect(message(() => checkConfigCommandArgs(opts({ bootstrapServer: 'b', describe: true, entityType: ['brokers'], entityDefault: true })))).toBe('no error');
  });
});

describe('kafka-configs --zookeeper (alterConfigWithZk / describeConfigWithZk)', () => {
  function setup(): { zk: FakeZk; run: (o: Partial<ConfigCommandOptions>) => Promise<string[]> } {
    const zk = new FakeZk();
    zk.put('/brokers/topics/t', '{"version":2,"partitions":{"0":[0]},"adding_replicas":{},"removing_replicas":{}}');
    zk.put('/config/topics/t', '{"version":1,"config":{"retention.ms":"1000"}}');
    zk.put('/config/changes', '');
    zk.put('/brokers/ids/0', '{}');
    return {
      zk,
      run: async (o) => {
        const out: string[] = [];
        await new ZkConfigCommand(new AdminZk(zk.client), (l) => out.push(l)).run(opts({ zookeeper: 'z', ...o }));
        return out;
      },
    };
  }
  const config = (zk: FakeZk, path: string): unknown => (JSON.parse(String(zk.nodes.get(path)?.data)) as { config: unknown }).config;

  it('alters a topic: adds and deletes overrides, notifies, then describes', async () => {
    const { zk, run } = setup();
    expect(await run({ alter: true, entityType: ['topics'], entityName: ['t'], addConfig: 'segment.bytes=1048576,cleanup.policy=[compact,delete]', deleteConfig: ['retention.ms'] })).toEqual([
      "Completed updating config for entity: topic 't'.",
    ]);
    expect(config(zk, '/config/topics/t')).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'compact,delete' });
    expect([...zk.nodes.keys()].filter((p) => p.startsWith('/config/changes/config_change_'))).toHaveLength(1);
    expect(await run({ describe: true, entityType: ['topics'], entityName: ['t'] })).toEqual(["Configs for topic 't' are segment.bytes=1048576,cleanup.policy=compact,delete"]);
    expect(await run({ describe: true, entityType: ['topics'] })).toEqual(["Configs for topic 't' are segment.bytes=1048576,cleanup.policy=compact,delete"]);
  });

  it('writes a stopped broker\'s dynamic config to /config/brokers/<id> with a notification', async () => {
    const { zk, run } = setup();
    expect(await run({ alter: true, entityType: ['brokers'], entityName: ['5'], addConfig: 'log.retention.ms=60000' })).toEqual(["Completed updating config for entity: brokers '5'."]);
    expect(config(zk, '/config/brokers/5')).toEqual({ 'log.retention.ms': '60000' });
  });

  it('encodes a broker password with the password.encoder.secret given alongside, which is not stored (preProcessBrokerConfigs)', async () => {
    const { zk, run } = setup();
    const key = 'listener.name.sasl_plaintext.plain.sasl.jaas.config';
    const jaas = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_bob="bob-secret";';
    const refused = await run({ alter: true, entityType: ['brokers'], entityName: ['5'], addConfig: `${key}=[${jaas}]` }).catch((e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as Error).message).toBe(
      `requirement failed: password.encoder.secret must be specified to update Set(${key}). Other password encoder configs like cipher algorithm and iterations may also be specified to override the default encoding parameters. Password encoder configs will not be persisted in ZooKeeper.`,
    );
    await run({ alter: true, entityType: ['brokers'], entityName: ['5'], addConfig: `${key}=[${jaas}],password.encoder.secret=s3cr3t,password.encoder.iterations=2048` });
    const stored = config(zk, '/config/brokers/5') as Record<string, string>;
    expect(Object.keys(stored)).toEqual([key]);
    expect(stored[key]).toContain('iterations:2048');
    expect(stored[key]).not.toContain('bob-secret');
    expect(new PasswordEncoder({ secret: 's3cr3t' }).decode(stored[key] as string)).toBe(jaas);
  });

  it.each([
    [{ entityType: ['topics'], entityName: ['t'], addConfig: 'no.such=1' }, CliError, 'Unknown topic config name: no.such'],
    [{ entityType: ['topics'], entityName: ['t'], deleteConfig: ['segment.ms'] }, CliError, 'Invalid config(s): segment.ms'],
    [{ entityType: ['topics'], entityName: ['t'], addConfig: 'retention.ms=abc' }, ConfigCommandError, 'Invalid value abc for configuration retention.ms: Not a number of type LONG'],
    [{ entityType: ['topics'], entityName: ['nope'], addConfig: 'retention.ms=1' }, ConfigCommandError, "Topic 'nope' does not exist."],
    [{ entityType: ['clients'], entityName: ['c'], addConfig: 'nope=1' }, CliError, 'requirement failed: Unknown Dynamic Configuration: HashSet(nope).'],
    [{ entityType: ['clients'], entityName: ['c'], addConfig: 'request_percentage=50' }, CliError, 'Client quotas other than producer_byte_rate and consumer_byte_rate are not supported by this broker; refused: request_percentage'],
    [{ entityType: ['clients'], entityName: ['c'], addConfig: 'producer_byte_rate=x' }, ConfigCommandError, 'Invalid value x for configuration producer_byte_rate: Not a number of type LONG'],
    [{ entityType: ['users'], entityName: ['u'], addConfig: 'producer_byte_rate=1' }, CliError, 'requirement failed: --bootstrap-server option must be specified to update users configs: {add: {producer_byte_rate=1}, delete: List()}. User configuration updates using ZooKeeper are only supported for SCRAM credential updates.'],
    [{ entityType: ['brokers'], entityName: ['0'], addConfig: 'log.cleaner.threads=2' }, CliError, 'requirement failed: --bootstrap-server option must be specified to update brokers configs: {add: {log.cleaner.threads=2}, delete: List()} - broker 0 is running. Broker configuration operations using ZooKeeper are only supported if the affected broker(s) are not running.'],
    [{ entityType: ['brokers'], entityName: ['5'], addConfig: 'ssl.cipher.suites=x' }, CliError, 'These dynamic broker configs are not supported by this broker: ssl.cipher.suites'],
    [{ entityType: ['brokers'], entityName: ['5'], addConfig: 'ssl.truststore.location=/t.jks' }, ConfigCommandError, 'These security configs can be dynamically updated only per-listener using the listener prefix: Set(ssl.truststore.location)'],
    [{ entityType: ['brokers'], entityName: ['5'], addConfig: 'broker.id=7' }, ConfigCommandError, 'Cannot update these configs dynamically: Set(broker.id)'],
  ])('refuses %j', async (o, type, expected) => {
    const { zk, run } = setup();
    const error = await run({ alter: true, ...o }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(type);
    expect((error as Error).message).toBe(expected);
    expect(config(zk, '/config/topics/t')).toEqual({ 'retention.ms': '1000' });
  });

  it('alters a client id and the default client, sanitized, and describes them', async () => {
    const { zk, run } = setup();
    expect(await run({ alter: true, entityType: ['clients'], entityName: ['my/client'], addConfig: 'producer_byte_rate=1024' })).toEqual(["Completed updating config for entity: client-id 'my/client'."]);
    expect(config(zk, '/config/clients/my%2Fclient')).toEqual({ producer_byte_rate: '1024' });
    expect(await run({ alter: true, entityType: ['clients'], entityDefault: true, addConfig: 'consumer_byte_rate=2048' })).toEqual(['Completed updating config for entity: default client-id.']);
    expect(await run({ describe: true, entityType: ['clients'] })).toEqual(["Configs for default client-id are consumer_byte_rate=2048", "Configs for client-id 'my/client' are producer_byte_rate=1024"]);
  });
});
