import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { SerialQueue } from '../../common/serial-queue';
import { AlterClientQuotasEntryResponse, AlterClientQuotasOp, AlterClientQuotasRequest, AlterClientQuotasResponse } from '../../protocol/apis/alter-client-quotas';
import {
  ClientQuotaEntityData,
  ClientQuotaMatchType,
  DescribeClientQuotasComponent,
  DescribeClientQuotasEntry,
  DescribeClientQuotasRequest,
  DescribeClientQuotasResponse,
} from '../../protocol/apis/describe-client-quotas';
import { desanitize, sanitize } from '../../zk/sanitizer';
import { DEFAULT_ENTITY_NAME } from '../client-quota-manager';
import { isIpAddress } from '../network/ip-address';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.ZkAdminManager');

/** ClientQuotaEntity's entity types. */
export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

/** QuotaConfigs.isClientOrUserQuotaConfig (2.8): the quota keys of users and client ids, and their types. */
const CLIENT_QUOTA_KEYS: Readonly<Record<string, 'LONG' | 'DOUBLE'>> = {
  producer_byte_rate: 'LONG',
  consumer_byte_rate: 'LONG',
  request_percentage: 'DOUBLE',
  controller_mutation_rate: 'DOUBLE',
};
/** DynamicConfig.Ip's key. */
const IP_QUOTA_KEYS = ['connection_creation_rate'];
/** The keys this broker's ClientQuotaManagers apply; the others are refused rather than stored unapplied. */
const APPLIED_KEYS = ['producer_byte_rate', 'consumer_byte_rate'];

/** A stored quota entity: user and client id (null = the default entity, absent = not a component), or an ip. */
export interface StoredQuotaEntity {
  user?: string | null;
  clientId?: string | null;
  ip?: string | null;
  config: ReadonlyMap<string, string>;
}

/** A filter component as Kafka's ClientQuotaFilterComponent: match undefined = any (SPECIFIED), null = the default. */
interface FilterComponent {
  entityType: string;
  match: string | null | undefined;
}

/** DescribeClientQuotasRequest.filter: the wire's match types to components; anything else is Kafka's IllegalArgumentException. */
function toComponents(components: readonly DescribeClientQuotasComponent[]): FilterComponent[] {
  return components.map((c) => {
    if (c.matchType === ClientQuotaMatchType.EXACT) {
      if (c.match === null) throw new Error('EXACT match without an entity name');
      return { entityType: c.entityType, match: c.match };
    }
    if (c.matchType === ClientQuotaMatchType.DEFAULT) return { entityType: c.entityType, match: null };
    if (c.matchType === ClientQuotaMatchType.SPECIFIED) return { entityType: c.entityType, match: undefined };
    throw new Error(`Unexpected match type: ${c.matchType}`);
  });
}

function quotaValues(config: ReadonlyMap<string, string>, keys: (k: string) => boolean): { key: string; value: number }[] {
  const values: { key: string; value: number }[] = [];
  for (const [key, text] of config) {
    if (!keys(key)) continue;
    const value = Number(text.trim());
    // Kafka's fromProps: an unparsable stored value fails the whole describe (IllegalStateException).
    if (text.trim() === '' || Number.isNaN(value)) throw new Error(`Unexpected client quota configuration value: ${key} -> ${text}`);
    values.push({ key, value });
  }
  return values;
}

/**
 * ZkAdminManager.describeClientQuotas over every stored entity: the filter's components are checked as Kafka
 * checks them (INVALID_REQUEST, UNSUPPORTED_VERSION for a custom entity type), then each entity with quota keys
 * that matches every component (and, when strict, has no component the filter leaves out) is answered.
 * Filtering all the entities gives what Kafka's exact reads plus its `matches` give.
 */
export function describeClientQuotas(request: DescribeClientQuotasRequest, stored: readonly StoredQuotaEntity[]): DescribeClientQuotasEntry[] {
  const components = toComponents(request.components);
  const byType = new Map<string, FilterComponent>();
  for (const c of components) {
    const label = { [USER]: 'user', [CLIENT_ID]: 'client', [IP]: 'ip' }[c.entityType];
    if (c.entityType === '') throw new KafkaError('INVALID_REQUEST', 'Unexpected empty filter component entity type');
    if (label === undefined) throw new KafkaError('UNSUPPORTED_VERSION', `Custom entity type '${c.entityType}' not supported`);
    if (byType.has(c.entityType)) throw new KafkaError('INVALID_REQUEST', `Duplicate ${label} filter component entity type`);
    byType.set(c.entityType, c);
  }
  const user = byType.get(USER);
  const client = byType.get(CLIENT_ID);
  const ip = byType.get(IP);
  if ((user !== undefined || client !== undefined) && ip !== undefined) {
    throw new KafkaError('INVALID_REQUEST', 'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.');
  }
  const strict = request.strict;
  const matches = (component: FilterComponent | undefined, name: string | null | undefined): boolean => {
    if (component === undefined) return name === undefined || !strict;
    if (component.match === undefined) return name !== undefined;
    return name !== undefined && name === component.match;
  };
  const entries: DescribeClientQuotasEntry[] = [];
  for (const e of stored) {
    if (e.ip !== undefined) {
      // handleDescribeIpQuotas: only without user and client-id components; all ips unless strict or exact.
      if (user !== undefined || client !== undefined) continue;
      if (ip === undefined ? strict : ip.match !== undefined && ip.match !== e.ip) continue;
      const values = quotaValues(e.config, (k) => IP_QUOTA_KEYS.includes(k));
      if (values.length > 0) entries.push({ entity: [{ entityType: IP, entityName: e.ip }], values });
      continue;
    }
    if (ip !== undefined) continue;
    if (!matches(user, e.user) || !matches(client, e.clientId)) continue;
    const values = quotaValues(e.config, (k) => k in CLIENT_QUOTA_KEYS);
    if (values.length === 0) continue;
    const entity: ClientQuotaEntityData[] = [];
    if (e.user !== undefined) entity.push({ entityType: USER, entityName: e.user });
    if (e.clientId !== undefined) entity.push({ entityType: CLIENT_ID, entityName: e.clientId });
    entries.push({ entity, values });
  }
  return entries;
}

/** A parsed quota entity of an alteration (ZkAdminManager.parseAndSanitizeQuotaEntity), names sanitized. */
interface ParsedEntity {
  user?: string;
  clientId?: string;
  ip?: string;
}

/** `<default>` for the default entity (a null name), else the sanitized name. */
function sanitizeEntityName(name: string | null): string {
  return name === null ? DEFAULT_ENTITY_NAME : sanitize(name);
}

export function parseQuotaEntity(entity: readonly ClientQuotaEntityData[]): ParsedEntity {
  if (entity.length === 0) throw new KafkaError('INVALID_REQUEST', 'Invalid empty client quota entity');
  const parsed: ParsedEntity = {};
  // AlterClientQuotasRequest.entries puts the components in a map: a type named twice keeps its last name.
  for (const { entityType, entityName } of entity) {
    const sanitized = sanitizeEntityName(entityName);
    if (entityType === USER) parsed.user = sanitized;
    else if (entityType === CLIENT_ID) parsed.clientId = sanitized;
    // Kafka keeps ip names as they are (an address is a valid znode name; anything else is refused later).
    else if (entityType === IP) parsed.ip = entityName ?? DEFAULT_ENTITY_NAME;
    else throw new KafkaError('INVALID_REQUEST', `Unhandled client quota entity type: ${entityType}`);
    if (entityName !== null && entityName === '') throw new KafkaError('INVALID_REQUEST', `Empty ${entityType} not supported`);
  }
  return parsed;
}

/**
 * The new config of a client id after the ops, as ZkAdminManager.alterClientQuotas computes it: a removal drops
 * the key; a value needs a known key (INVALID_REQUEST "Invalid configuration key k") and, for the LONG byte
 * rates, an integral value ("Configuration k must be a LONG value"). Beyond Kafka, so that nothing is stored
 * that no broker applies: request_percentage and controller_mutation_rate are refused naming the key (this
 * broker has no request or controller mutation quotas), and a byte rate must be positive (the quota managers
 * ignore the others; Kafka 2.8 stores them).
 */
export function applyQuotaOps(stored: ReadonlyMap<string, string>, ops: readonly AlterClientQuotasOp[]): Map<string, string> {
  const props = new Map(stored);
  for (const op of ops) {
    if (op.remove) {
      props.delete(op.key);
      continue;
    }
    const type = CLIENT_QUOTA_KEYS[op.key];
    if (type === undefined) throw new KafkaError('INVALID_REQUEST', `Invalid configuration key ${op.key}`);
    if (!APPLIED_KEYS.includes(op.key)) {
      throw new KafkaError('INVALID_REQUEST', `Client quotas other than producer_byte_rate and consumer_byte_rate are not supported by this broker; refused: ${op.key}`);
    }
    const epsilon = 1e-6;
    const integral = Math.trunc(op.value + epsilon);
    if (!Number.isFinite(op.value) || Math.abs(integral) > Number.MAX_SAFE_INTEGER || Math.abs(integral - op.value) > epsilon) {
      throw new KafkaError('INVALID_REQUEST', `Configuration ${op.key} must be a ${type} value`);
    }
    if (integral <= 0) throw new KafkaError('INVALID_REQUEST', `Configuration ${op.key} must be a positive value: a quota of ${integral} bytes per second is not applied by this broker`);
    props.set(op.key, String(integral));
  }
  return props;
}

/**
 * The new config of an ip after the ops: only connection_creation_rate (DynamicConfig.Ip), an INT of at least 0
 * (Kafka's validator), or its removal.
 */
export function applyIpQuotaOps(stored: ReadonlyMap<string, string>, ops: readonly AlterClientQuotasOp[]): Map<string, string> {
  const props = new Map(stored);
  for (const op of ops) {
    if (!IP_QUOTA_KEYS.includes(op.key)) throw new KafkaError('INVALID_REQUEST', `Invalid configuration key ${op.key}`);
    if (op.remove) {
      props.delete(op.key);
      continue;
    }
    if (!Number.isInteger(op.value) || op.value > 2147483647) throw new KafkaError('INVALID_REQUEST', `Configuration ${op.key} must be a INT value`);
    if (op.value < 0) throw new KafkaError('INVALID_REQUEST', `Invalid value ${op.value} for configuration ${op.key}: Value must be at least 0`);
    props.set(op.key, String(op.value));
  }
  return props;
}

function entityText(p: ParsedEntity): string {
  const part = (type: string, sanitized: string): string => (sanitized === DEFAULT_ENTITY_NAME ? `the default ${type}` : `${type} '${desanitize(sanitized)}'`);
  return [p.user !== undefined ? part('user', p.user) : undefined, p.clientId !== undefined ? part('client-id', p.clientId) : undefined, p.ip !== undefined ? part('ip', p.ip) : undefined]
    .filter((s) => s !== undefined)
    .join(', ');
}

/** Every stored quota entity: /config/users/<u>, /config/clients/<c>, /config/users/<u>/clients/<c>, /config/ips/<ip>. */
async function readStoredEntities(ctx: HandlerContext): Promise<StoredQuotaEntity[]> {
  const name = (sanitized: string): string | null => (sanitized === DEFAULT_ENTITY_NAME ? null : desanitize(sanitized));
  const stored: StoredQuotaEntity[] = [];
  for (const u of await ctx.adminZk.getAllEntitiesWithConfig('users')) stored.push({ user: name(u), config: await ctx.adminZk.fetchEntityConfig('users', u) });
  for (const c of await ctx.adminZk.getAllEntitiesWithConfig('clients')) stored.push({ clientId: name(c), config: await ctx.adminZk.fetchEntityConfig('clients', c) });
  for (const [path, config] of await ctx.adminZk.fetchAllUserClientConfigs()) {
    const [u, , c] = path.split('/') as [string, string, string];
    stored.push({ user: name(u), clientId: name(c), config });
  }
  for (const i of await ctx.adminZk.getAllEntitiesWithConfig('ips')) stored.push({ ip: name(i), config: await ctx.adminZk.fetchEntityConfig('ips', i) });
  return stored;
}

/**
 * DescribeClientQuotas and AlterClientQuotas (KIP-546) as Kafka 2.8's ZooKeeper-mode broker answers them
 * (ZkAdminManager.describeClientQuotas / alterClientQuotas), on any broker. Client-id quotas (a client id or the
 * default, `/config/clients/<sanitized id>`) are written with a `/config/changes` notification that every
 * broker's DynamicConfigManager applies to its quota managers; so are user quotas (`/config/users/<user>`) and
 * user and client-id quotas (`/config/users/<user>/clients/<client-id>`), for the connection's principal, and
 * ips' connection_creation_rate (`/config/ips/<ip>`, KIP-612), applied by the socket server. The
 * request_percentage / controller_mutation_rate keys are refused with INVALID_REQUEST: this broker's quota
 * managers do not apply them. Describe answers whatever is stored.
 */
export function createClientQuotasHandlers(ctx: HandlerContext): {
  describeClientQuotas: ApiHandler<DescribeClientQuotasRequest, DescribeClientQuotasResponse>;
  alterClientQuotas: ApiHandler<AlterClientQuotasRequest, AlterClientQuotasResponse>;
} {
  const writes = new SerialQueue();

  async function alterOne(entity: readonly ClientQuotaEntityData[], ops: readonly AlterClientQuotasOp[], validateOnly: boolean): Promise<void> {
    const parsed = parseQuotaEntity(entity);
    if (parsed.ip !== undefined) {
      if (parsed.user !== undefined || parsed.clientId !== undefined) throw new KafkaError('INVALID_REQUEST', 'Invalid quota entity combination, IP entity should not be used with user/client ID entity.');
      const ip = parsed.ip;
      if (ip !== DEFAULT_ENTITY_NAME && !isIpAddress(ip)) throw new KafkaError('INVALID_REQUEST', `${ip} is not a valid IP or resolvable host.`);
      const config = applyIpQuotaOps(await ctx.adminZk.fetchEntityConfig('ips', ip), ops);
      if (validateOnly) return;
      log.info(`Updating ${entityText(parsed)} with new quotas: ${[...config].map(([k, v]) => `${k} -> ${v}`).join(',')}`);
      await ctx.adminZk.changeIpConfig(ip, config);
      return;
    }
    if (parsed.user !== undefined) {
      const stored = parsed.clientId === undefined ? await ctx.adminZk.fetchEntityConfig('users', parsed.user) : await ctx.adminZk.fetchUserClientConfig(parsed.user, parsed.clientId);
      const config = applyQuotaOps(stored, ops);
      if (validateOnly) return;
      log.info(`Updating ${entityText(parsed)} with new quotas: ${[...config].map(([k, v]) => `${k} -> ${v}`).join(',')}`);
      await ctx.adminZk.changeUserOrUserClientIdConfig(parsed.user, parsed.clientId, config);
      return;
    }
    const sanitized = parsed.clientId as string;
    const config = applyQuotaOps(await ctx.adminZk.fetchEntityConfig('clients', sanitized), ops);
    if (validateOnly) return;
    log.info(`Updating ${entityText(parsed)} with new quotas: ${[...config].map(([k, v]) => `${k} -> ${v}`).join(',')}`);
    await ctx.adminZk.changeClientIdConfig(sanitized === DEFAULT_ENTITY_NAME ? sanitized : desanitize(sanitized), config);
  }

  return {
    describeClientQuotas: async (request, context) => {
      // Kafka's handleDescribeClientQuotasRequest: DescribeConfigs on the cluster.
      if (!authorizeCluster(ctx, context, 'DESCRIBE_CONFIGS')) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null, entries: null };
      try {
        const entries = describeClientQuotas(request, await readStoredEntities(ctx));
        return { throttleTimeMs: 0, errorCode: ErrorCode.NONE.code, errorMessage: null, entries };
      } catch (err) {
        if (err instanceof KafkaError) return { throttleTimeMs: 0, errorCode: err.code, errorMessage: err.message, entries: null };
        log.error('Error processing describe client quotas request', err);
        return { throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: ErrorCode.UNKNOWN_SERVER_ERROR.message, entries: null };
      }
    },
    alterClientQuotas: async (request, context) => {
      const entries: AlterClientQuotasEntryResponse[] = [];
      // Kafka's handleAlterClientQuotasRequest: AlterConfigs on the cluster, else every entry refused.
      if (!authorizeCluster(ctx, context, 'ALTER_CONFIGS')) {
        return { throttleTimeMs: 0, entries: request.entries.map((e) => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code, errorMessage: null, entity: e.entity })) };
      }
      for (const e of request.entries) {
        const result = await writes.run(async () => {
          try {
            await alterOne(e.entity, e.ops, request.validateOnly);
            return { errorCode: ErrorCode.NONE.code, errorMessage: null };
          } catch (err) {
            log.info(`Error encountered while updating client quotas: ${(err as Error).message}`);
            if (err instanceof KafkaError) return { errorCode: err.code, errorMessage: err.message };
            return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: ErrorCode.UNKNOWN_SERVER_ERROR.message };
          }
        });
        entries.push({ ...result, entity: e.entity });
      }
      return { throttleTimeMs: 0, entries };
    },
  };
}
