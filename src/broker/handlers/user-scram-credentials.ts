import { ErrorCode, ErrorName } from '../../common/error-codes';
import { getLogger } from '../../common/logging/logging';
import { SerialQueue } from '../../common/serial-queue';
import { AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse, AlterUserScramCredentialsResult } from '../../protocol/apis/alter-user-scram-credentials';
import {
  DescribeUserScramCredentialsRequest,
  DescribeUserScramCredentialsResponse,
  DescribeUserScramCredentialsResult,
  ScramCredentialInfo,
} from '../../protocol/apis/describe-user-scram-credentials';
import {
  SCRAM_MECHANISM_TYPES,
  SCRAM_MECHANISMS,
  ScramMechanism,
  scramCredentialFromSaltedPassword,
  scramCredentialFromString,
  scramCredentialToString,
  scramMechanismOfType,
} from '../../security/scram-credential';
import { sanitize } from '../../zk/sanitizer';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

const log = getLogger('kafka.server.ZkAdminManager');

/** ZkAdminManager's bound on iterations (the lower bound is the mechanism's minIterations, 4096). */
export const MAX_SCRAM_ITERATIONS = 16384;

const USERNAME_MUST_NOT_BE_EMPTY = 'Username must not be empty';
const UNKNOWN_SCRAM_MECHANISM = 'Unknown SCRAM mechanism';

/** `/config/users/<user>` as the two APIs see it: names unsanitized here, sanitized by the store. */
export interface UserConfigStore {
  /** Every user config node: (znode name, as stored, sanitized) -> config. */
  fetchAll(): Promise<[string, ReadonlyMap<string, string>][]>;
  fetch(user: string): Promise<Map<string, string>>;
  /** Writes the whole config with its change notification (AdminZkClient.changeConfigs). */
  change(user: string, config: ReadonlyMap<string, string>): Promise<void>;
}

const MECHANISMS = Object.keys(SCRAM_MECHANISMS) as ScramMechanism[];

function credentialInfos(config: ReadonlyMap<string, string>): ScramCredentialInfo[] {
  const infos: ScramCredentialInfo[] = [];
  for (const mechanism of MECHANISMS) {
    const value = config.get(mechanism);
    if (value !== undefined) infos.push({ mechanism: SCRAM_MECHANISM_TYPES[mechanism], iterations: scramCredentialFromString(value).iterations });
  }
  return infos;
}

function unknownServerError(e: unknown, user: string): DescribeUserScramCredentialsResult {
  log.error('Error processing describe user SCRAM credential configs request', e);
  return { user, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: ErrorCode.UNKNOWN_SERVER_ERROR.message, credentialInfos: [] };
}

/** The user's result if it has a SCRAM credential; for a user asked for by name, RESOURCE_NOT_FOUND otherwise. */
function resultOf(user: string, config: ReadonlyMap<string, string>, explicitUser: boolean): DescribeUserScramCredentialsResult | undefined {
  if (!MECHANISMS.some((m) => config.has(m))) {
    if (!explicitUser) return undefined;
    return { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND.code, errorMessage: `Attempt to describe a user credential that does not exist: ${user}`, credentialInfos: [] };
  }
  try {
    return { user, errorCode: ErrorCode.NONE.code, errorMessage: null, credentialInfos: credentialInfos(config) };
  } catch (e) {
    return unknownServerError(e, user);
  }
}

/**
 * ZkAdminManager.describeUserScramCredentials: null or no users describes every user that has a credential, in
 * name order (named as their znodes are, as 2.8 does); otherwise one result per distinct name, in request order,
 * with empty names RESOURCE_NOT_FOUND and names asked for twice DUPLICATE_RESOURCE.
 */
export async function describeUserScramCredentials(users: readonly string[] | null, store: UserConfigStore): Promise<DescribeUserScramCredentialsResponse> {
  const response: DescribeUserScramCredentialsResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE.code, errorMessage: null, results: [] };
  try {
    if (users === null || users.length === 0) {
      const all = new Map<string, DescribeUserScramCredentialsResult>();
      for (const [user, config] of await store.fetchAll()) {
        const r = resultOf(user, config, false);
        if (r !== undefined) all.set(user, r);
      }
      response.results = [...all.keys()].sort().map((u) => all.get(u) as DescribeUserScramCredentialsResult);
      return response;
    }
    const results = new Map<string, DescribeUserScramCredentialsResult>();
    const counts = new Map<string, number>();
    for (const u of users) counts.set(u, (counts.get(u) ?? 0) + 1);
    for (const [user, n] of counts) {
      if (user === '') results.set(user, { user, errorCode: ErrorCode.RESOURCE_NOT_FOUND.code, errorMessage: USERNAME_MUST_NOT_BE_EMPTY, credentialInfos: [] });
      else if (n > 1) results.set(user, { user, errorCode: ErrorCode.DUPLICATE_RESOURCE.code, errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`, credentialInfos: [] });
    }
    for (const user of counts.keys()) {
      if (results.has(user)) continue;
      try {
        results.set(user, resultOf(user, await store.fetch(user), true) as DescribeUserScramCredentialsResult);
      } catch (e) {
        results.set(user, unknownServerError(e, user));
      }
    }
    response.results = [...counts.keys()].map((u) => results.get(u) as DescribeUserScramCredentialsResult);
  } catch (e) {
    log.error('Error processing describe user SCRAM credential configs request', e);
    response.errorCode = ErrorCode.UNKNOWN_SERVER_ERROR.code;
    response.errorMessage = (e as Error).message ?? ErrorCode.UNKNOWN_SERVER_ERROR.message;
  }
  return response;
}

/** Why an upsertion or deletion is refused before any user's config is read, or undefined when it is legal. */
function illegality(name: string, mechanismType: number, iterations: number | undefined): string | undefined {
  if (name === '') return USERNAME_MUST_NOT_BE_EMPTY;
  const mechanism = scramMechanismOfType(mechanismType);
  if (mechanism === undefined) return UNKNOWN_SCRAM_MECHANISM;
  if (iterations === undefined) return undefined;
  if (iterations > MAX_SCRAM_ITERATIONS) return 'Too many iterations';
  if (iterations < SCRAM_MECHANISMS[mechanism].minIterations) return 'Too few iterations';
  return undefined;
}

/**
 * ZkAdminManager.alterUserScramCredentials, in its order: users with an empty name, an unknown mechanism
 * (UNSUPPORTED_SASL_MECHANISM) or iterations outside 4096..16384 (UNACCEPTABLE_CREDENTIAL); then users naming the
 * same mechanism twice (DUPLICATE_RESOURCE); then users deleting a credential they do not have
 * (RESOURCE_NOT_FOUND); every other user's config is rewritten whole (deletions first, then upsertions), one
 * result each. A user failing any check has none of its alterations applied.
 */
export async function alterUserScramCredentials(request: AlterUserScramCredentialsRequest, store: UserConfigStore): Promise<AlterUserScramCredentialsResponse> {
  const results: AlterUserScramCredentialsResult[] = [];
  const illegal = new Map<string, string>();
  for (const d of request.deletions) {
    const why = illegality(d.name, d.mechanism, undefined);
    if (why !== undefined) illegal.set(d.name, why);
  }
  for (const u of request.upsertions) {
    const why = illegality(u.name, u.mechanism, u.iterations);
    if (why !== undefined) illegal.set(u.name, why);
  }
  for (const [user, why] of illegal) {
    results.push({ user, errorCode: why === UNKNOWN_SCRAM_MECHANISM ? ErrorCode.UNSUPPORTED_SASL_MECHANISM.code : ErrorCode.UNACCEPTABLE_CREDENTIAL.code, errorMessage: why });
  }
  const pairs = [...request.upsertions, ...request.deletions].filter((p) => !illegal.has(p.name));
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  for (const p of pairs) {
    const key = `${p.mechanism}:${p.name}`;
    if (seen.has(key)) duplicated.add(p.name);
    seen.add(key);
  }
  for (const user of duplicated) results.push({ user, errorCode: ErrorCode.DUPLICATE_RESOURCE.code, errorMessage: 'A user credential cannot be altered twice in the same request' });
  const candidates = [...new Set(pairs.map((p) => p.name))].filter((u) => !duplicated.has(u));
  const configs = new Map<string, Map<string, string>>();
  for (const user of candidates) configs.set(user, await store.fetch(user));
  const missing = new Set<string>();
  for (const d of request.deletions) {
    const config = configs.get(d.name);
    if (config !== undefined && !config.has(scramMechanismOfType(d.mechanism) as string)) missing.add(d.name);
  }
  for (const user of missing) results.push({ user, errorCode: ErrorCode.RESOURCE_NOT_FOUND.code, errorMessage: 'Attempt to delete a user credential that does not exist' });
  for (const user of candidates.filter((u) => !missing.has(u))) {
    const config = configs.get(user) as Map<string, string>;
    try {
      for (const d of request.deletions) if (d.name === user) config.delete(scramMechanismOfType(d.mechanism) as string);
      for (const u of request.upsertions) {
        if (u.name !== user) continue;
        const mechanism = scramMechanismOfType(u.mechanism) as ScramMechanism;
        config.set(mechanism, scramCredentialToString(scramCredentialFromSaltedPassword(mechanism, u.salt, u.saltedPassword, u.iterations)));
      }
      await store.change(user, config);
      results.push({ user, errorCode: ErrorCode.NONE.code, errorMessage: null });
    } catch (e) {
      log.info(`Error encountered while altering user SCRAM credentials: ${(e as Error).message}`);
      results.push({ user, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR.code, errorMessage: ErrorCode.UNKNOWN_SERVER_ERROR.message });
    }
  }
  return { throttleTimeMs: 0, results };
}

/** `/config/users` through AdminZk: what `kafka-configs --zookeeper` writes, notification included. */
export function zkUserConfigStore(ctx: HandlerContext): UserConfigStore {
  return {
    fetchAll: async () => {
      const all: [string, ReadonlyMap<string, string>][] = [];
      for (const name of await ctx.adminZk.getAllEntitiesWithConfig('users')) all.push([name, await ctx.adminZk.fetchEntityConfig('users', name)]);
      return all;
    },
    fetch: (user) => ctx.adminZk.fetchEntityConfig('users', sanitize(user)),
    change: (user, config) => ctx.adminZk.changeUserConfig(sanitize(user), config),
  };
}

/** DescribeUserScramCredentialsRequest.getErrorResponse: the error (with Errors' message) at the top and on each user. */
function describeError(request: DescribeUserScramCredentialsRequest, error: ErrorName): DescribeUserScramCredentialsResponse {
  const { code, message } = ErrorCode[error];
  return { throttleTimeMs: 0, errorCode: code, errorMessage: message, results: (request.users ?? []).map((u) => ({ user: u.name, errorCode: code, errorMessage: message, credentialInfos: [] })) };
}

/** AlterUserScramCredentialsRequest.getErrorResponse: the error on every distinct user named. */
function alterError(request: AlterUserScramCredentialsRequest, error: ErrorName): AlterUserScramCredentialsResponse {
  const { code, message } = ErrorCode[error];
  const users = new Set([...request.deletions.map((d) => d.name), ...request.upsertions.map((u) => u.name)]);
  return { throttleTimeMs: 0, results: [...users].map((user) => ({ user, errorCode: code, errorMessage: message })) };
}

export interface UserScramCredentialsHandlers {
  describe: ApiHandler<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>;
  alter: ApiHandler<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>;
}

/**
 * KafkaApis.handleDescribeUserScramCredentialsRequest (Describe on the cluster) and
 * handleAlterUserScramCredentialsRequest (the active controller only, NOT_CONTROLLER elsewhere; Alter on the
 * cluster). Alterations run one at a time so two requests never interleave a user's read-modify-write.
 */
export function createUserScramCredentialsHandlers(ctx: HandlerContext, store: UserConfigStore = zkUserConfigStore(ctx)): UserScramCredentialsHandlers {
  const queue = new SerialQueue();
  return {
    describe: (request, context) => {
      if (!authorizeCluster(ctx, context, 'DESCRIBE')) return describeError(request, 'CLUSTER_AUTHORIZATION_FAILED');
      return describeUserScramCredentials(request.users === null ? null : request.users.map((u) => u.name), store);
    },
    alter: async (request, context) => {
      if (!ctx.controller.isActive) return alterError(request, 'NOT_CONTROLLER');
      if (!authorizeCluster(ctx, context, 'ALTER')) return alterError(request, 'CLUSTER_AUTHORIZATION_FAILED');
      return queue.run(() => alterUserScramCredentials(request, store));
    },
  };
}
