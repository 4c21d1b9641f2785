/**
 * Every znode path Kafka uses, in one place (Kafka's ZkData.scala). Paths are relative to the chroot, which
 * the connect string carries; see chroot handling in zk-connect-string.ts.
 *
 * Names that come from outside (topics, groups, consumer ids, config entities) become exactly one path segment
 * or nothing: a name that is not a single ZooKeeper node name (see zkNodeNameError) throws InvalidZkNodeNameError
 * rather than forming the path of some other node. Callers check names first and answer with Kafka's errors;
 * this is the last line of defence.
 */

/** A name that cannot be one znode name; the message says which name and why. */
export class InvalidZkNodeNameError extends Error {
  constructor(
    readonly nodeName: string,
    reason: string,
  ) {
    super(`Invalid znode name "${nodeName}": ${reason}`);
    this.name = 'InvalidZkNodeNameError';
  }
}

/**
 * Why `name` cannot be one path segment, by ZooKeeper's PathUtils.validatePath: not empty, no '/', not '.' or
 * '..', no NUL, no control characters (U+0001-U+001F, U+007F-U+009F), nothing in U+D800-U+F8FF (surrogates,
 * that is characters outside the BMP, and private use) or U+FFF0-U+FFFF. Undefined for a good name.
 */
export function zkNodeNameError(name: string): string | undefined {
  if (name.length === 0) return 'empty node name';
  if (name === '.' || name === '..') return 'relative paths not allowed';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === 0x2f) return "contains '/'";
    if (c === 0) return 'null character not allowed';
    if ((c > 0 && c <= 0x1f) || (c >= 0x7f && c <= 0x9f) || (c >= 0xd800 && c <= 0xf8ff) || c >= 0xfff0) return `invalid character @${i}`;
  }
  return undefined;
}

function segment(name: string): string {
  const reason = zkNodeNameError(name);
  if (reason !== undefined) throw new InvalidZkNodeNameError(name, reason);
  return name;
}

export const ZkPaths = {
  brokers: '/brokers',
  brokerIds: '/brokers/ids',
  brokerId: (id: number) => `/brokers/ids/${id}`,
  brokerSeqId: '/brokers/seqid',
  topics: '/brokers/topics',
  topic: (topic: string) => `/brokers/topics/${segment(topic)}`,
  topicPartitions: (topic: string) => `/brokers/topics/${segment(topic)}/partitions`,
  topicPartition: (topic: string, partition: number) => `/brokers/topics/${segment(topic)}/partitions/${partition}`,
  partitionState: (topic: string, partition: number) => `/brokers/topics/${segment(topic)}/partitions/${partition}/state`,
  controller: '/controller',
  controllerEpoch: '/controller_epoch',
  admin: '/admin',
  deleteTopics: '/admin/delete_topics',
  deleteTopic: (topic: string) => `/admin/delete_topics/${segment(topic)}`,
  reassignPartitions: '/admin/reassign_partitions',
  preferredReplicaElection: '/admin/preferred_replica_election',
  isrChangeNotification: '/isr_change_notification',
  isrChangePrefix: '/isr_change_notification/isr_change_',
  logDirEventNotification: '/log_dir_event_notification',
  logDirEventPrefix: '/log_dir_event_notification/log_dir_event_',
  config: '/config',
  configEntityType: (entityType: string) => `/config/${segment(entityType)}`,
  configEntity: (entityType: string, entityName: string) => `/config/${segment(entityType)}/${segment(entityName)}`,
  /** `/config/users/<sanitized user>/clients/<sanitized client id>` (either may be `<default>`). */
  configUserClient: (sanitizedUser: string, sanitizedClientId: string) => `/config/users/${segment(sanitizedUser)}/clients/${segment(sanitizedClientId)}`,
  configChanges: '/config/changes',
  configChangePrefix: '/config/changes/config_change_',
  clusterId: '/cluster/id',
  latestProducerIdBlock: '/latest_producer_id_block',
  feature: '/feature',
  delegationTokenAuth: '/delegation_token',
  delegationTokens: '/delegation_token/tokens',
  delegationToken: (tokenId: string) => `/delegation_token/tokens/${segment(tokenId)}`,
  delegationTokenChanges: '/delegation_token/token_changes',
  delegationTokenChangePrefix: '/delegation_token/token_changes/token_change_',
  /** AclAuthorizer: literal ACLs (Kafka's original store) and their change notifications. */
  aclLiteralRoot: '/kafka-acl',
  aclLiteralChanges: '/kafka-acl-changes',
  /** AclAuthorizer: prefixed ACLs (KIP-290's extended store) and their JSON change notifications. */
  aclPrefixedRoot: '/kafka-acl-extended/prefixed',
  aclExtendedChanges: '/kafka-acl-extended-changes',
  aclChangePrefix: 'acl_changes_',
  aclResourceType: (root: string, resourceType: string) => `${root}/${segment(resourceType)}`,
  aclResource: (root: string, resourceType: string, name: string) => `${root}/${segment(resourceType)}/${segment(name)}`,
  consumers: '/consumers',
  consumerGroup: (group: string) => `/consumers/${segment(group)}`,
  consumerIds: (group: string) => `/consumers/${segment(group)}/ids`,
  consumerId: (group: string, consumerId: string) => `/consumers/${segment(group)}/ids/${segment(consumerId)}`,
  consumerOffsetsRoot: (group: string) => `/consumers/${segment(group)}/offsets`,
  consumerOwnersRoot: (group: string) => `/consumers/${segment(group)}/owners`,
  consumerOwners: (group: string, topic: string) => `/consumers/${segment(group)}/owners/${segment(topic)}`,
  consumerOwner: (group: string, topic: string, partition: number) => `/consumers/${segment(group)}/owners/${segment(topic)}/${partition}`,
  consumerOffsets: (group: string, topic: string) => `/consumers/${segment(group)}/offsets/${segment(topic)}`,
  consumerOffset: (group: string, topic: string, partition: number) => `/consumers/${segment(group)}/offsets/${segment(topic)}/${partition}`,
} as const;

/** Kafka 2.x's ZkData.PersistentZkPaths: created at broker start-up, "already exists" ignored. */
export const PERSISTENT_ZK_PATHS: readonly string[] = [
  '/consumers',
  '/brokers/ids',
  '/brokers/topics',
  '/config/changes',
  '/admin/delete_topics',
  '/brokers/seqid',
  '/isr_change_notification',
  '/latest_producer_id_block',
  '/log_dir_event_notification',
  '/config/topics',
  '/config/clients',
  '/config/users',
  '/config/brokers',
  '/config/ips',
];
