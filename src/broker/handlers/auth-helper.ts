import { KafkaError } from '../../common/kafka-error';
import { apiKeyName } from '../../protocol/api-keys';
import { AclAuthorizer, AuthorizableRequest } from '../../security/acl-authorizer';
import { AclOperation, AclOperationName, CLUSTER_NAME, pascalName, ResourceTypeName, SUPPORTED_OPERATIONS } from '../../security/acl-binding';
import { RequestContext } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/*
 * Kafka 2.8's AuthHelper for the handlers: one call per check, a no-op returning "allowed" when no authorizer is
 * configured (so a broker without one pays a property read, nothing more).
 */

const requestNames = new Map<number, string>();

function requestOf(context: RequestContext): AuthorizableRequest {
  const key = context.header.apiKey;
  let requestName = requestNames.get(key);
  if (requestName === undefined) {
    // ApiKeys' display names are the enum names in Pascal case: Fetch, LeaderAndIsr, OffsetForLeaderEpoch.
    requestName = pascalName(apiKeyName(key));
    requestNames.set(key, requestName);
  }
  return { principal: context.connection.principal, clientAddress: context.connection.clientAddress, requestName };
}

export interface AuthorizeOptions {
  readonly logIfAllowed?: boolean;
  readonly logIfDenied?: boolean;
  readonly refCount?: number;
}

export function authorize(ctx: HandlerContext, context: RequestContext, operation: AclOperationName, resourceType: ResourceTypeName, name: string, options: AuthorizeOptions = {}): boolean {
  const authorizer = ctx.authorizer;
  if (authorizer === undefined) return true;
  return authorizer.authorize(requestOf(context), { resourceType, name, operation, ...options });
}

export function authorizeCluster(ctx: HandlerContext, context: RequestContext, operation: AclOperationName, options: AuthorizeOptions = {}): boolean {
  return authorize(ctx, context, operation, 'CLUSTER', CLUSTER_NAME, options);
}

/** Kafka's authorizeClusterOperation: throws CLUSTER_AUTHORIZATION_FAILED, answered in the API's error shape. */
export function requireClusterOperation(ctx: HandlerContext, context: RequestContext, operation: AclOperationName): void {
  if (!authorizeCluster(ctx, context, operation)) throw new KafkaError('CLUSTER_AUTHORIZATION_FAILED', `Request ${requestOf(context).requestName} is not authorized.`);
}

/**
 * Kafka's filterByAuthorized: the names (deduplicated, each checked once with its reference count) the principal
 * may `operation` on. Without an authorizer every name.
 */
export function filterByAuthorized(ctx: HandlerContext, context: RequestContext, operation: AclOperationName, resourceType: ResourceTypeName, names: Iterable<string>, options: Omit<AuthorizeOptions, 'refCount'> = {}): Set<string> {
  const counts = new Map<string, number>();
  for (const n of names) counts.set(n, (counts.get(n) ?? 0) + 1);
  const authorizer = ctx.authorizer;
  if (authorizer === undefined) return new Set(counts.keys());
  const request = requestOf(context);
  const out = new Set<string>();
  for (const [name, refCount] of counts) if (authorizer.authorize(request, { resourceType, name, operation, refCount, ...options })) out.add(name);
  return out;
}

/** Kafka's AuthHelper.authorizeByResourceType: `operation` allowed on at least one resource of the type. */
export function authorizeByResourceType(ctx: HandlerContext, context: RequestContext, operation: AclOperationName, resourceType: ResourceTypeName): boolean {
  const authorizer = ctx.authorizer;
  if (authorizer === undefined) return true;
  return authorizer.authorizeByResourceType(requestOf(context), operation, resourceType);
}

/** Kafka's AuthHelper.authorizedOperations: a resource's allowed operations as a bit field of AclOperation codes. */
export function authorizedOperations(ctx: HandlerContext, context: RequestContext, resourceType: ResourceTypeName, name: string): number {
  const authorizer: AclAuthorizer | undefined = ctx.authorizer;
  if (authorizer === undefined) {
    let field = 0;
    for (const op of SUPPORTED_OPERATIONS[resourceType] ?? []) field |= 1 << AclOperation[op];
    return field;
  }
  return authorizer.authorizedOperations(requestOf(context), resourceType, name, AclOperation);
}
