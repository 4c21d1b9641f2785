import { ConfigKey, ConfigType, ConfigValue, valueText } from '../../common/config/config-def';
import { ConfigSynonym, CONFIG_SOURCE, DynamicBrokerConfig, ALL_DYNAMIC_CONFIGS, listenerPrefixedKey, TOPIC_CONFIG_SYNONYMS } from '../../common/config/dynamic-broker-config';
import { KAFKA_CONFIG_DEFS } from '../../common/config/kafka-config-defs';
import { LOG_CONFIG_DEFS, LogConfig } from '../../common/config/log-config';
import { ErrorCode } from '../../common/error-codes';
import { currentLoggerLevels } from '../../common/logging/logging';
import { topicNameError } from '../../common/topic';
import { DescribeConfigsRequest, DescribeConfigsResourceConfig, DescribeConfigsResponse } from '../../protocol/apis/describe-configs';
import { ApiHandler } from '../network/api-handler';
import { configsAuthorizationError } from './alter-configs';
import { HandlerContext } from './handler-context';

const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;
const BROKER_DEFS = new Map<string, ConfigKey>(KAFKA_CONFIG_DEFS.map((d) => [d.name, d]));

/** DescribeConfigsResponse.ConfigType by ConfigDef type (ZkAdminManager.configResponseType). */
const CONFIG_TYPE: Readonly<Record<ConfigType, number>> = { boolean: 1, string: 2, int: 3, short: 4, long: 5, double: 6, list: 7, class: 8, password: 9 };

interface EntryInput {
  readonly name: string;
  readonly def: ConfigKey | undefined;
  readonly value: string | null;
  readonly synonyms: ConfigSynonym[];
  readonly readOnly: boolean;
}

/** KafkaConfig.maybeSensitive: a password, or a key of no known type. */
function isSensitive(def: ConfigKey | undefined): boolean {
  return def === undefined || def.type === 'password';
}

/**
 * One DescribeConfigs entry: the source is the first synonym's (DEFAULT_CONFIG when there is none), is_default
 * (v0) says DEFAULT_CONFIG, synonyms only when asked for. No documentation text is kept in this broker: null.
 */
function entry(e: EntryInput, includeSynonyms: boolean): DescribeConfigsResourceConfig {
  const source = e.synonyms[0]?.source ?? CONFIG_SOURCE.DEFAULT_CONFIG;
  return {
    name: e.name,
    value: isSensitive(e.def) ? null : e.value,
    readOnly: e.readOnly,
    isDefault: source === CONFIG_SOURCE.DEFAULT_CONFIG,
    configSource: source,
    isSensitive: isSensitive(e.def),
    synonyms: includeSynonyms ? e.synonyms : [],
    configType: e.def === undefined ? 0 : CONFIG_TYPE[e.def.type],
    documentation: null,
  };
}

/**
 * ZkAdminManager.createTopicConfigEntry: a topic key's synonyms are the topic override (DYNAMIC_TOPIC_CONFIG),
 * then its broker synonym's chain (this broker's dynamic config, the dynamic default, server.properties,
 * Kafka's default).
 */
export function topicConfigEntries(config: LogConfig, overrides: ReadonlyMap<string, string>, dynamic: DynamicBrokerConfig, includeSynonyms: boolean): DescribeConfigsResourceConfig[] {
  return LOG_CONFIG_DEFS.map((def) => {
    const value = config.originals[def.name];
    const sensitive = isSensitive(def);
    const brokerSynonym = TOPIC_CONFIG_SYNONYMS[def.name];
    const synonyms = brokerSynonym === undefined ? [] : dynamic.configSynonyms(brokerSynonym, sensitive);
    if (overrides.has(def.name)) synonyms.unshift({ name: def.name, value: sensitive ? null : value, source: CONFIG_SOURCE.DYNAMIC_TOPIC_CONFIG });
    return entry({ name: def.name, def, value, synonyms, readOnly: false }, includeSynonyms);
  });
}

/**
 * ZkAdminManager.createBrokerConfigEntry. For this broker's id: every key with its current value (static,
 * dynamic default and per-broker merged) plus the unknown keys of server.properties; for "" (the cluster
 * default): the `<default>` entries only, whose synonyms leave out the per-broker source. Dynamic keys are not
 * read-only.
 */
export function brokerConfigEntries(dynamic: DynamicBrokerConfig, perBrokerConfig: boolean, includeSynonyms: boolean): DescribeConfigsResourceConfig[] {
  const values = new Map<string, string | null>();
  if (perBrokerConfig) {
    const config = dynamic.current;
    for (const [name, value] of config.originals) if (!BROKER_DEFS.has(name)) values.set(name, value);
    for (const [name, def] of BROKER_DEFS) values.set(name, valueText(def, (config.values.get(name) ?? null) as ConfigValue));
  } else {
    for (const [name, value] of dynamic.currentDynamicDefaultConfigs) values.set(name, value);
  }
  return [...values].map(([name, value]) => {
    // KafkaConfig.configType: a listener key has its base key's type (a mechanism's JAAS entry is a password).
    const prefixed = listenerPrefixedKey(name);
    const base = prefixed === undefined ? name : prefixed.key.endsWith('.sasl.jaas.config') ? 'sasl.jaas.config' : prefixed.key;
    const def = BROKER_DEFS.get(name) ?? BROKER_DEFS.get(base);
    let synonyms = dynamic.configSynonyms(name, isSensitive(def));
    if (!perBrokerConfig) synonyms = synonyms.filter((s) => s.source !== CONFIG_SOURCE.DYNAMIC_BROKER_CONFIG);
    return entry({ name, def, value, synonyms, readOnly: !ALL_DYNAMIC_CONFIGS.has(name) }, includeSynonyms);
  });
}

/**
 * ZkAdminManager.describeConfigs for BROKER_LOGGER: each logger with its level (Log4jController.loggers), source
 * DYNAMIC_BROKER_LOGGER_CONFIG, neither sensitive nor read-only, no synonyms, type UNKNOWN.
 */
export function brokerLoggerEntries(): DescribeConfigsResourceConfig[] {
  return [...currentLoggerLevels()].map(([name, value]) => ({
    name,
    value,
    readOnly: false,
    isDefault: false,
    configSource: CONFIG_SOURCE.DYNAMIC_BROKER_LOGGER_CONFIG,
    isSensitive: false,
    synonyms: [],
    configType: 0,
    documentation: null,
  }));
}

/**
 * DescribeConfigs (ZkAdminManager.describeConfigs) for topics (the LogConfig on the broker's current defaults
 * with /config/topics overrides), for brokers (this broker's id, or "" for the cluster-wide dynamic default) and for
 * this broker's loggers (BROKER_LOGGER),
 * sources and synonyms as Kafka 2.8 reports them. configuration_keys narrows the entries.
 */
export function createDescribeConfigsHandler(ctx: HandlerContext): ApiHandler<DescribeConfigsRequest, DescribeConfigsResponse> {
  return async (request, context) => {
    const results: DescribeConfigsResponse['results'] = [];
    for (const r of request.resources) {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const keys = r.configurationKeys;
      const wanted = (c: DescribeConfigsResourceConfig): boolean => keys === null || keys.includes(c.name);
      const fail = (code: number, message: string | null): void => {
        results.push({ errorCode: code, errorMessage: message, ...base, configs: [] });
      };
      const refused = configsAuthorizationError(ctx, context, 'DESCRIBE_CONFIGS', r);
      if (refused !== undefined) {
        fail(refused, null);
      } else if (r.resourceType === TOPIC) {
        // Kafka's describeConfigs starts with Topic.validate.
        const nameError = topicNameError(r.resourceName);
        if (nameError !== undefined) {
          fail(ErrorCode.INVALID_TOPIC_EXCEPTION.code, nameError);
          continue;
        }
        const overrides = await ctx.adminZk.getTopicConfig(r.resourceName);
        if (!(await ctx.adminZk.topicExists(r.resourceName))) {
          fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code, `Topic ${r.resourceName} does not exist.`);
          continue;
        }
        const config = await ctx.logConfigFor(r.resourceName);
        const configs = topicConfigEntries(config, overrides, ctx.dynamicBrokerConfig, request.includeSynonyms).filter(wanted);
        results.push({ errorCode: ErrorCode.NONE.code, errorMessage: null, ...base, configs });
      } else if (r.resourceType === BROKER) {
        const name = r.resourceName;
        if (name !== '' && (!/^[+-]?\d+$/.test(name) || !Number.isSafeInteger(Number(name)) || Math.abs(Number(name)) > 2147483647)) {
          fail(ErrorCode.INVALID_REQUEST.code, `Broker id must be an integer, but it is: ${name}`);
        } else if (name !== '' && Number(name) !== ctx.brokerId) {
          fail(ErrorCode.INVALID_REQUEST.code, `Unexpected broker id, expected ${ctx.brokerId} or empty string, but received ${name}`);
        } else {
          const configs = brokerConfigEntries(ctx.dynamicBrokerConfig, name !== '', request.includeSynonyms).filter(wanted);
          results.push({ errorCode: ErrorCode.NONE.code, errorMessage: null, ...base, configs });
        }
      } else if (r.resourceType === BROKER_LOGGER) {
        const name = r.resourceName;
        if (name === '') {
          fail(ErrorCode.INVALID_REQUEST.code, 'Broker id must not be empty');
        } else if (!/^[+-]?\d+$/.test(name) || !Number.isSafeInteger(Number(name)) || Math.abs(Number(name)) > 2147483647) {
          fail(ErrorCode.INVALID_REQUEST.code, `Broker id must be an integer, but it is: ${name}`);
        } else if (Number(name) !== ctx.brokerId) {
          fail(ErrorCode.INVALID_REQUEST.code, `Unexpected broker id, expected ${ctx.brokerId} but received ${name}`);
        } else {
          results.push({ errorCode: ErrorCode.NONE.code, errorMessage: null, ...base, configs: brokerLoggerEntries().filter(wanted) });
        }
      } else {
        fail(ErrorCode.INVALID_REQUEST.code, `Unsupported resource type ${r.resourceType} or name ${r.resourceName}`);
      }
    }
    return { throttleTimeMs: 0, results };
  };
}
