import { KafkaPrincipal, parseKafkaPrincipal, principalToString } from './kafka-principal';

/*
 * Kafka's ACL vocabulary (org.apache.kafka.common.acl / .resource): the enums with their wire codes, the names
 * ZooKeeper JSON and kafka-acls use for them, and the printed forms of a binding. Pure data; no I/O.
 */

/** Kafka's ResourceType codes. */
export const ResourceType = { UNKNOWN: 0, ANY: 1, TOPIC: 2, GROUP: 3, CLUSTER: 4, TRANSACTIONAL_ID: 5, DELEGATION_TOKEN: 6 } as const;
export type ResourceTypeName = keyof typeof ResourceType;

/** Kafka's PatternType codes. */
export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;
export type PatternTypeName = keyof typeof PatternType;

/** Kafka's AclOperation codes. */
export const AclOperation = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
} as const;
export type AclOperationName = keyof typeof AclOperation;

/** Kafka's AclPermissionType codes. */
export const AclPermissionType = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;
export type AclPermissionTypeName = keyof typeof AclPermissionType;

/** The one cluster resource's name (Kafka's Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = 'kafka-cluster';
/** `*`: every resource of a type (ResourcePattern.WILDCARD_RESOURCE), every host (AclEntry.WildcardHost). */
export const WILDCARD = '*';
export const WILDCARD_PRINCIPAL = 'User:*';

/** What an ACL protects: a literal name, a name prefix, or `*` (Kafka's ResourcePattern). */
export interface ResourcePattern {
  readonly resourceType: ResourceTypeName;
  readonly name: string;
  readonly patternType: PatternTypeName;
}

/** Who may or may not do what from where (Kafka's AccessControlEntry); principal in `Type:name` form. */
export interface AccessControlEntry {
  readonly principal: string;
  readonly host: string;
  readonly operation: AclOperationName;
  readonly permissionType: AclPermissionTypeName;
}

export interface AclBinding {
  readonly pattern: ResourcePattern;
  readonly entry: AccessControlEntry;
}

/** A filter over bindings (Kafka's AclBindingFilter): null names match any; ANY enum values match any. */
export interface AclBindingFilter {
  readonly resourceType: ResourceTypeName;
  readonly name: string | null;
  readonly patternType: PatternTypeName;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: AclOperationName;
  readonly permissionType: AclPermissionTypeName;
}

function byCode<T extends Record<string, number>>(table: T): Map<number, keyof T> {
  return new Map(Object.entries(table).map(([k, v]) => [v, k as keyof T]));
}
const RESOURCE_BY_CODE = byCode(ResourceType);
const PATTERN_BY_CODE = byCode(PatternType);
const OPERATION_BY_CODE = byCode(AclOperation);
const PERMISSION_BY_CODE = byCode(AclPermissionType);

/** Enum names from wire codes; unknown codes become UNKNOWN, as Kafka's fromCode. */
export const fromCode = {
  resourceType: (c: number): ResourceTypeName => RESOURCE_BY_CODE.get(c) ?? 'UNKNOWN',
  patternType: (c: number): PatternTypeName => PATTERN_BY_CODE.get(c) ?? 'UNKNOWN',
  operation: (c: number): AclOperationName => OPERATION_BY_CODE.get(c) ?? 'UNKNOWN',
  permissionType: (c: number): AclPermissionTypeName => PERMISSION_BY_CODE.get(c) ?? 'UNKNOWN',
};

/** `CLUSTER_ACTION` -> `ClusterAction`: Kafka's SecurityUtils.toPascalCase, used in ZooKeeper JSON and paths. */
export function pascalName(enumName: string): string {
  return enumName
    .toLowerCase()
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

/** The inverse of pascalName over an enum's names (Kafka's SecurityUtils.operation/permissionType/resourceType). */
export function fromPascalName<T extends string>(names: readonly T[], text: string): T | undefined {
  const wanted = text.replace(/_/g, '').toLowerCase();
  return names.find((n) => n.replace(/_/g, '').toLowerCase() === wanted);
}

export const RESOURCE_TYPE_NAMES = Object.keys(ResourceType) as ResourceTypeName[];
export const OPERATION_NAMES = Object.keys(AclOperation) as AclOperationName[];
export const PERMISSION_NAMES = Object.keys(AclPermissionType) as AclPermissionTypeName[];
export const PATTERN_NAMES = Object.keys(PatternType) as PatternTypeName[];

/** The resource types ACLs can be stored for (everything but UNKNOWN and ANY). */
export const CONCRETE_RESOURCE_TYPES: readonly ResourceTypeName[] = ['TOPIC', 'GROUP', 'CLUSTER', 'TRANSACTIONAL_ID', 'DELEGATION_TOKEN'];

/** Kafka's AclEntry.supportedOperations: what an ACL on each resource type may name (ALL besides these). */
export const SUPPORTED_OPERATIONS: Readonly<Record<string, readonly AclOperationName[]>> = {
  TOPIC: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
  GROUP: ['READ', 'DESCRIBE', 'DELETE'],
  CLUSTER: ['CREATE', 'CLUSTER_ACTION', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS', 'IDEMPOTENT_WRITE', 'ALTER', 'DESCRIBE'],
  TRANSACTIONAL_ID: ['DESCRIBE', 'WRITE'],
  DELEGATION_TOKEN: ['DESCRIBE'],
};

export function resourcePatternToString(p: ResourcePattern): string {
  return `ResourcePattern(resourceType=${p.resourceType}, name=${p.name}, patternType=${p.patternType})`;
}

export function entryToString(e: AccessControlEntry): string {
  return `(principal=${e.principal}, host=${e.host}, operation=${e.operation}, permissionType=${e.permissionType})`;
}

/** Kafka's AclBinding.toString. */
export function bindingToString(b: AclBinding): string {
  return `(pattern=${resourcePatternToString(b.pattern)}, entry=${entryToString(b.entry)})`;
}

/** A stable key for a pattern (maps of ACLs by resource). */
export function patternKey(p: ResourcePattern): string {
  return `${p.resourceType}:${p.patternType}:${p.name}`;
}

export function entryEquals(a: AccessControlEntry, b: AccessControlEntry): boolean {
  return a.principal === b.principal && a.host === b.host && a.operation === b.operation && a.permissionType === b.permissionType;
}

/** Does a stored pattern match a filter's pattern part (Kafka's ResourcePatternFilter.matches)? */
export function patternFilterMatches(filter: Pick<AclBindingFilter, 'resourceType' | 'name' | 'patternType'>, p: ResourcePattern): boolean {
  if (filter.resourceType !== 'ANY' && filter.resourceType !== p.resourceType) return false;
  if (filter.patternType !== 'ANY' && filter.patternType !== 'MATCH' && filter.patternType !== p.patternType) return false;
  if (filter.name === null) return true;
  if (filter.patternType === 'ANY' || filter.patternType === p.patternType) return filter.name === p.name;
  // MATCH: every pattern that would apply to a resource of this literal name.
  switch (p.patternType) {
    case 'LITERAL':
      return filter.name === p.name || p.name === WILDCARD;
    case 'PREFIXED':
      return filter.name.startsWith(p.name);
    default:
      return false;
  }
}

/** Does an entry match a filter's entry part (Kafka's AccessControlEntryFilter.matches)? */
export function entryFilterMatches(filter: Pick<AclBindingFilter, 'principal' | 'host' | 'operation' | 'permissionType'>, e: AccessControlEntry): boolean {
  if (filter.principal !== null && filter.principal !== e.principal) return false;
  if (filter.host !== null && filter.host !== e.host) return false;
  if (filter.operation !== 'ANY' && filter.operation !== e.operation) return false;
  return filter.permissionType === 'ANY' || filter.permissionType === e.permissionType;
}

export function bindingFilterMatches(filter: AclBindingFilter, b: AclBinding): boolean {
  return patternFilterMatches(filter, b.pattern) && entryFilterMatches(filter, b.entry);
}

/**
 * Why a binding cannot be stored, or undefined (Kafka's AclAuthorizer / CreateAcls validation): every part must be
 * concrete, the pattern LITERAL or PREFIXED, the principal parseable (the broker, as Kafka's, does not check the
 * operation against the resource type: kafka-acls does).
 */
export function bindingProblem(b: AclBinding): string | undefined {
  const { pattern, entry } = b;
  if (pattern.resourceType === 'UNKNOWN' || pattern.resourceType === 'ANY') return 'Invalid resource type';
  if (pattern.patternType !== 'LITERAL' && pattern.patternType !== 'PREFIXED') return `Invalid pattern type: ${pattern.patternType}`;
  if (pattern.name.length === 0) return 'Invalid empty resource name';
  if (pattern.resourceType === 'CLUSTER' && (pattern.name !== CLUSTER_NAME || pattern.patternType !== 'LITERAL')) {
    return 'The only valid name for the CLUSTER resource is kafka-cluster';
  }
  if (entry.operation === 'UNKNOWN' || entry.operation === 'ANY') return 'Invalid operation';
  if (entry.permissionType === 'UNKNOWN' || entry.permissionType === 'ANY') return 'Invalid permission type';
  try {
    parseKafkaPrincipal(entry.principal);
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/** Operations an ACL on `resourceType` may not name (kafka-acls refuses them: AclCommand.validateOperation). */
export function unsupportedOperations(resourceType: ResourceTypeName, ops: readonly AclOperationName[]): AclOperationName[] {
  const supported = SUPPORTED_OPERATIONS[resourceType] ?? [];
  return ops.filter((op) => op !== 'ALL' && !supported.includes(op));
}

export function principalOf(p: KafkaPrincipal): string {
  return principalToString(p);
}
