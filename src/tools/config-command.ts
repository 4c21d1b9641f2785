import { SCRAM_MECHANISMS as SCRAM_DEFS, SCRAM_MECHANISM_TYPES, ScramMechanism, generateScramCredential, scramCredentialToString } from '../security/scram-credential';
import { ConfigException, defineKey, parseKey } from '../common/config/config-def';
import { OP_DELETE, OP_SET } from '../common/config/incremental-config-ops';
import { validateLogConfig } from '../common/config/log-config';
import { isPasswordConfig, validateDynamicBrokerKeys } from '../common/config/dynamic-broker-config';
import { PasswordEncoder } from '../common/config/password-encoder';
import { ErrorCode, errorNameOf } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { topicNameError } from '../common/topic';
import { NetworkClient } from '../client/network-client';
import { AlterConfigsApi } from '../protocol/apis/alter-configs';
import { DescribeConfigsApi, DescribeConfigsResourceConfig } from '../protocol/apis/describe-configs';
import { IncrementalAlterConfigsApi } from '../protocol/apis/incremental-alter-configs';
import { MetadataApi } from '../protocol/apis/metadata';
import { AdminZk } from '../zk/admin-zk';
import { desanitize, sanitize } from '../zk/sanitizer';
import { AlterClientQuotasApi } from '../protocol/apis/alter-client-quotas';
import { ClientQuotaMatchType, DescribeClientQuotasApi, DescribeClientQuotasEntry } from '../protocol/apis/describe-client-quotas';
import { AlterUserScramCredentialsApi } from '../protocol/apis/alter-user-scram-credentials';
import { DescribeUserScramCredentialsApi } from '../protocol/apis/describe-user-scram-credentials';
import { CliError } from './cli';
import { scramDescriptionLines, scramUpsertion } from './user-scram-credential-command';
import { javaExceptionName } from './admin-client-config';
import { javaDouble, javaHashMapOrder, javaStringHash } from './java-rendering';

export interface ConfigCommandOptions {
  zookeeper?: string;
  bootstrapServer?: string;
  commandConfig?: string;
  entityType: string[];
  entityName: string[];
  entityDefault?: boolean;
  describe?: boolean;
  alter?: boolean;
  addConfig?: string;
  deleteConfig: string[];
  all?: boolean;
  /** --zk-tls-config-file: ZooKeeper TLS for the --zookeeper form (KIP-515). */
  zkTlsConfigFile?: string;
}

/** ConfigEntityName.Default: the znode name of the default entity. */
export const DEFAULT_ENTITY = '<default>';
const BROKER_LOGGERS = 'broker-loggers';
/** ConfigType.all (2.8), the entity types of the --zookeeper form; --bootstrap-server adds broker-loggers. */
const ZK_ENTITY_TYPES = ['topics', 'clients', 'users', 'brokers', 'ips'];

/**
 * A failure Kafka's ConfigCommand reports through its generic path ("Error while executing config command with
 * args ..." and the exception): the Java exception class and its message, printed on one line.
 */
export class ConfigCommandError extends Error {
  constructor(
    readonly exceptionClass: string,
    message: string,
  ) {
    super(message);
    this.name = 'ConfigCommandError';
  }
}


/** The exception a response's error code stands for, as the Java AdminClient raises it. */
export function errorFromCode(code: number, message: string | null): ConfigCommandError {
  const name = errorNameOf(code) ?? 'UNKNOWN_SERVER_ERROR';
  const text = message ?? (ErrorCode as Record<string, { message: string }>)[name]?.message ?? `Unknown error code ${code}`;
  return new ConfigCommandError(javaExceptionName(name), text);
}

/** Java's String.split(regex): trailing empty strings are dropped. */
function javaSplit(text: string, separator: RegExp): string[] {
  const parts = text.split(separator);
  while (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts.length === 1 && parts[0] === '' && text !== '' ? [] : parts;
}

/**
 * ConfigCommand.parseConfigsToBeAdded: `k1=v1,k2=[v2,v3]` split on the commas outside brackets, each pair on its
 * first `=` outside brackets (a value may be empty), brackets then removed from the value.
 */
export function parseConfigsToBeAdded(text: string): Map<string, string> {
  const outsideBrackets = '(?=[^\\]]*(?:\\[|$))';
  const props = new Map<string, string>();
  for (const pair of javaSplit(text, new RegExp(`,${outsideBrackets}`))) {
    const kv = pair.split(new RegExp(`\\s*=\\s*${outsideBrackets}`));
    if (kv.length !== 2) throw new CliError('Invalid entity config: all configs to be added must be in the format "key=val".');
    props.set((kv[0] as string).trim(), (kv[1] as string).replace(/[[\]]/g, '').trim());
  }
  return props;
}

/** ConfigCommand.parseConfigsToBeDeleted: the comma-separated names of every --delete-config, trimmed. */
export function parseConfigsToBeDeleted(values: readonly string[]): string[] {
  return values.flatMap((v) => v.split(',')).map((k) => k.trim());
}

/** ConfigCommand.Entity.toString: `topic 't'`, `client-id 'c'`, `default client-id`, `brokers '0'`. */
export function entityText(entityType: string, sanitizedName: string | undefined): string {
  const typeName = ({ users: 'user-principal', clients: 'client-id', topics: 'topic' } as Record<string, string>)[entityType] ?? entityType;
  if (sanitizedName === undefined) return typeName;
  if (sanitizedName === DEFAULT_ENTITY) return `default ${typeName}`;
  const name = entityType === 'users' || entityType === 'clients' ? desanitize(sanitizedName) : sanitizedName;
  return `${typeName} '${name}'`;
}

/** ConfigCommand.entityTypeSingular. */
function entityTypeSingular(entityType: string): string {
  return ({ topics: 'topic', brokers: 'broker', [BROKER_LOGGERS]: 'broker-logger', clients: 'client', users: 'user', ips: 'ip' } as Record<string, string>)[entityType] ?? entityType;
}

/** ConfigEntry.ConfigSource by DescribeConfigs' wire id. */
const CONFIG_SOURCES = ['UNKNOWN', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_BROKER_CONFIG', 'DYNAMIC_DEFAULT_BROKER_CONFIG', 'STATIC_BROKER_CONFIG', 'DEFAULT_CONFIG', 'DYNAMIC_BROKER_LOGGER_CONFIG'];

export function configSourceName(id: number): string {
  return CONFIG_SOURCES[id] ?? 'UNKNOWN';
}

/** One line of the --bootstrap-server describe: `  key=value sensitive=false synonyms={SOURCE:key=value, ...}`. */
export function formatConfigEntry(entry: DescribeConfigsResourceConfig): string {
  const synonyms = entry.synonyms.map((s) => `${configSourceName(s.source)}:${s.name}=${s.value ?? 'null'}`).join(', ');
  return `  ${entry.name}=${entry.value ?? 'null'} sensitive=${entry.isSensitive} synonyms={${synonyms}}`;
}

/** The ZooKeeper form's describe line: `Configs for topic 't' are k1=v1,k2=v2`. */
export function formatZkConfigs(entity: string, config: ReadonlyMap<string, string>): string {
  // SCRAM entries are printed in their stored form (salt and keys, never a password), as Kafka 2.8 does.
  return `Configs for ${entity} are ${[...config].map(([k, v]) => `${k}=${v}`).join(',')}`;
}

/** ConfigCommandOptions.checkArgs, with Kafka's messages (IllegalArgumentException: printed as they are). */
export function checkConfigCommandArgs(o: ConfigCommandOptions): void {
  const actions = [o.alter, o.describe].filter(Boolean).length;
  if (actions !== 1) throw new CliError('Command must include exactly one action: --describe, --alter');
  if (o.describe && (o.addConfig !== undefined || o.deleteConfig.length > 0)) {
    throw new CliError(`Option "[describe]" can't be used with option "[${o.addConfig !== undefined ? 'add-config' : 'delete-config'}]"`);
  }
  const types = o.entityType;
  const distinct = [...new Set(types)];
  if (types.length !== distinct.length) throw new CliError(`Duplicate entity type(s) specified: ${types.filter((t, i) => types.indexOf(t) !== i).join(',')}`);
  const [allowed, connect] = o.bootstrapServer !== undefined ? [[...ZK_ENTITY_TYPES, BROKER_LOGGERS], '--bootstrap-server'] : [ZK_ENTITY_TYPES, '--zookeeper'];
  for (const t of types) {
    if (!allowed.includes(t)) throw new CliError(`Invalid entity type ${t}, the entity type must be one of ${allowed.join(', ')} with the ${connect} argument`);
  }
  if (types.length === 0) throw new CliError('At least one entity type must be specified');
  if (types.length > 1) {
    if (!(types.length === 2 && types.includes('users') && types.includes('clients'))) throw new CliError("Only 'users' and 'clients' entity types may be specified together");
    // Kafka's <user, client-id> entities (users/<u>/clients/<c>) are not implemented here.
    throw new CliError('Combined users and clients entities (users/<user>/clients/<client-id>) are not supported by this tool');
  }
  if (o.entityName.length > 1 || (o.entityName.length > 0 && o.entityDefault)) throw new CliError('Exactly one entity name or --entity-default must be specified for each entity type');
  if (o.bootstrapServer === undefined && o.zookeeper === undefined) throw new CliError('One of the required --bootstrap-server or --zookeeper arguments must be specified');
  if (o.bootstrapServer !== undefined && o.zookeeper !== undefined) throw new CliError('Only one of --bootstrap-server or --zookeeper must be specified');
  if (o.all && o.zookeeper !== undefined) throw new CliError('--bootstrap-server must be specified for --all');
  if (o.zookeeper !== undefined && types.includes('ips')) throw new CliError('Invalid entity type ips, the entity type must be one of topics, clients, users, brokers with the --zookeeper argument');
  const type = types[0] as string;
  const name = o.entityName[0];
  const hasEntityName = name !== undefined && name !== '';
  const hasEntityDefault = o.entityDefault === true || name === '';
  if (hasEntityName && (type === 'brokers' || type === BROKER_LOGGERS) && !/^[+-]?\d+$/.test(name)) {
    throw new CliError(`The entity name for ${type} must be a valid integer broker id, but it is: ${name}`);
  }
  if (o.describe) {
    if (!['users', 'clients', 'brokers', 'ips'].includes(type) && o.entityDefault) throw new CliError(`--entity-default must not be specified with --describe of ${type}`);
    if (type === BROKER_LOGGERS && !hasEntityName) throw new CliError(`An entity name must be specified with --describe of ${type}`);
  }
  if (o.alter) {
    if (['users', 'clients', 'brokers', 'ips'].includes(type)) {
      if (!hasEntityName && !hasEntityDefault) throw new CliError('An entity-name or default entity must be specified with --alter of users, clients, brokers or ips');
    } else if (!hasEntityName) throw new CliError(`An entity name must be specified with --alter of ${type}`);
    if (o.addConfig === undefined && o.deleteConfig.length === 0) throw new CliError('At least one of --add-config, --add-config-file, or --delete-config must be specified with --alter');
  }
}

type Out = (line: string) => void;

/** The warning Kafka prints when --add-config sets message.format.version. */
function messageFormatWarning(added: ReadonlyMap<string, string>, out: Out): void {
  const v = added.get('message.format.version');
  if (v !== undefined) {
    out(`WARNING: The configuration message.format.version=${v} is specified. This configuration will be ignored if the version is newer than the inter.broker.protocol.version specified in the broker.`);
  }
}

/** Properties.toString / Scala's Seq.toString, as the ZooKeeper form's refusal messages print them. */
function propsText(p: ReadonlyMap<string, string>): string {
  return `{${[...p].map(([k, v]) => `${k}=${v}`).join(', ')}}`;
}

/** DynamicConfig.Client's keys (2.8) and those this broker applies. */
const CLIENT_QUOTA_KEYS = [defineKey('producer_byte_rate', 'long', '9223372036854775807'), defineKey('consumer_byte_rate', 'long', '9223372036854775807')];
const UNAPPLIED_CLIENT_KEYS = ['request_percentage', 'controller_mutation_rate'];
const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'];

/** ConfigCommand.DefaultScramIterations. */
const DEFAULT_SCRAM_ITERATIONS = 4096;

/** ConfigCommand.scramCredential: `[iterations=N,]password=P` -> the stored `salt=...,stored_key=...` form. */
export function scramCredentialConfig(mechanism: ScramMechanism, text: string): string {
  const m = /^(?:iterations=([0-9]*),)?password=(.*)$/s.exec(text);
  if (m === null) throw new CliError(`Invalid credential property ${mechanism}=${text}`);
  const iterations = m[1] !== undefined && m[1] !== '' ? Number(m[1]) : DEFAULT_SCRAM_ITERATIONS;
  const min = SCRAM_DEFS[mechanism].minIterations;
  if (iterations < min) throw new CliError(`Iterations ${iterations} is less than the minimum ${min} required for ${mechanism}`);
  return scramCredentialToString(generateScramCredential(mechanism, m[2] as string, iterations));
}

function wrapConfigException(err: unknown): never {
  if (err instanceof ConfigException) throw new ConfigCommandError('org.apache.kafka.common.config.ConfigException', err.message);
  if (err instanceof KafkaError) throw new ConfigCommandError(javaExceptionName(err.errorName), err.message);
  throw err;
}

/**
 * The --zookeeper form (ConfigCommand.alterConfigWithZk / describeConfigWithZk): reads and writes
 * /config/<type>/<name> itself, with AdminZkClient's validation and a /config/changes notification.
 */
export class ZkConfigCommand {
  constructor(
    private readonly admin: AdminZk,
    private readonly out: Out,
  ) {}

  async run(o: ConfigCommandOptions): Promise<void> {
    if (o.alter) await this.alter(o);
    else await this.describe(o);
  }

  private static sanitizedName(type: string, o: ConfigCommandOptions): string | undefined {
    const name = o.entityName[0];
    if (o.entityDefault || name === '') return DEFAULT_ENTITY;
    if (name === undefined) return undefined;
    return type === 'users' || type === 'clients' ? sanitize(name) : name;
  }

  private async describe(o: ConfigCommandOptions): Promise<void> {
    const type = o.entityType[0] as string;
    const name = ZkConfigCommand.sanitizedName(type, o);
    const names = name !== undefined ? [name] : await this.admin.getAllEntitiesWithConfig(type);
    for (const n of names) {
      const config = await this.admin.fetchEntityConfig(type, n);
      // When describing all users, users holding only <user, client-id> overrides are left out (as Kafka).
      if (config.size > 0 || !(type === 'users' && name === undefined)) this.out(formatZkConfigs(entityText(type, n), config));
    }
  }

  private async alter(o: ConfigCommandOptions): Promise<void> {
    const type = o.entityType[0] as string;
    const name = ZkConfigCommand.sanitizedName(type, o) as string;
    const added = o.addConfig === undefined ? new Map<string, string>() : parseConfigsToBeAdded(o.addConfig);
    messageFormatWarning(added, this.out);
    const deleted = parseConfigsToBeDeleted(o.deleteConfig);
    const refusal = `--bootstrap-server option must be specified to update ${type} configs: {add: ${propsText(added)}, delete: ${deleted.length === 0 ? 'List()' : `ArrayBuffer(${deleted.join(', ')})`}}`;
    if (type === 'users') {
      const keys = [...added.keys(), ...deleted];
      if (!keys.every((k) => SCRAM_MECHANISMS.includes(k))) throw new CliError(`requirement failed: ${refusal}. User configuration updates using ZooKeeper are only supported for SCRAM credential updates.`);
      // ConfigCommand.preProcessScramCredentials: the password becomes Kafka's stored credential form.
      for (const [mechanism, text] of added) added.set(mechanism, scramCredentialConfig(mechanism as ScramMechanism, text));
      const config = await this.admin.fetchEntityConfig(type, name);
      const invalid = deleted.filter((k) => !config.has(k));
      if (invalid.length > 0) throw new CliError(`Invalid config(s): ${invalid.join(',')}`);
      for (const [k, v] of added) config.set(k, v);
      for (const k of deleted) config.delete(k);
      await this.admin.changeUserConfig(name, config);
      this.out(`Completed updating config for entity: ${entityText(type, name)}.`);
      return;
    }
    if (type === 'brokers') {
      const info = 'Broker configuration operations using ZooKeeper are only supported if the affected broker(s) are not running.';
      const live = await this.admin.getLiveBrokerIds();
      if (name !== DEFAULT_ENTITY && live.includes(Number(name))) throw new CliError(`requirement failed: ${refusal} - broker ${Number(name)} is running. ${info}`);
      if (name === DEFAULT_ENTITY && live.length > 0) throw new CliError(`requirement failed: ${refusal} - ${live.length} brokers are running. ${info}`);
      // ConfigCommand.preProcessBrokerConfigs: password.encoder.* only encode this command's passwords and are
      // not stored; then AdminZkClient.changeBrokerConfig's validation. The broker reads /config/brokers when it starts.
      const encoderConfigs = new Map([...added].filter(([k]) => k.startsWith('password.encoder.')));
      for (const k of encoderConfigs.keys()) added.delete(k);
      try {
        validateDynamicBrokerKeys(added, name !== DEFAULT_ENTITY);
      } catch (err) {
        if (err instanceof KafkaError) throw new CliError(err.message);
        wrapConfigException(err);
      }
      const passwords = [...added.keys()].filter(isPasswordConfig);
      if (passwords.length > 0) {
        const secret = encoderConfigs.get('password.encoder.secret');
        if (secret === undefined) {
          throw new CliError(
            `requirement failed: password.encoder.secret must be specified to update Set(${passwords.join(', ')}). Other password encoder configs like cipher algorithm and iterations may also be specified to override the default encoding parameters. Password encoder configs will not be persisted in ZooKeeper.`,
          );
        }
        const int = (k: string): number | undefined => (encoderConfigs.has(k) ? Number(encoderConfigs.get(k)) : undefined);
        const encoder = new PasswordEncoder({
          secret,
          ...(encoderConfigs.has('password.encoder.cipher.algorithm') ? { cipherAlgorithm: encoderConfigs.get('password.encoder.cipher.algorithm') as string } : {}),
          ...(int('password.encoder.key.length') === undefined ? {} : { keyLength: int('password.encoder.key.length') as number }),
          ...(int('password.encoder.iterations') === undefined ? {} : { iterations: int('password.encoder.iterations') as number }),
        });
        for (const k of passwords) added.set(k, encoder.encode(added.get(k) as string));
      }
    }
    const config = await this.admin.fetchEntityConfig(type, name);
    const invalid = deleted.filter((k) => !config.has(k));
    if (invalid.length > 0) throw new CliError(`Invalid config(s): ${invalid.join(',')}`);
    for (const [k, v] of added) config.set(k, v);
    for (const k of deleted) config.delete(k);
    if (type === 'topics') {
      const nameError = topicNameError(name);
      if (nameError !== undefined) throw new ConfigCommandError('org.apache.kafka.common.errors.InvalidTopicException', nameError);
      if (!(await this.admin.topicExists(name))) throw new ConfigCommandError('org.apache.kafka.common.errors.UnknownTopicOrPartitionException', `Topic '${name}' does not exist.`);
      try {
        validateLogConfig(config);
      } catch (err) {
        // LogConfig.validateNames' InvalidConfigurationException is printed as it is; value errors go the generic way.
        if (err instanceof KafkaError && err.errorName === 'INVALID_CONFIG' && err.message.startsWith('Unknown topic config name')) throw new CliError(err.message);
        wrapConfigException(err);
      }
      await this.admin.changeTopicConfig(name, config);
    } else if (type === 'brokers') {
      await this.admin.changeBrokerConfig(name === DEFAULT_ENTITY ? undefined : Number(name), config);
    } else {
      // clients: DynamicConfig.Client.validate; the broker applies the two byte rates only.
      const unknown = [...config.keys()].filter((k) => !CLIENT_QUOTA_KEYS.some((d) => d.name === k) && !UNAPPLIED_CLIENT_KEYS.includes(k));
      if (unknown.length > 0) throw new CliError(`requirement failed: Unknown Dynamic Configuration: HashSet(${unknown.join(', ')}).`);
      const unapplied = [...added.keys()].filter((k) => UNAPPLIED_CLIENT_KEYS.includes(k));
      if (unapplied.length > 0) throw new CliError(`Client quotas other than producer_byte_rate and consumer_byte_rate are not supported by this broker; refused: ${unapplied.join(',')}`);
      try {
        for (const def of CLIENT_QUOTA_KEYS) if (config.has(def.name)) parseKey(def, config.get(def.name));
      } catch (err) {
        wrapConfigException(err);
      }
      await this.admin.changeClientIdConfig(name === DEFAULT_ENTITY ? name : desanitize(name), config);
    }
    this.out(`Completed updating config for entity: ${entityText(type, name)}.`);
  }
}

const RESOURCE = { topics: 2, brokers: 4, [BROKER_LOGGERS]: 8 } as Readonly<Record<string, number>>;
/** The config source an entity's own (dynamic) entries have: what --describe without --all shows. */
const DYNAMIC_SOURCE = { topics: 1, brokers: 2, brokersDefault: 3 } as const;

/**
 * The --bootstrap-server form (ConfigCommand.processCommand): topics through DescribeConfigs and
 * IncrementalAlterConfigs, brokers through DescribeConfigs and AlterConfigs; client, user and ip quotas through
 * DescribeClientQuotas/AlterClientQuotas (ClientQuotaCommand).
 */
export class KafkaConfigCommand {
  constructor(
    private readonly client: NetworkClient,
    private readonly out: Out,
  ) {}

  async run(o: ConfigCommandOptions): Promise<void> {
    const type = o.entityType[0] as string;
    if (type in QUOTA_ENTITY_TYPES) {
      const quotas = new ClientQuotaCommand(this.client, this.out);
      if (o.alter) await quotas.alter(o, type);
      else await quotas.describe(o, type);
      return;
    }
    if (o.alter) await this.alter(o, type);
    else await this.describe(o, type);
  }

  private async describeResource(type: string, name: string, includeSynonyms: boolean, all: boolean): Promise<DescribeConfigsResourceConfig[]> {
    if (type === 'topics' && name !== '') {
      const nameError = topicNameError(name);
      if (nameError !== undefined) throw new ConfigCommandError('org.apache.kafka.common.errors.InvalidTopicException', nameError);
    }
    const resourceType = RESOURCE[type] as number;
    const target = resourceType === 2 || name === '' ? 'any' : Number(name);
    if (typeof target === 'number') await this.client.refreshMetadata();
    const r = await this.client.request(target, DescribeConfigsApi, { resources: [{ resourceType, resourceName: name, configurationKeys: null }], includeSynonyms });
    const result = r.results[0];
    if (result === undefined) throw new ConfigCommandError('org.apache.kafka.common.errors.UnknownServerException', 'No result in the DescribeConfigs response');
    if (result.errorCode !== ErrorCode.NONE.code) throw errorFromCode(result.errorCode, result.errorMessage);
    const source = type === 'topics' ? DYNAMIC_SOURCE.topics : type === 'brokers' ? (name === '' ? DYNAMIC_SOURCE.brokersDefault : DYNAMIC_SOURCE.brokers) : undefined;
    // The AdminClient's Config keeps its entries in a HashMap: the tool prints them in that map's order.
    return javaHashMapOrder(result.configs, (c) => javaStringHash(c.name)).filter((c) => all || source === undefined || c.configSource === source);
  }

  private async describe(o: ConfigCommandOptions, type: string): Promise<void> {
    let names: string[];
    if (o.entityDefault || o.entityName[0] === '') names = [''];
    else if (o.entityName[0] !== undefined) names = [o.entityName[0]];
    else if (type === 'topics') {
      const md = await this.client.request('any', MetadataApi, { topics: null, allowAutoTopicCreation: false });
      names = md.topics.map((t) => t.name).sort();
    } else {
      await this.client.refreshMetadata();
      names = [...[...this.client.metadata.brokers.keys()].sort((a, b) => a - b).map(String), ''];
    }
    for (const name of names) {
      if (name === '') this.out(`Default configs for ${type} in the cluster are:`);
      else this.out(`${o.all ? 'All' : 'Dynamic'} configs for ${entityTypeSingular(type)} ${name} are:`);
      for (const entry of await this.describeResource(type, name, true, o.all === true)) this.out(formatConfigEntry(entry));
    }
  }

  private async alter(o: ConfigCommandOptions, type: string): Promise<void> {
    const name = o.entityDefault ? '' : (o.entityName[0] as string);
    const added = o.addConfig === undefined ? new Map<string, string>() : parseConfigsToBeAdded(o.addConfig);
    messageFormatWarning(added, this.out);
    const deleted = parseConfigsToBeDeleted(o.deleteConfig);
    const resourceType = RESOURCE[type] as number;
    const old = await this.describeResource(type, name, type === BROKER_LOGGERS, false);
    if (type === BROKER_LOGGERS) {
      // Kafka's tool checks every named logger against the broker's list before sending anything.
      const invalidLoggers = [...deleted, ...added.keys()].filter((k) => !old.some((c) => c.name === k));
      if (invalidLoggers.length > 0) throw new CliError(`Invalid broker logger(s): ${invalidLoggers.join(',')}`);
    }
    const invalid = type === BROKER_LOGGERS ? [] : deleted.filter((k) => !old.some((c) => c.name === k));
    if (invalid.length > 0) throw new CliError(`Invalid config(s): ${invalid.join(',')}`);
    const target = type === 'topics' || name === '' ? 'any' : Number(name);
    let responses: { errorCode: number; errorMessage: string | null }[];
    if (type === 'brokers') {
      // Kafka's tool sends brokers the whole new set through (legacy) AlterConfigs.
      const entries = new Map(old.map((c) => [c.name, c.value]));
      for (const [k, v] of added) entries.set(k, v);
      for (const k of deleted) entries.delete(k);
      const missing = [...entries].filter(([, v]) => v === null).map(([k]) => k);
      if (missing.length > 0) throw new CliError(`All sensitive broker config entries must be specified for --alter, missing entries: Set(${missing.join(', ')})`);
      const configs = [...entries].map(([k, v]) => ({ name: k, value: v }));
      responses = (await this.client.request(target, AlterConfigsApi, { resources: [{ resourceType, resourceName: name, configs }], validateOnly: false })).responses;
    } else {
      const configs = [...[...added].map(([k, v]) => ({ name: k, configOperation: OP_SET, value: v })), ...deleted.map((k) => ({ name: k, configOperation: OP_DELETE, value: '' }))];
      try {
        responses = (await this.client.request(target, IncrementalAlterConfigsApi, { resources: [{ resourceType, resourceName: name, configs }], validateOnly: false })).responses;
      } catch (err) {
        if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') throw new ConfigCommandError(javaExceptionName('UNSUPPORTED_VERSION'), 'The broker does not support INCREMENTAL_ALTER_CONFIGS');
        throw err;
      }
    }
    const r = responses[0];
    if (r !== undefined && r.errorCode !== ErrorCode.NONE.code) throw errorFromCode(r.errorCode, r.errorMessage);
    if (name === '') this.out(`Completed updating default config for ${type} in the cluster.`);
    else this.out(`Completed updating config for ${entityTypeSingular(type)} ${name}.`);
  }
}

/** ConfigType to ClientQuotaEntity's entity type. */
const QUOTA_ENTITY_TYPES: Readonly<Record<string, string>> = { users: 'user', clients: 'client-id', ips: 'ip' };
/** QuotaConfigs.isClientOrUserQuotaConfig and DynamicConfig.Ip.names (2.8). */
const USER_CLIENT_QUOTA_KEYS = ['producer_byte_rate', 'consumer_byte_rate', 'request_percentage', 'controller_mutation_rate'];
const IP_QUOTA_KEYS = ['connection_creation_rate'];

/** Java's Double.parseDouble on a quota value (whitespace trimmed; NaN, Infinity and a d/f suffix accepted). */
export function parseJavaDouble(text: string): number | undefined {
  const s = text.trim();
  if (!/^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?)$/.test(s)) return undefined;
  const n = s.replace(/[fFdD]$/, '');
  return /NaN$/.test(n) ? NaN : Number(n);
}

/** Java's Map.Entry hashCode summed: ClientQuotaEntity.hashCode (its entries map's). */
function quotaEntityHash(entry: DescribeClientQuotasEntry): number {
  let h = 0;
  for (const e of entry.entity) h = (h + (javaStringHash(e.entityType) ^ (e.entityName === null ? 0 : javaStringHash(e.entityName)))) | 0;
  return h;
}

/**
 * ConfigCommand.describeQuotaConfigs' lines, in the order the Java AdminClient's result maps iterate:
 * `Quota configs for client-id 'c' are producer_byte_rate=1024.0` (`the default client-id` for the default;
 * user-principal before client-id before ip; values as Java doubles).
 */
export function formatQuotaEntries(entries: readonly DescribeClientQuotasEntry[]): string[] {
  const typeNames: Readonly<Record<string, string>> = { user: 'user-principal', 'client-id': 'client-id', ip: 'ip' };
  return javaHashMapOrder(entries, quotaEntityHash, entries.length).map((entry) => {
    const entity = ['user', 'client-id', 'ip']
      .flatMap((type) => entry.entity.filter((e) => e.entityType === type).slice(-1))
      .map((e) => (e.entityName !== null ? `${typeNames[e.entityType]} '${e.entityName}'` : `the default ${typeNames[e.entityType]}`))
      .join(', ');
    const values = javaHashMapOrder(entry.values, (v) => javaStringHash(v.key), entry.values.length)
      .map((v) => `${v.key}=${javaDouble(v.value)}`)
      .join(', ');
    return `Quota configs for ${entity} are ${values}`;
  });
}

/** Scala's Iterable.toString for the tool's refusal messages. */
function scalaList(kind: string, items: readonly string[]): string {
  return `${kind}(${items.join(', ')})`;
}

/**
 * kafka-configs --bootstrap-server for --entity-type clients, users and ips (ConfigCommand's quota paths):
 * describe with a strict filter (the named entity, the default for --entity-default, every entity of the type
 * otherwise); alter reads the entity's quotas, refuses deleting a key it does not have, and sends the additions
 * and removals as one AlterClientQuotas entry. Users' SCRAM credentials go through DescribeUserScramCredentials /
 * AlterUserScramCredentials (user-scram-credential-command.ts), never mixed with quotas in one alteration.
 */
export class ClientQuotaCommand {
  constructor(
    private readonly client: NetworkClient,
    private readonly out: Out,
  ) {}

  private async quotas(type: string, name: string | undefined): Promise<DescribeClientQuotasEntry[]> {
    const entityType = QUOTA_ENTITY_TYPES[type] as string;
    const component =
      name === undefined
        ? { entityType, matchType: ClientQuotaMatchType.SPECIFIED, match: null }
        : name === ''
          ? { entityType, matchType: ClientQuotaMatchType.DEFAULT, match: null }
          : { entityType, matchType: ClientQuotaMatchType.EXACT, match: name };
    let r;
    try {
      r = await this.client.request('any', DescribeClientQuotasApi, { components: [component], strict: true });
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') throw new ConfigCommandError(javaExceptionName('UNSUPPORTED_VERSION'), 'The broker does not support DESCRIBE_CLIENT_QUOTAS');
      throw err;
    }
    if (r.errorCode !== ErrorCode.NONE.code) throw errorFromCode(r.errorCode, r.errorMessage);
    return r.entries ?? [];
  }

  private static entityName(o: ConfigCommandOptions): string | undefined {
    return o.entityDefault ? '' : o.entityName[0];
  }

  async describe(o: ConfigCommandOptions, type: string): Promise<void> {
    const name = ClientQuotaCommand.entityName(o);
    for (const line of formatQuotaEntries(await this.quotas(type, name))) this.out(line);
    // SCRAM credentials are described for users only, and not for --entity-default.
    if (type !== 'users' || name === '') return;
    let r;
    try {
      r = await this.client.request('any', DescribeUserScramCredentialsApi, { users: name === undefined ? [] : [{ name }] });
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') throw new ConfigCommandError(javaExceptionName('UNSUPPORTED_VERSION'), 'The broker does not support DESCRIBE_USER_SCRAM_CREDENTIALS');
      throw err;
    }
    if (r.errorCode !== ErrorCode.NONE.code) throw errorFromCode(r.errorCode, r.errorMessage);
    for (const line of scramDescriptionLines(r)) this.out(line);
  }

  /** alterUserScramCredentialConfigs: one request to the controller; the first failure is the tool's error. */
  private async alterScram(user: string, added: ReadonlyMap<string, string>, deleted: readonly string[]): Promise<void> {
    const deletions = deleted.map((m) => ({ name: user, mechanism: SCRAM_MECHANISM_TYPES[m as ScramMechanism] }));
    const upsertions = [...added].map(([m, text]) => scramUpsertion(user, m as ScramMechanism, text));
    let r;
    try {
      r = await this.client.request('controller', AlterUserScramCredentialsApi, { deletions, upsertions });
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') throw new ConfigCommandError(javaExceptionName('UNSUPPORTED_VERSION'), 'The broker does not support ALTER_USER_SCRAM_CREDENTIALS');
      throw err;
    }
    const failed = r.results.find((x) => x.errorCode !== ErrorCode.NONE.code);
    if (failed !== undefined) throw errorFromCode(failed.errorCode, failed.errorMessage);
  }

  async alter(o: ConfigCommandOptions, type: string): Promise<void> {
    const name = ClientQuotaCommand.entityName(o) as string;
    const added = o.addConfig === undefined ? new Map<string, string>() : parseConfigsToBeAdded(o.addConfig);
    const deleted = parseConfigsToBeDeleted(o.deleteConfig);
    const keys = type === 'ips' ? IP_QUOTA_KEYS : USER_CLIENT_QUOTA_KEYS;
    const unknownAdded = [...added.keys()].filter((k) => !keys.includes(k));
    const unknownDeleted = deleted.filter((k) => !keys.includes(k));
    if (type === 'ips') {
      const unknown = [...unknownAdded, ...unknownDeleted];
      if (unknown.length > 0) throw new CliError(`Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: ${unknown.join(',')}`);
    } else if (type === 'clients') {
      if (unknownAdded.length > 0) throw new CliError(`Only quota configs can be added for 'clients' using --bootstrap-server. Unexpected config names: ${scalaList('Set', unknownAdded)}`);
      if (unknownDeleted.length > 0) throw new CliError(`Only quota configs can be deleted for 'clients' using --bootstrap-server. Unexpected config names: ${scalaList('List', unknownDeleted)}`);
    } else {
      const scram = [...added.keys(), ...deleted].filter((k) => SCRAM_MECHANISMS.includes(k));
      const addedOther = unknownAdded.filter((k) => !SCRAM_MECHANISMS.includes(k));
      const deletedOther = unknownDeleted.filter((k) => !SCRAM_MECHANISMS.includes(k));
      if (addedOther.length > 0) throw new CliError(`Only quota and SCRAM credential configs can be added for 'users' using --bootstrap-server. Unexpected config names: ${scalaList('Set', addedOther)}`);
      if (deletedOther.length > 0) throw new CliError(`Only quota and SCRAM credential configs can be deleted for 'users' using --bootstrap-server. Unexpected config names: ${scalaList('List', deletedOther)}`);
      if (scram.length > 0) {
        if (name === '') throw new CliError('The use of --entity-default or --user-defaults is not allowed with User SCRAM Credentials using --bootstrap-server.');
        if (scram.length !== added.size + deleted.length) throw new CliError("Cannot alter both quota and SCRAM credential configs simultaneously for 'users' using --bootstrap-server.");
        await this.alterScram(name, added, deleted);
        this.out(`Completed updating config for user ${name}.`);
        return;
      }
    }
    // alterQuotaConfigs: the entity's current quotas, then one alteration.
    const old = (await this.quotas(type, name))[0]?.values ?? [];
    const invalid = deleted.filter((k) => !old.some((v) => v.key === k));
    if (invalid.length > 0) throw new CliError(`Invalid config(s): ${invalid.join(',')}`);
    const ops = [...added].map(([key, text]) => {
      const value = parseJavaDouble(text);
      if (value === undefined) throw new CliError(`Cannot parse quota configuration value for ${key}: ${text}`);
      return { key, value, remove: false };
    });
    for (const key of deleted) ops.push({ key, value: 0, remove: true });
    const entity = [{ entityType: QUOTA_ENTITY_TYPES[type] as string, entityName: name === '' ? null : name }];
    let r;
    try {
      r = await this.client.request('any', AlterClientQuotasApi, { entries: [{ entity, ops }], validateOnly: false });
    } catch (err) {
      if (err instanceof KafkaError && err.errorName === 'UNSUPPORTED_VERSION') throw new ConfigCommandError(javaExceptionName('UNSUPPORTED_VERSION'), 'The broker does not support ALTER_CLIENT_QUOTAS');
      throw err;
    }
    const e = r.entries[0];
    if (e !== undefined && e.errorCode !== ErrorCode.NONE.code) throw errorFromCode(e.errorCode, e.errorMessage);
    if (name === '') this.out(`Completed updating default config for ${type} in the cluster.`);
    else this.out(`Completed updating config for ${type.slice(0, -1)} ${name}.`);
  }
}
