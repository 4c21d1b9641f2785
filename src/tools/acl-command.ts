import { NetworkClient } from '../client/network-client';
import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { SYSTEM_CLOCK } from '../common/time';
import { CreateAclsApi } from '../protocol/apis/create-acls';
import { DeleteAclsApi } from '../protocol/apis/delete-acls';
import { DescribeAclsApi } from '../protocol/apis/describe-acls';
import { AclAuthorizer } from '../security/acl-authorizer';
import {
  AccessControlEntry,
  AclBinding,
  AclBindingFilter,
  AclOperation,
  AclOperationName,
  AclPermissionType,
  CLUSTER_NAME,
  entryEquals,
  entryToString,
  fromCode,
  fromPascalName,
  OPERATION_NAMES,
  patternKey,
  PatternType,
  PatternTypeName,
  ResourcePattern,
  resourcePatternToString,
  ResourceType,
  ResourceTypeName,
  unsupportedOperations,
  SUPPORTED_OPERATIONS,
} from '../security/acl-binding';
import { parseKafkaPrincipal, principalToString } from '../security/kafka-principal';
import { isZkSaslEnabled, zkClientCredentials } from '../security/zookeeper-login';
import { ZK_SSL_CONFIG_KEYS } from '../security/zookeeper-tls';
import { AclStoreZk } from '../zk/acl-store-zk';
import { ClusterZk } from '../zk/cluster-zk';
import { ZkClient } from '../zk/zk-client';
import { adminClientOptions } from './admin-client-config';
import { CliError } from './cli';
import { javaExceptionName } from './admin-client-config';
import { toolZkTls, ZkTlsConfigFileError, zkTlsConfigFromFile } from './tool-zk-client';

/** kafka-acls's options as commander gives them (repeatable ones as lists). */
export interface AclCommandOptions {
  bootstrapServer?: string;
  commandConfig?: string;
  authorizer?: string;
  authorizerProperties?: string[];
  topic?: string[];
  cluster?: boolean;
  group?: string[];
  transactionalId?: string[];
  delegationToken?: string[];
  resourcePatternType?: string;
  add?: boolean;
  remove?: boolean;
  list?: boolean;
  operation?: string[];
  allowPrincipal?: string[];
  denyPrincipal?: string[];
  principal?: string[];
  allowHost?: string[];
  denyHost?: string[];
  producer?: boolean;
  consumer?: boolean;
  idempotent?: boolean;
  force?: boolean;
  /** ZooKeeper TLS for the authorizer (--authorizer-properties), KIP-515. */
  zkTlsConfigFile?: string;
}

/** A refusal of the arguments: Kafka's printUsageAndDie (message, then usage, exit 1). */
export class AclUsageError extends CliError {}

/** A resource filter (ResourcePatternFilter) printed as Kafka prints it. */
export interface PatternFilter {
  readonly resourceType: ResourceTypeName;
  readonly name: string;
  readonly patternType: PatternTypeName;
}

/** Kafka's AclCommandOptions.checkArgs, with its messages. */
export function checkAclArgs(o: AclCommandOptions): void {
  const has = (v: unknown): boolean => v !== undefined && v !== false;
  if (has(o.bootstrapServer) && has(o.authorizerProperties)) throw new AclUsageError('Only one of --authorizer-properties or --bootstrap-server must be specified');
  if (!has(o.bootstrapServer) && !has(o.authorizerProperties)) throw new AclUsageError('One of --authorizer-properties or --bootstrap-server must be specified');
  if (has(o.commandConfig) && !has(o.bootstrapServer)) throw new AclUsageError('The --command-config option can only be used with --bootstrap-server option');
  if ([o.list, o.add, o.remove].filter(Boolean).length !== 1) throw new AclUsageError('Command must include exactly one action: --list, --add, --remove. ');
  if (o.list) {
    for (const [flag, v] of [
      ['--producer', o.producer],
      ['--consumer', o.consumer],
      ['--allow-host', o.allowHost],
      ['--allow-principal', o.allowPrincipal],
      ['--deny-host', o.denyHost],
      ['--deny-principal', o.denyPrincipal],
    ] as const) {
      if (has(v)) throw new AclUsageError(`Option "[list]" can't be used with option "[${flag.slice(2)}]"`);
    }
  } else if (has(o.principal)) {
    throw new AclUsageError('The --principal option is only available if --list is set');
  }
  if (o.producer && !has(o.topic)) throw new AclUsageError('With --producer you must specify a --topic');
  if (o.idempotent && !o.producer) throw new AclUsageError('The --idempotent option is only available if --producer is set');
  if (o.consumer && (!has(o.topic) || !has(o.group) || (!o.producer && (o.cluster || has(o.transactionalId))))) {
    throw new AclUsageError('With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option should be specified.');
  }
}

function patternTypeOf(o: AclCommandOptions): PatternTypeName {
  const text = (o.resourcePatternType ?? 'LITERAL').trim().toUpperCase();
  if (text !== 'ANY' && text !== 'MATCH' && text !== 'LITERAL' && text !== 'PREFIXED') {
    throw new AclUsageError(`Invalid value ${o.resourcePatternType ?? ''} for option --resource-pattern-type: must be one of ANY, MATCH, LITERAL, PREFIXED`);
  }
  return text;
}

/** Kafka's getResourceFilter: one filter per named resource, the cluster with --cluster or --idempotent. */
export function resourceFilters(o: AclCommandOptions, dieIfNoResourceFound = true): PatternFilter[] {
  const patternType = patternTypeOf(o);
  const out: PatternFilter[] = [];
  const add = (resourceType: ResourceTypeName, name: string): void => {
    if (!out.some((f) => f.resourceType === resourceType && f.name === name)) out.push({ resourceType, name, patternType });
  };
  for (const t of o.topic ?? []) add('TOPIC', t.trim());
  if (patternType === 'LITERAL' && (o.cluster || o.idempotent)) add('CLUSTER', CLUSTER_NAME);
  for (const g of o.group ?? []) add('GROUP', g.trim());
  for (const t of o.transactionalId ?? []) add('TRANSACTIONAL_ID', t);
  for (const t of o.delegationToken ?? []) add('DELEGATION_TOKEN', t.trim());
  if (out.length === 0 && dieIfNoResourceFound) {
    throw new AclUsageError('You must provide at least one resource: --topic <topic> or --cluster or --group <group> or --delegation-token <Delegation Token ID>');
  }
  return out;
}

function principals(values: readonly string[] | undefined): string[] {
  return [...new Set((values ?? []).map((s) => principalToString(parseKafkaPrincipal(s.trim()))))];
}

function hosts(hostValues: readonly string[] | undefined, principalValues: readonly string[] | undefined): string[] {
  if (hostValues !== undefined && hostValues.length > 0) return [...new Set(hostValues.map((h) => h.trim()))];
  return principalValues !== undefined && principalValues.length > 0 ? ['*'] : [];
}

function operationsOf(o: AclCommandOptions): AclOperationName[] {
  return [
    ...new Set(
      (o.operation ?? ['All']).map((text) => {
        const op = fromPascalName(OPERATION_NAMES, text.trim());
        if (op === undefined || op === 'UNKNOWN' || op === 'ANY') throw new CliError(`Error while executing ACL command: Unknown operation: ${text.trim()}`);
        return op;
      }),
    ),
  ];
}

/** Kafka's getAcl: allow entries for each allowed principal and host, deny entries likewise. */
function entries(o: AclCommandOptions, operations: readonly AclOperationName[]): AccessControlEntry[] {
  const out: AccessControlEntry[] = [];
  const push = (ps: string[], hs: string[], permissionType: 'ALLOW' | 'DENY'): void => {
    for (const principal of ps) for (const host of hs) for (const operation of operations) out.push({ principal, host, operation, permissionType });
  };
  push(principals(o.allowPrincipal), hosts(o.allowHost, o.allowPrincipal), 'ALLOW');
  push(principals(o.denyPrincipal), hosts(o.denyHost, o.denyPrincipal), 'DENY');
  return out;
}

/** Kafka's getResourceFilterToAcls: the CLI's ACLs, or the --producer / --consumer sets, validated per type. */
export function filterToAcls(o: AclCommandOptions): Array<{ filter: PatternFilter; acls: AccessControlEntry[] }> {
  const out: Array<{ filter: PatternFilter; acls: AccessControlEntry[] }> = [];
  const put = (filter: PatternFilter, acls: AccessControlEntry[]): void => {
    const existing = out.find((e) => e.filter.resourceType === filter.resourceType && e.filter.name === filter.name);
    if (existing === undefined) out.push({ filter, acls });
    else for (const a of acls) if (!existing.acls.some((e) => entryEquals(e, a))) existing.acls.push(a);
  };
  if (!o.producer && !o.consumer) for (const f of resourceFilters(o)) put(f, entries(o, operationsOf(o)));
  if (o.producer) {
    for (const f of resourceFilters(o)) {
      if (f.resourceType === 'TOPIC') put(f, entries(o, ['WRITE', 'DESCRIBE', 'CREATE']));
      if (f.resourceType === 'TRANSACTIONAL_ID') put(f, entries(o, ['WRITE', 'DESCRIBE']));
    }
    if (o.idempotent) put({ resourceType: 'CLUSTER', name: CLUSTER_NAME, patternType: 'LITERAL' }, entries(o, ['IDEMPOTENT_WRITE']));
  }
  if (o.consumer) {
    for (const f of resourceFilters(o)) {
      if (f.resourceType === 'TOPIC') put(f, entries(o, ['READ', 'DESCRIBE']));
      if (f.resourceType === 'GROUP') put(f, entries(o, ['READ']));
    }
  }
  for (const { filter, acls } of out) {
    if (unsupportedOperations(filter.resourceType, acls.map((a) => a.operation)).length > 0) {
      throw new AclUsageError(`ResourceType ${filter.resourceType} only supports operations ${[...(SUPPORTED_OPERATIONS[filter.resourceType] ?? []), 'ALL'].join(',')}`);
    }
  }
  return out;
}

/** Kafka's printResourceAcls line: "Current ACLs for resource `...`: \n \t(acl)\n\t(acl) \n". */
export function formatAclBlock(header: string, pattern: string, acls: readonly AccessControlEntry[]): string {
  return `${header} \`${pattern}\`: \n ${acls.map((a) => `\t${entryToString(a)}`).join('\n')} \n`;
}

/** Where the command reads and writes ACLs: the brokers (--bootstrap-server) or ZooKeeper (--authorizer-properties). */
interface AclBackend {
  create(bindings: AclBinding[]): Promise<void>;
  remove(filters: AclBindingFilter[]): Promise<void>;
  describe(filter: AclBindingFilter): Promise<AclBinding[]>;
  close(): Promise<void> | void;
}

const ANY_ENTRY = { principal: null, host: null, operation: 'ANY', permissionType: 'ANY' } as const;

function failure(code: number, message: string | null): CliError {
  const name = javaExceptionName(fromCodeName(code));
  return new CliError(`Error while executing ACL command: ${name}: ${message ?? ErrorCode[fromCodeName(code)].message}`);
}

function fromCodeName(code: number): keyof typeof ErrorCode {
  return (Object.keys(ErrorCode) as Array<keyof typeof ErrorCode>).find((k) => ErrorCode[k].code === code) ?? 'UNKNOWN_SERVER_ERROR';
}

function adminBackend(o: AclCommandOptions): AclBackend {
  const client = new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.commandConfig, '--command-config', { clientId: 'adminclient-1' }));
  const wireFilter = (f: AclBindingFilter) => ({
    resourceTypeFilter: ResourceType[f.resourceType],
    resourceNameFilter: f.name,
    patternTypeFilter: PatternType[f.patternType],
    principalFilter: f.principal,
    hostFilter: f.host,
    operation: AclOperation[f.operation],
    permissionType: AclPermissionType[f.permissionType],
  });
  return {
    async create(bindings) {
      const r = await client.request('any', CreateAclsApi, {
        creations: bindings.map((b) => ({
          resourceType: ResourceType[b.pattern.resourceType],
          resourceName: b.pattern.name,
          resourcePatternType: PatternType[b.pattern.patternType],
          principal: b.entry.principal,
          host: b.entry.host,
          operation: AclOperation[b.entry.operation],
          permissionType: AclPermissionType[b.entry.permissionType],
        })),
      });
      const bad = r.results.find((x) => x.errorCode !== 0);
      if (bad !== undefined) throw failure(bad.errorCode, bad.errorMessage);
    },
    async remove(filters) {
      const r = await client.request('any', DeleteAclsApi, { filters: filters.map(wireFilter) });
      const bad = r.filterResults.find((x) => x.errorCode !== 0);
      if (bad !== undefined) throw failure(bad.errorCode, bad.errorMessage);
    },
    async describe(filter) {
      const r = await client.request('any', DescribeAclsApi, wireFilter(filter));
      if (r.errorCode !== 0) throw failure(r.errorCode, r.errorMessage);
      return r.resources.flatMap((res) =>
        res.acls.map((a) => ({
          pattern: { resourceType: fromCode.resourceType(res.resourceType), name: res.resourceName, patternType: fromCode.patternType(res.patternType) },
          entry: { principal: a.principal, host: a.host, operation: fromCode.operation(a.operation), permissionType: fromCode.permissionType(a.permissionType) },
        })),
      );
    },
    close() {
      client.close();
    },
  };
}

/**
 * AclCommand's AuthorizerService.withAuthorizer and AclAuthorizer.configure: the authorizer's properties, over a
 * `zookeeper.set.acl` that defaults to whether a JAAS login is configured (with TLS client authentication only,
 * it must be given explicitly, as Kafka's help says), under the ZooKeeper TLS keys of --zk-tls-config-file (with
 * or without the `authorizer.` prefix). Its ZooKeeper session: `authorizer.zookeeper.url` / `.session.timeout.ms` /
 * `.connection.timeout.ms` over the `zookeeper.*` keys (KafkaConfig's defaults), TLS from `authorizer.`-prefixed
 * keys over the plain ones over the system properties of KAFKA_OPTS, a login with the JAAS Client section.
 */
async function zkBackend(o: AclCommandOptions, env: NodeJS.ProcessEnv = process.env): Promise<AclBackend> {
  const props = new Map<string, string>();
  for (const p of o.authorizerProperties ?? []) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new AclUsageError(`Invalid argument ${p}: --authorizer-properties takes key=val pairs`);
    props.set(p.slice(0, eq).trim(), p.slice(eq + 1).trim());
  }
  let zk: ZkClient;
  try {
    if (!props.has('zookeeper.set.acl')) props.set('zookeeper.set.acl', String(isZkSaslEnabled(env)));
    if (o.zkTlsConfigFile !== undefined) {
      for (const [key, value] of zkTlsConfigFromFile(o.zkTlsConfigFile, ZK_SSL_CONFIG_KEYS.map((k) => `authorizer.${k}`))) props.set(key, value);
    }
    const connect = props.get('zookeeper.connect');
    if (connect === undefined) throw new Error('Missing required configuration "zookeeper.connect" which has no default value.');
    const int = (key: string): number | undefined => {
      const text = props.get(key);
      if (text === undefined) return undefined;
      if (!/^\s*-?\d+\s*$/.test(text)) throw new Error(`Invalid value ${text} for configuration ${key}: Not a number of type INT`);
      return Number(text);
    };
    const zkSessionTimeoutMs = int('zookeeper.session.timeout.ms') ?? 18000;
    const sessionTimeoutMs = int('authorizer.zookeeper.session.timeout.ms') ?? zkSessionTimeoutMs;
    const connectionTimeoutMs = int('authorizer.zookeeper.connection.timeout.ms') ?? int('zookeeper.connection.timeout.ms') ?? zkSessionTimeoutMs;
    const connectString = props.get('authorizer.zookeeper.url') ?? connect;
    const auth = zkClientCredentials(env);
    const { tls } = toolZkTls((key) => props.get(`authorizer.${key}`) ?? props.get(key), env);
    const security = { ...(auth === undefined ? {} : { auth }), ...(tls === undefined ? {} : { tls }), secureAcls: (props.get('zookeeper.set.acl') ?? '').trim().toLowerCase() === 'true' };
    await ClusterZk.ensureChroot(connectString, sessionTimeoutMs, connectionTimeoutMs, security);
    zk = await ZkClient.connect({ connectString, sessionTimeoutMs, connectionTimeoutMs, name: 'ACL authorizer', ...security });
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`Error while executing ACL command: ${e instanceof ZkTlsConfigFileError ? `${e.exceptionClass}: ` : ''}${(e as Error).message}`);
  }
  const authorizer = new AclAuthorizer({ superUsers: '', allowEveryoneIfNoAclFound: false }, new AclStoreZk(zk, SYSTEM_CLOCK));
  await authorizer.start();
  return {
    async create(bindings) {
      const bad = (await authorizer.createAcls(bindings)).find((r) => r.error !== undefined);
      if (bad?.error !== undefined) throw failure(ErrorCode[bad.error.code].code, bad.error.message);
    },
    async remove(filters) {
      const bad = (await authorizer.deleteAcls(filters)).find((r) => r.error !== undefined);
      if (bad?.error !== undefined) throw failure(ErrorCode[bad.error.code].code, bad.error.message);
    },
    describe(filter) {
      return Promise.resolve(authorizer.acls(filter));
    },
    close() {
      authorizer.close();
      zk.close();
    },
  };
}

/** Kafka's getAcls: bindings by resource, for the filters (none: every ACL). */
async function aclsByResource(backend: AclBackend, filters: readonly PatternFilter[]): Promise<Map<string, { pattern: ResourcePattern; acls: AccessControlEntry[] }>> {
  const out = new Map<string, { pattern: ResourcePattern; acls: AccessControlEntry[] }>();
  const asked: AclBindingFilter[] = filters.length === 0 ? [{ resourceType: 'ANY', name: null, patternType: 'ANY', ...ANY_ENTRY }] : filters.map((f) => ({ ...f, ...ANY_ENTRY }));
  for (const f of asked) {
    for (const b of await backend.describe(f)) {
      const key = patternKey(b.pattern);
      const group = out.get(key) ?? { pattern: b.pattern, acls: [] };
      if (!group.acls.some((e) => entryEquals(e, b.entry))) group.acls.push(b.entry);
      out.set(key, group);
    }
  }
  return out;
}

async function listAcls(o: AclCommandOptions, backend: AclBackend, out: (text: string) => void): Promise<void> {
  const resources = await aclsByResource(backend, resourceFilters(o, false));
  const wanted = principals(o.principal);
  const print = (filter: (a: AccessControlEntry) => boolean): void => {
    for (const { pattern, acls } of resources.values()) {
      const shown = acls.filter(filter);
      if (shown.length > 0 || wanted.length === 0) out(formatAclBlock('Current ACLs for resource', resourcePatternToString(pattern), shown));
    }
  };
  if (wanted.length === 0) print(() => true);
  else {
    for (const p of wanted) {
      out(`ACLs for principal \`${p}\``);
      print((a) => a.principal === p);
    }
  }
}

/**
 * Kafka 2.8's AclCommand: --add, --remove and --list through the brokers' CreateAcls/DeleteAcls/DescribeAcls
 * (--bootstrap-server) or directly in ZooKeeper through the AclAuthorizer (--authorizer-properties
 * zookeeper.connect=...), printing what Kafka prints. `confirm` asks the --remove question without --force.
 */
export async function runAclCommand(o: AclCommandOptions, out: (text: string) => void, confirm: (question: string) => Promise<boolean>): Promise<number> {
  checkAclArgs(o);
  if (o.add && patternTypeOf(o) !== 'LITERAL' && patternTypeOf(o) !== 'PREFIXED') {
    throw new AclUsageError(`A '--resource-pattern-type' value of '${patternTypeOf(o)}' is not valid when adding acls.`);
  }
  const plan = o.list ? [] : filterToAcls(o);
  if (o.add && plan.some((p) => p.acls.length === 0)) throw new AclUsageError('You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.');
  const backend = o.bootstrapServer !== undefined ? adminBackend(o) : await zkBackend(o);
  try {
    if (o.add) {
      for (const { filter, acls } of plan) {
        out(formatAclBlock('Adding ACLs for resource', resourcePatternToString(filter), acls));
        await backend.create(acls.map((entry) => ({ pattern: filter, entry })));
      }
    } else if (o.remove) {
      for (const { filter, acls } of plan) {
        const shown = resourcePatternToString(filter);
        const question =
          acls.length === 0
            ? `Are you sure you want to delete all ACLs for resource filter \`${shown}\`? (y/n)`
            : `Are you sure you want to remove ACLs: \n ${acls.map((a) => `\t${entryToString(a)}`).join('\n')} \n from resource filter \`${shown}\`? (y/n)`;
        if (!o.force && !(await confirm(question))) continue;
        await backend.remove(acls.length === 0 ? [{ ...filter, ...ANY_ENTRY }] : acls.map((a) => ({ ...filter, ...a })));
      }
    }
    await listAcls(o, backend, out);
    return 0;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`Error while executing ACL command: ${e instanceof KafkaError ? `${javaExceptionName(e.errorName)}: ${e.message}` : (e as Error).message}`);
  } finally {
    await backend.close();
  }
}
