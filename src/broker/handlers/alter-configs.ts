import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { SerialQueue } from '../../common/serial-queue';
import { ConfigException } from '../../common/config/config-def';
import { applyIncrementalConfigOps, checkConfigOps, ConfigOp, opTypeName } from '../../common/config/incremental-config-ops';
import { validateLogConfig } from '../../common/config/log-config';
import { applyLogLevelOps, validateLogLevelOps } from '../../common/logging/broker-logger-config';
import { KAFKA_CONFIG_DEFS } from '../../common/config/kafka-config-defs';
import { topicNameError } from '../../common/topic';
import { AlterConfigsRequest, AlterConfigsResponse } from '../../protocol/apis/alter-configs';
import { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from '../../protocol/apis/incremental-alter-configs';
import { ApiHandler, RequestContext } from '../network/api-handler';
import { authorize, authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.ZkAdminManager');

/** ConfigResource.Type by wire id; any other id is Kafka's UNKNOWN. */
const RESOURCE_TYPES: Readonly<Record<number, string>> = { 2: 'TOPIC', 4: 'BROKER', 8: 'BROKER_LOGGER' };
const TOPIC = 2;
const BROKER = 4;
const BROKER_LOGGER = 8;

interface Resource {
  readonly resourceType: number;
  readonly resourceName: string;
}

interface ResourceResult extends Resource {
  errorCode: number;
  errorMessage: string | null;
}

/** ConfigResource.toString, as Kafka's messages print a resource. */
export function configResourceText(r: Resource): string {
  return `ConfigResource(type=${RESOURCE_TYPES[r.resourceType] ?? 'UNKNOWN'}, name='${r.resourceName}')`;
}

/**
 * The error every resource of a request gets when KafkaApis refuses the request as a whole: a resource type it
 * does not know ("Unexpected resource type UNKNOWN"), or, for AlterConfigs, BROKER_LOGGER.
 */
function requestError(resources: readonly Resource[], allowed: readonly number[], api: string): string | undefined {
  for (const r of resources) {
    if (r.resourceType === BROKER_LOGGER && !allowed.includes(BROKER_LOGGER)) return `${api} is deprecated and does not support the resource type BROKER_LOGGER`;
    if (!allowed.includes(r.resourceType)) return `Unexpected resource type ${RESOURCE_TYPES[r.resourceType] ?? 'UNKNOWN'}`;
  }
  return undefined;
}

/** Kafka's getBrokerId: "" is the cluster-wide default, else this broker's own id. */
function checkBrokerId(ctx: HandlerContext, name: string): void {
  if (name === '') return;
  if (!/^[+-]?\d+$/.test(name) || !Number.isSafeInteger(Number(name)) || Math.abs(Number(name)) > 2147483647) {
    throw new KafkaError('INVALID_REQUEST', `Broker id must be an integer, but it is: ${name}`);
  }
  if (Number(name) !== ctx.brokerId) throw new KafkaError('INVALID_REQUEST', `Unexpected broker id, expected ${ctx.brokerId}, but received ${name}`);
}

/**
 * AlterConfigs and IncrementalAlterConfigs (Kafka's ZkAdminManager.alterConfigs / incrementalAlterConfigs) for
 * BROKER_LOGGER resources (IncrementalAlterConfigs only: this broker's logger levels, see broker-logger-config.ts),
 * BROKER resources (this broker's id, or "" for the cluster default: see alterBroker) and TOPIC resources: the new override set is validated as LogConfig.validate does, then written to
 * /config/topics/<topic> with a /config/changes notification (AdminZk.changeTopicConfig), which every broker's
 * DynamicConfigManager applies to its logs. validate_only stops after the validation. One queue serialises the
 * read-modify-write of incremental changes on this broker.
 */
export function createAlterConfigsHandlers(ctx: HandlerContext): {
  alterConfigs: ApiHandler<AlterConfigsRequest, AlterConfigsResponse>;
  incrementalAlterConfigs: ApiHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>;
} {
  const writes = new SerialQueue();

  async function alterTopic(resource: Resource, overrides: Map<string, string>, validateOnly: boolean): Promise<void> {
    const topic = resource.resourceName;
    if (!ctx.metadataCache.contains(topic)) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `The topic '${topic}' does not exist.`);
    // AdminZkClient.validateTopicConfig: Topic.validate, the topic in ZooKeeper, LogConfig.validate.
    const nameError = topicNameError(topic);
    if (nameError !== undefined) throw new KafkaError('INVALID_TOPIC_EXCEPTION', nameError);
    if (!(await ctx.adminZk.topicExists(topic))) throw new KafkaError('UNKNOWN_TOPIC_OR_PARTITION', `Topic '${topic}' does not exist.`);
    validateLogConfig(overrides);
    if (validateOnly) return;
    log.info(`Updating topic ${topic} with new configuration : ${[...overrides].map(([k, v]) => `${k} -> ${v}`).join(',')}`);
    await ctx.adminZk.changeTopicConfig(topic, overrides);
  }

  /**
   * ZkAdminManager.alterBrokerConfigs: the resource's whole new set is validated (DynamicBrokerConfig.validate:
   * per broker over the dynamic default, or at the default under the per-broker set), then written to
   * /config/brokers/<id> or /config/brokers/<default> with its notification, passwords encoded
   * (toPersistentProps); validate_only stops before writing.
   */
  async function alterBroker(resource: Resource, props: Map<string, string>, validateOnly: boolean): Promise<void> {
    const perBrokerConfig = resource.resourceName !== '';
    ctx.dynamicBrokerConfig.validate(props, perBrokerConfig);
    if (validateOnly) return;
    // Passwords go to ZooKeeper encoded with password.encoder.secret (refused without one).
    await ctx.adminZk.changeBrokerConfig(perBrokerConfig ? ctx.brokerId : undefined, ctx.dynamicBrokerConfig.toPersistentProps(props, perBrokerConfig));
  }

  /** Runs one resource's change; Kafka's catch blocks turn what it throws into the resource's error. */
  async function outcome(resource: Resource, describe: () => string, change: () => Promise<void>): Promise<ResourceResult> {
    const base = { resourceType: resource.resourceType, resourceName: resource.resourceName };
    try {
      await change();
      return { ...base, errorCode: ErrorCode.NONE.code, errorMessage: null };
    } catch (err) {
      if (err instanceof ConfigException) {
        const message = `Invalid config value for resource ${configResourceText(resource)}: ${err.message}`;
        log.info(message);
        return { ...base, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: message };
      }
      const message = `Error processing alter configs request for resource ${configResourceText(resource)}, config ${describe()}`;
      if (err instanceof KafkaError) {
        log.info(`${message}: ${err.message}`);
        return { ...base, errorCode: err.code, errorMessage: err.message };
      }
      log.error(message, err);
      return { ...base, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: ErrorCode.UNKNOWN_SERVER_ERROR.message };
    }
  }

  /** Every entry of a resource named twice is refused (Kafka's ConfigAdminManager); the rest go on. */
  function duplicates(resources: readonly Resource[]): Set<string> {
    const seen = new Map<string, number>();
    for (const r of resources) seen.set(`${r.resourceType}/${r.resourceName}`, (seen.get(`${r.resourceType}/${r.resourceName}`) ?? 0) + 1);
    return new Set([...seen].filter(([, n]) => n > 1).map(([k]) => k));
  }

  async function answer<R extends Resource>(context: RequestContext, resources: readonly R[], allowed: readonly number[], api: string, one: (r: R) => Promise<ResourceResult>): Promise<ResourceResult[]> {
    const whole = requestError(resources, allowed, api);
    if (whole !== undefined) {
      return resources.map((r) => ({ resourceType: r.resourceType, resourceName: r.resourceName, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: whole }));
    }
    const dup = duplicates(resources);
    const results: ResourceResult[] = [];
    for (const r of resources) {
      const refused = configsAuthorizationError(ctx, context, 'ALTER_CONFIGS', r);
      if (refused !== undefined) {
        results.push({ resourceType: r.resourceType, resourceName: r.resourceName, errorCode: refused, errorMessage: null });
      } else if (dup.has(`${r.resourceType}/${r.resourceName}`)) {
        results.push({ resourceType: r.resourceType, resourceName: r.resourceName, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: 'Each resource must appear at most once.' });
      } else {
        results.push(await writes.run(() => one(r)));
      }
    }
    return results;
  }

  return {
    alterConfigs: async (request, context) => {
      const responses = await answer(context, request.resources, [TOPIC, BROKER], 'AlterConfigs', (r) =>
        outcome(r, () => r.configs.filter((c) => c.value !== null).map((c) => `${c.name}=${c.value}`).join(','), async () => {
          const nulls = r.configs.filter((c) => c.value === null).map((c) => c.name);
          if (nulls.length > 0) throw new KafkaError('INVALID_REQUEST', `Null value not supported for : ${nulls.join(',')}`);
          const overrides = new Map(r.configs.map((c) => [c.name, c.value as string]));
          if (r.resourceType === TOPIC) return alterTopic(r, overrides, request.validateOnly);
          checkBrokerId(ctx, r.resourceName);
          return alterBroker(r, overrides, request.validateOnly);
        }),
      );
      return { throttleTimeMs: 0, responses };
    },
    incrementalAlterConfigs: async (request, context) => {
      const responses = await answer(context, request.resources, [TOPIC, BROKER, BROKER_LOGGER], 'IncrementalAlterConfigs', (r) => {
        const ops: ConfigOp[] = r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value }));
        const describe = (): string => `[${ops.map((o) => `AlterConfigOp(opType=${opTypeName(o.op)}, configEntry=${o.name}=${o.value ?? 'null'})`).join(', ')}]`;
        return outcome(r, describe, async () => {
          checkConfigOps(ops);
          if (r.resourceType === TOPIC) {
            const stored = await ctx.adminZk.getTopicConfig(r.resourceName);
            return alterTopic(r, applyIncrementalConfigOps(stored, ops), request.validateOnly);
          }
          checkBrokerId(ctx, r.resourceName);
          if (r.resourceType === BROKER_LOGGER) {
            // The broker's own log4j levels, live and not persisted (a restart goes back to log4j.properties).
            validateLogLevelOps(ops);
            if (!request.validateOnly) applyLogLevelOps(ops);
            return;
          }
          const stored = ctx.dynamicBrokerConfig.fromPersistentProps(await ctx.adminZk.fetchEntityConfig('brokers', r.resourceName === '' ? '<default>' : String(ctx.brokerId)));
          return alterBroker(r, applyIncrementalConfigOps(stored, ops, KAFKA_CONFIG_DEFS), request.validateOnly);
        });
      });
      return { throttleTimeMs: 0, responses };
    },
  };
}

/**
 * Kafka's KafkaApis config authorization: a topic needs `operation` on the topic (TOPIC_AUTHORIZATION_FAILED),
 * brokers and broker loggers on the cluster (CLUSTER_AUTHORIZATION_FAILED). Undefined when allowed.
 */
export function configsAuthorizationError(ctx: HandlerContext, context: RequestContext, operation: 'ALTER_CONFIGS' | 'DESCRIBE_CONFIGS', r: Resource): number | undefined {
  if (ctx.authorizer === undefined) return undefined;
  if (r.resourceType === TOPIC) return authorize(ctx, context, operation, 'TOPIC', r.resourceName) ? undefined : ErrorCode.TOPIC_AUTHORIZATION_FAILED.code;
  if (r.resourceType === BROKER || r.resourceType === BROKER_LOGGER) return authorizeCluster(ctx, context, operation) ? undefined : ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code;
  return undefined;
}
