import { getLogger, Logger } from '../common/logging/logging';
import { ZkAclEntry, ZkAclResource } from '../zk/znodes/acl-znodes';
import {
  AccessControlEntry,
  AclBinding,
  AclBindingFilter,
  AclOperationName,
  bindingFilterMatches,
  bindingProblem,
  CONCRETE_RESOURCE_TYPES,
  entryEquals,
  fromPascalName,
  OPERATION_NAMES,
  pascalName,
  PERMISSION_NAMES,
  RESOURCE_TYPE_NAMES,
  ResourcePattern,
  ResourceTypeName,
  SUPPORTED_OPERATIONS,
  WILDCARD,
  WILDCARD_PRINCIPAL,
} from './acl-binding';
import { KafkaPrincipal, parseKafkaPrincipal, principalToString } from './kafka-principal';

/** Kafka's AclAuthorizer.maxUpdateRetries. */
const MAX_UPDATE_RETRIES = 10;

/** Who asks (Kafka's AuthorizableRequestContext, the parts the authorizer reads). */
export interface AuthorizableRequest {
  readonly principal: KafkaPrincipal;
  /** As the network layer has it: `/127.0.0.1`. */
  readonly clientAddress: string;
  /** ApiKeys name for the log line: `Fetch`, `Metadata`. */
  readonly requestName: string;
}

/** One check (Kafka's Action): an operation on a literal resource. */
export interface Action {
  readonly resourceType: ResourceTypeName;
  readonly name: string;
  readonly operation: AclOperationName;
  readonly refCount?: number;
  readonly logIfAllowed?: boolean;
  readonly logIfDenied?: boolean;
}

/** Where the authorizer keeps ACLs: AclStoreZk in a broker, an in-memory fake in unit tests. */
export interface AclStore {
  createPaths(resourceTypes: readonly string[]): Promise<void>;
  loadAll(): Promise<Array<{ resource: ZkAclResource; acls: { acls: ZkAclEntry[]; version: number } }>>;
  read(resource: ZkAclResource): Promise<{ acls: ZkAclEntry[]; version: number }>;
  conditionalWrite(resource: ZkAclResource, acls: readonly ZkAclEntry[], expectedVersion: number): Promise<number | undefined>;
  notifyChange(resource: ZkAclResource): Promise<void>;
  watchChanges(onChange: (resource: ZkAclResource) => Promise<void>): void;
  close(): void;
}

export interface AclAuthorizerConfig {
  /** `super.users`: semicolon-separated principals allowed everything. */
  readonly superUsers: string;
  /** `allow.everyone.if.no.acl.found`. */
  readonly allowEveryoneIfNoAclFound: boolean;
}

interface VersionedAcls {
  readonly acls: readonly AccessControlEntry[];
  readonly version: number;
}

interface TypeCache {
  readonly literal: Map<string, VersionedAcls>;
  readonly prefixed: Map<string, VersionedAcls>;
}

export interface AclCreateResult {
  readonly error?: { readonly code: 'INVALID_REQUEST' | 'UNKNOWN_SERVER_ERROR'; readonly message: string };
}

export interface AclDeleteResult {
  readonly error?: { readonly code: 'UNKNOWN_SERVER_ERROR'; readonly message: string };
  readonly deleted: readonly AclBinding[];
}

/** The IP a principal connects from, as Kafka's InetAddress.getHostAddress prints it (IPv4-mapped IPv6 unwrapped). */
export function hostOf(clientAddress: string): string {
  const bare = clientAddress.startsWith('/') ? clientAddress.slice(1) : clientAddress;
  return bare.startsWith('::ffff:') && bare.includes('.') ? bare.slice('::ffff:'.length) : bare;
}

function toEntry(path: string, a: ZkAclEntry): AccessControlEntry {
  const operation = fromPascalName(OPERATION_NAMES, a.operation);
  const permissionType = fromPascalName(PERMISSION_NAMES, a.permissionType);
  if (operation === undefined || permissionType === undefined) throw new Error(`Invalid ACL ${JSON.stringify(a)} at ${path}`);
  parseKafkaPrincipal(a.principal);
  return { principal: a.principal, host: a.host, operation, permissionType };
}

function toZkEntry(e: AccessControlEntry): ZkAclEntry {
  return { principal: e.principal, permissionType: pascalName(e.permissionType), operation: pascalName(e.operation), host: e.host };
}

function toZkResource(p: ResourcePattern): ZkAclResource {
  return { resourceType: pascalName(p.resourceType), name: p.name, patternType: p.patternType === 'PREFIXED' ? 'PREFIXED' : 'LITERAL' };
}

function toPattern(r: ZkAclResource): ResourcePattern | undefined {
  const resourceType = fromPascalName(RESOURCE_TYPE_NAMES, r.resourceType);
  return resourceType === undefined ? undefined : { resourceType, name: r.name, patternType: r.patternType };
}

/**
 * Kafka 2.8's AclAuthorizer over an injected store: a cache of every resource's ACLs loaded at start and kept
 * current by the store's change notifications; super users; allow.everyone.if.no.acl.found; deny before allow;
 * wildcard resources and principals; prefixed patterns; host filters; Describe implied by Read, Write, Delete
 * and Alter, DescribeConfigs by AlterConfigs; All matching every operation. Decisions go to
 * `kafka.authorizer.logger` (kafka-authorizer.log) in Kafka's words.
 */
export class AclAuthorizer {
  private readonly superUsers: ReadonlySet<string>;
  private readonly cache = new Map<ResourceTypeName, TypeCache>();
  private readonly log: Logger = getLogger('kafka.authorizer.logger');
  private readonly infoLog: Logger = getLogger('kafka.security.authorizer.AclAuthorizer');

  constructor(
    private readonly config: AclAuthorizerConfig,
    private readonly store: AclStore,
  ) {
    this.superUsers = new Set(
      config.superUsers
        .split(';')
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
        .map((s) => principalToString(parseKafkaPrincipal(s))),
    );
    for (const type of CONCRETE_RESOURCE_TYPES) this.cache.set(type, { literal: new Map(), prefixed: new Map() });
  }

  /** Creates the store's paths, loads every ACL, and starts following change notifications. */
  async start(): Promise<void> {
    await this.store.createPaths(CONCRETE_RESOURCE_TYPES.map(pascalName));
    for (const { resource, acls } of await this.store.loadAll()) this.setCache(resource, acls);
    this.store.watchChanges(async (resource) => {
      this.setCache(resource, await this.store.read(resource));
    });
  }

  close(): void {
    this.store.close();
  }

  /** Kafka's Authorizer.authorize for one action. */
  authorize(request: AuthorizableRequest, action: Action): boolean {
    const principal = principalToString(request.principal);
    const host = hostOf(request.clientAddress);
    const resource = `${pascalName(action.resourceType)}:LITERAL:${action.name}`;
    let allowed: boolean;
    if (this.superUsers.has(principal)) {
      if (this.log.isDebugEnabled()) this.log.debug(`principal = ${principal} is a super user, allowing operation without checking acls.`);
      allowed = true;
    } else {
      allowed = this.aclsAllowAccess(principal, host, action, resource);
    }
    this.logAudit(request, principal, host, resource, action, allowed);
    return allowed;
  }

  /**
   * Kafka 2.8's AclAuthorizer.authorizeByResourceType (KIP-679): may the principal `operation` on at least one
   * resource of the type? A literal wildcard DENY refuses outright; allow.everyone.if.no.acl.found then allows;
   * otherwise some ALLOW pattern must survive the DENY literals and prefixes. InitProducerId asks it (Write on
   * any topic stands in for IdempotentWrite), so an idempotent producer needs no cluster ACL of its own.
   */
  authorizeByResourceType(request: AuthorizableRequest, operation: AclOperationName, resourceType: ResourceTypeName): boolean {
    const principal = principalToString(request.principal);
    const host = hostOf(request.clientAddress);
    const action: Action = { resourceType, name: '', operation };
    const resource = `${pascalName(resourceType)}:UNKNOWN:`;
    const decide = (allowed: boolean): boolean => {
      this.logAudit(request, principal, host, resource, action, allowed);
      return allowed;
    };
    if (this.superUsers.has(principal)) return true;
    const denyLiterals = this.matchingNames(principal, host, operation, 'DENY', resourceType, 'literal');
    if (denyLiterals.has(WILDCARD)) return decide(false);
    if (this.config.allowEveryoneIfNoAclFound) return decide(true);
    const denyPrefixes = this.matchingNames(principal, host, operation, 'DENY', resourceType, 'prefixed');
    const survives = (name: string): boolean => !denyLiterals.has(name) && ![...denyPrefixes].some((prefix) => name.startsWith(prefix));
    for (const patternType of ['literal', 'prefixed'] as const) {
      for (const name of this.matchingNames(principal, host, operation, 'ALLOW', resourceType, patternType)) if (survives(name)) return decide(true);
    }
    return decide(false);
  }

  /** The names of the type's patterns holding an entry for this principal, host and operation (or their wildcards, or All). */
  private matchingNames(principal: string, host: string, operation: AclOperationName, permissionType: 'ALLOW' | 'DENY', resourceType: ResourceTypeName, patternType: 'literal' | 'prefixed'): Set<string> {
    const out = new Set<string>();
    const map = this.cache.get(resourceType)?.[patternType];
    if (map === undefined) return out;
    for (const [name, versioned] of map) {
      const hit = versioned.acls.some(
        (a) =>
          a.permissionType === permissionType &&
          (a.principal === principal || a.principal === WILDCARD_PRINCIPAL) &&
          (a.operation === operation || a.operation === 'ALL') &&
          (a.host === host || a.host === WILDCARD),
      );
      if (hit) out.add(name);
    }
    return out;
  }

  /** Kafka's AuthHelper.authorizedOperations: the supported operations allowed, as a 32-bit field of their codes. */
  authorizedOperations(request: AuthorizableRequest, resourceType: ResourceTypeName, name: string, codes: Readonly<Record<AclOperationName, number>>): number {
    let field = 0;
    for (const operation of SUPPORTED_OPERATIONS[resourceType] ?? []) {
      if (this.authorize(request, { resourceType, name, operation, logIfAllowed: false, logIfDenied: false })) field |= 1 << codes[operation];
    }
    return field;
  }

  /** Every binding the filter matches (Kafka's Authorizer.acls). */
  acls(filter: AclBindingFilter): AclBinding[] {
    const out: AclBinding[] = [];
    for (const [resourceType, byPattern] of this.cache) {
      for (const [patternType, map] of [['LITERAL', byPattern.literal] as const, ['PREFIXED', byPattern.prefixed] as const]) {
        for (const [name, versioned] of map) {
          const pattern: ResourcePattern = { resourceType, name, patternType };
          for (const entry of versioned.acls) {
            const binding = { pattern, entry };
            if (bindingFilterMatches(filter, binding)) out.push(binding);
          }
        }
      }
    }
    return out;
  }

  /** Kafka's createAcls: validated, grouped by resource, each resource updated conditionally with retries. */
  async createAcls(bindings: readonly AclBinding[]): Promise<AclCreateResult[]> {
    const results: AclCreateResult[] = bindings.map(() => ({}));
    const byResource = new Map<string, { pattern: ResourcePattern; members: Array<{ index: number; entry: AccessControlEntry }> }>();
    bindings.forEach((b, index) => {
      const problem = bindingProblem(b);
      if (problem !== undefined) {
        results[index] = { error: { code: 'INVALID_REQUEST', message: `Failed to create ACL: ${problem}` } };
        return;
      }
      const key = `${b.pattern.resourceType}:${b.pattern.patternType}:${b.pattern.name}`;
      const group = byResource.get(key) ?? { pattern: b.pattern, members: [] };
      group.members.push({ index, entry: b.entry });
      byResource.set(key, group);
    });
    for (const { pattern, members } of byResource.values()) {
      try {
        await this.updateResourceAcls(pattern, (current) => {
          const next = [...current];
          for (const { entry } of members) if (!next.some((e) => entryEquals(e, entry))) next.push(entry);
          return next;
        });
      } catch (e) {
        for (const { index } of members) results[index] = { error: { code: 'UNKNOWN_SERVER_ERROR', message: `Failed to create ACL: ${(e as Error).message}` } };
      }
    }
    return results;
  }

  /** Kafka's deleteAcls: every binding each filter matches, removed resource by resource. */
  async deleteAcls(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]> {
    const outcomes = filters.map((filter) => ({ filter, deleted: [] as AclBinding[], failure: undefined as string | undefined }));
    const resources = new Map<string, ResourcePattern>();
    for (const filter of filters) for (const b of this.acls(filter)) resources.set(`${b.pattern.resourceType}:${b.pattern.patternType}:${b.pattern.name}`, b.pattern);
    for (const pattern of resources.values()) {
      let removed: Array<{ outcome: (typeof outcomes)[number]; binding: AclBinding }> = [];
      try {
        await this.updateResourceAcls(pattern, (current) => {
          removed = [];
          return current.filter((entry) => {
            const binding = { pattern, entry };
            const matching = outcomes.filter((o) => bindingFilterMatches(o.filter, binding));
            for (const outcome of matching) removed.push({ outcome, binding });
            return matching.length === 0;
          });
        });
        for (const { outcome, binding } of removed) outcome.deleted.push(binding);
      } catch (e) {
        for (const o of outcomes) if (this.acls(o.filter).some((b) => b.pattern.name === pattern.name)) o.failure = (e as Error).message;
      }
    }
    return outcomes.map((o) => (o.failure !== undefined ? { error: { code: 'UNKNOWN_SERVER_ERROR', message: o.failure }, deleted: o.deleted } : { deleted: o.deleted }));
  }

  private matchingAcls(resourceType: ResourceTypeName, name: string): AccessControlEntry[] {
    const byPattern = this.cache.get(resourceType);
    if (byPattern === undefined) return [];
    const out: AccessControlEntry[] = [];
    const literal = byPattern.literal.get(name);
    if (literal !== undefined) out.push(...literal.acls);
    if (name !== WILDCARD) {
      const wildcard = byPattern.literal.get(WILDCARD);
      if (wildcard !== undefined) out.push(...wildcard.acls);
    }
    for (const [prefix, versioned] of byPattern.prefixed) if (name.startsWith(prefix)) out.push(...versioned.acls);
    return out;
  }

  private aclsAllowAccess(principal: string, host: string, action: Action, resource: string): boolean {
    const acls = this.matchingAcls(action.resourceType, action.name);
    if (acls.length === 0) {
      if (this.log.isDebugEnabled()) this.log.debug(`No acl found for resource ${resource}, authorized = ${String(this.config.allowEveryoneIfNoAclFound)}`);
      return this.config.allowEveryoneIfNoAclFound;
    }
    const op = action.operation;
    if (this.matchingAclExists(op, principal, host, 'DENY', acls, resource)) return false;
    // Allowing read, write, delete or alter implies describe; alter-configs implies describe-configs.
    const allowOps: readonly AclOperationName[] = op === 'DESCRIBE' ? ['DESCRIBE', 'READ', 'WRITE', 'DELETE', 'ALTER'] : op === 'DESCRIBE_CONFIGS' ? ['DESCRIBE_CONFIGS', 'ALTER_CONFIGS'] : [op];
    return allowOps.some((o) => this.matchingAclExists(o, principal, host, 'ALLOW', acls, resource));
  }

  private matchingAclExists(operation: AclOperationName, principal: string, host: string, permissionType: 'ALLOW' | 'DENY', acls: readonly AccessControlEntry[], resource: string): boolean {
    const acl = acls.find(
      (a) =>
        a.permissionType === permissionType &&
        (a.principal === principal || a.principal === WILDCARD_PRINCIPAL) &&
        (a.operation === operation || a.operation === 'ALL') &&
        (a.host === host || a.host === WILDCARD),
    );
    if (acl === undefined) return false;
    if (this.log.isDebugEnabled()) {
      this.log.debug(`operation = ${operation} on resource = ${resource} from host = ${host} is ${permissionType} based on acl = ${acl.principal} has ${pascalName(acl.permissionType)} permission for operations: ${pascalName(acl.operation)} from hosts: ${acl.host}`);
    }
    return true;
  }

  private logAudit(request: AuthorizableRequest, principal: string, host: string, resource: string, action: Action, allowed: boolean): void {
    const line = (): string =>
      `Principal = ${principal} is ${allowed ? 'Allowed' : 'Denied'} Operation = ${pascalName(action.operation)} from host = ${host} on resource = ${resource} for request = ${request.requestName} with resourceRefCount = ${action.refCount ?? 1}`;
    if (allowed) {
      if (action.logIfAllowed !== false) {
        if (this.log.isDebugEnabled()) this.log.debug(line());
      } else if (this.log.isTraceEnabled()) this.log.trace(line());
    } else if (action.logIfDenied !== false) this.log.info(line());
    else if (this.log.isTraceEnabled()) this.log.trace(line());
  }

  private cached(pattern: ResourcePattern): VersionedAcls | undefined {
    const byPattern = this.cache.get(pattern.resourceType);
    return (pattern.patternType === 'PREFIXED' ? byPattern?.prefixed : byPattern?.literal)?.get(pattern.name);
  }

  private setCache(resource: ZkAclResource, versioned: { acls: ZkAclEntry[]; version: number }): void {
    const pattern = toPattern(resource);
    if (pattern === undefined) {
      this.infoLog.warn(`Ignoring ACLs of unknown resource type ${resource.resourceType} (${resource.name})`);
      return;
    }
    const byPattern = this.cache.get(pattern.resourceType);
    if (byPattern === undefined) return;
    const map = pattern.patternType === 'PREFIXED' ? byPattern.prefixed : byPattern.literal;
    const where = `${resource.patternType} ${resource.resourceType}:${resource.name}`;
    const acls: AccessControlEntry[] = [];
    for (const a of versioned.acls) {
      try {
        acls.push(toEntry(where, a));
      } catch (e) {
        // One bad entry written by hand must not hide the others.
        this.infoLog.error((e as Error).message);
      }
    }
    if (acls.length === 0) map.delete(pattern.name);
    else map.set(pattern.name, { acls, version: versioned.version });
  }

  /** Kafka's updateResourceAcls: read (cache, else store), transform, write on the version read; retry on conflict. */
  private async updateResourceAcls(pattern: ResourcePattern, transform: (current: readonly AccessControlEntry[]) => AccessControlEntry[]): Promise<void> {
    const resource = toZkResource(pattern);
    const fromCache = this.cached(pattern);
    let current: VersionedAcls = fromCache ?? (await this.readStore(resource));
    for (let retries = 0; retries <= MAX_UPDATE_RETRIES; retries++) {
      const next = transform(current.acls);
      const before = current.acls;
      const unchanged = next.length === before.length && next.every((e, i) => { const b = before[i]; return b !== undefined && entryEquals(e, b); });
      if (unchanged && fromCache !== undefined && current === fromCache) {
        // The cache may be behind the store; make sure before deciding there is nothing to do.
        current = await this.readStore(resource);
        continue;
      }
      if (unchanged) return;
      const version = await this.store.conditionalWrite(resource, next.map(toZkEntry), current.version);
      if (version === undefined) {
        current = await this.readStore(resource);
        continue;
      }
      this.infoLog.info(`Updated ACLs for ${pattern.resourceType}:${pattern.patternType}:${pattern.name} with new version ${version}`);
      this.setCache(resource, { acls: next.map(toZkEntry), version });
      await this.store.notifyChange(resource);
      return;
    }
    throw new Error(`Failed to update ACLs for ${pattern.resourceType}:${pattern.patternType}:${pattern.name} after trying a maximum of ${MAX_UPDATE_RETRIES} times`);
  }

  private async readStore(resource: ZkAclResource): Promise<VersionedAcls> {
    const read = await this.store.read(resource);
    return { acls: read.acls.map((a) => toEntry(`${resource.patternType} ${resource.resourceType}:${resource.name}`, a)), version: read.version };
  }
}
