import { createHash } from 'node:crypto';

/** One ACL entry: ZooKeeper's permission bits (READ 1, WRITE 2, CREATE 4, DELETE 8, ADMIN 16), scheme and id. */
export interface ZkAcl {
  perms: number;
  scheme: string;
  id: string;
}

/** ZooKeeper's ZooDefs.Perms bits. */
export const ZkPerms = { READ: 1, WRITE: 2, CREATE: 4, DELETE: 8, ADMIN: 16, ALL: 31 } as const;

/** ZooDefs.Ids.OPEN_ACL_UNSAFE: anyone may do anything (what every znode gets without zookeeper.set.acl). */
export const OPEN_ACL_UNSAFE: readonly ZkAcl[] = [{ perms: ZkPerms.ALL, scheme: 'world', id: 'anyone' }];
/** ZooDefs.Ids.READ_ACL_UNSAFE. */
export const READ_ACL_UNSAFE: readonly ZkAcl[] = [{ perms: ZkPerms.READ, scheme: 'world', id: 'anyone' }];

/**
 * The credentials a client authenticates to ZooKeeper with. Kafka logs in with SASL (the JAAS `Client` section);
 * the C client binding used here has no SASL, so the same username and password go through ZooKeeper's `digest`
 * scheme (`addauth digest user:password`), which every ZooKeeper server accepts without configuration.
 */
export interface ZkDigestCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * ZooKeeper's DigestAuthenticationProvider.generateDigest: the id that the digest scheme gives a session
 * authenticated as `user:password`, and the id its ACLs name: `user:base64(sha1("user:password"))`.
 */
export function digestId(credentials: ZkDigestCredentials): string {
  const sha1 = createHash('sha1').update(`${credentials.username}:${credentials.password}`, 'utf8').digest('base64');
  return `${credentials.username}:${sha1}`;
}

/**
 * A session known by its TLS certificate (ZooKeeper's `x509` scheme, the subject's RFC 2253 name) rather than
 * by digest credentials.
 */
export const CERTIFICATE_CREATOR = 'certificate';

/** Whoever owns the nodes a secure client creates. */
export type ZkCreator = ZkDigestCredentials | typeof CERTIFICATE_CREATOR;

/**
 * The ACL entry that gives the authenticated identity every right (ZooDefs.Ids.CREATOR_ALL_ACL): expanded here
 * for digest credentials; for a certificate left as Kafka sends it (`auth` scheme, empty id), which the server
 * expands to the session's `x509:<subject>` ids.
 */
export function creatorAllAcl(creator: ZkCreator): ZkAcl {
  if (creator === CERTIFICATE_CREATOR) return { perms: ZkPerms.ALL, scheme: 'auth', id: '' };
  return { perms: ZkPerms.ALL, scheme: 'digest', id: digestId(creator) };
}

/**
 * Kafka's ZkData.SecureRootPaths: the top-level paths whose trees zookeeper-security-migration walks. ("Important:
 * it is necessary to add any new top level Zookeeper path to the Seq".) The last four are ZkAclStore.securePaths.
 */
export const SECURE_ROOT_PATHS: readonly string[] = [
  '/admin',
  '/brokers',
  '/cluster',
  '/config',
  '/controller',
  '/controller_epoch',
  '/isr_change_notification',
  '/latest_producer_id_block',
  '/log_dir_event_notification',
  '/delegation_token',
  '/kafka-acl',
  '/kafka-acl-changes',
  '/kafka-acl-extended',
  '/kafka-acl-extended-changes',
];

/**
 * Kafka's ZkData.SensitiveRootPaths: SCRAM credentials, dynamic broker configs (which may hold passwords) and
 * delegation tokens. Nodes under them get no world-read entry. Kafka tests `path.startsWith`, so a sibling such
 * as `/config/usersX` counts too; kept as Kafka has it.
 */
export const SENSITIVE_ROOT_PATHS: readonly string[] = ['/config/users', '/config/brokers', '/delegation_token/tokens'];

/** The old consumer's root stays open: every consumer writes under it (ZkData.defaultAcls). */
const CONSUMERS_PATH = '/consumers';

export function isSensitivePath(path: string): boolean {
  return SENSITIVE_ROOT_PATHS.some((root) => path.startsWith(root));
}

/**
 * Kafka's ZkData.defaultAcls(isSecure, path): without secure ACLs (or for `/consumers` itself), open to
 * everyone; otherwise every right for the creator, plus world read unless the path is sensitive. `path` is
 * relative to the chroot, as Kafka's client sees it. `creator` is the identity the session authenticated as
 * (the server would expand CREATOR_ALL_ACL to the same entry).
 */
export function defaultAcls(creator: ZkCreator | undefined, path: string): readonly ZkAcl[] {
  if (creator === undefined || path === CONSUMERS_PATH) return OPEN_ACL_UNSAFE;
  return isSensitivePath(path) ? [creatorAllAcl(creator)] : [creatorAllAcl(creator), ...READ_ACL_UNSAFE];
}

/** Whether an ACL list is OPEN_ACL_UNSAFE (the binding creates every node with it). */
export function isOpenAcl(acl: readonly ZkAcl[]): boolean {
  return acl.length === 1 && acl[0]?.scheme === 'world' && acl[0].id === 'anyone' && acl[0].perms === ZkPerms.ALL;
}
