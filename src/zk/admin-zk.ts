import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { hasCollisionChars, topicNameError, unifyCollisionChars } from '../common/topic';
import { readPartitionState } from './read-partition-state';
import type { PartitionStateWithVersion } from './read-partition-state';
import { ZkClient } from './zk-client';
import { ZkError } from './zk-error';
import { zkNodeNameError, ZkPaths } from './zk-paths';
import { ConfigChangeNotificationZNode, ConfigEntityZNode } from './znodes/config-znodes';
import { sanitize } from './sanitizer';
import { TopicAssignment, TopicAssignmentZNode, ZNODE_MAX_DATA_BYTES } from './znodes/topic-assignment';

export type AdminZkErrorName = 'TOPIC_ALREADY_EXISTS' | 'INVALID_TOPIC_EXCEPTION' | 'UNKNOWN_TOPIC_OR_PARTITION' | 'INVALID_PARTITIONS' | 'INVALID_REPLICA_ASSIGNMENT';

/**
 * Kafka's TopicExistsException, InvalidTopicException and friends, with Kafka's messages: a KafkaError, so a
 * request handler answers with its code as it stands.
 */
export class AdminZkError extends KafkaError {
  declare readonly errorName: AdminZkErrorName;

  constructor(errorName: AdminZkErrorName, message: string) {
    super(errorName, message);
    this.name = 'AdminZkError';
  }
}

export type { PartitionStateWithVersion } from './read-partition-state';

const log = getLogger('kafka.zk.AdminZkClient');

/** Scala's rendering of the assignment map in Kafka's messages (`HashMap(0 -> ArrayBuffer(1, 2))`), cut at 1000 characters. */
export function renderAssignment(assignment: ReadonlyMap<number, readonly number[]>): string {
  let text = 'HashMap(';
  let first = true;
  for (const [p, r] of assignment) {
    text += `${first ? '' : ', '}${p} -> ArrayBuffer(${r.join(', ')})`;
    first = false;
    if (text.length > 1000) return `${text.slice(0, 1000)}...)`;
  }
  return `${text})`;
}

/**
 * Refuses an assignment whose /brokers/topics/<t> node would not fit in a znode (ZooKeeper drops the session's
 * request: Kafka 2.8 retries it forever). `bytes` is the encoded (or estimated) size. INVALID_PARTITIONS: the
 * number of partitions is what makes it too large.
 */
export function checkAssignmentFits(topic: string, partitions: number, bytes: number): void {
  if (bytes <= ZNODE_MAX_DATA_BYTES) return;
  throw new AdminZkError(
    'INVALID_PARTITIONS',
    `The replica assignment of topic '${topic}' with ${partitions} partitions would take ${bytes} bytes, more than the ${ZNODE_MAX_DATA_BYTES} bytes a ZooKeeper znode can hold (jute.maxbuffer).`,
  );
}

/** The encoded size of an explicit assignment, counted entry by entry and given up on once past the znode limit. */
export function explicitAssignmentBytes(assignment: ReadonlyMap<number, readonly number[]>, base = 0): number {
  let bytes = base === 0 ? '{"version":2,"partitions":{},"adding_replicas":{},"removing_replicas":{}}'.length : base;
  for (const [p, replicas] of assignment) {
    bytes += String(p).length + 6 + replicas.reduce((n, r) => n + String(r).length + 1, 0);
    if (bytes > ZNODE_MAX_DATA_BYTES) return bytes;
  }
  return bytes;
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The overrides in a /config/topics/<t> node: unreadable data counts as no overrides (Kafka's
 * ConfigEntityZNode.decode yields empty Properties for data it cannot parse), and is logged with the path.
 */
export function readTopicOverrides(path: string, data: Buffer | null): Map<string, string> {
  try {
    return ConfigEntityZNode.decode(path, data);
  } catch (err) {
    getLogger('kafka.zk.KafkaZkClient').warn(`Ignoring unreadable topic config at ${path} (${reason(err)}): no overrides are read from it`);
    return new Map();
  }
}

/**
 * Topic administration through ZooKeeper, as Kafka's AdminZkClient: what `kafka-topics --zookeeper`, topic
 * auto-creation and the CreateTopics/DeleteTopics/CreatePartitions handlers write. The controller reacts to
 * these nodes; nothing here talks to brokers.
 */
export class AdminZk {
  constructor(private readonly zk: ZkClient) {}

  async getAllTopics(): Promise<string[]> {
    return ((await this.zk.getChildren(ZkPaths.topics)) ?? []).sort();
  }

  /** A name that cannot be a znode name is no topic: the reads below answer "does not exist" for it. */
  async topicExists(topic: string): Promise<boolean> {
    if (zkNodeNameError(topic) !== undefined) return false;
    return (await this.zk.exists(ZkPaths.topic(topic))) !== null;
  }

  /**
   * A topic's assignment, null when the topic does not exist. Unreadable data reads as no partitions, as
   * Kafka's TopicZNode.decode has it (so CreatePartitions answers "does not exist"), logged with the path.
   */
  async getTopicAssignment(topic: string): Promise<TopicAssignment | null> {
    if (zkNodeNameError(topic) !== undefined) return null;
    const path = ZkPaths.topic(topic);
    const node = await this.zk.getData(path);
    if (node === null) return null;
    try {
      return TopicAssignmentZNode.decode(path, node.data);
    } catch (err) {
      log.warn(`Ignoring the unreadable partition assignment at ${path} (${reason(err)})`);
      return { partitions: new Map(), addingReplicas: new Map(), removingReplicas: new Map() };
    }
  }

  /** A partition's leader and ISR; null when absent or unreadable (Kafka reads unparsable state as none). */
  async getPartitionState(topic: string, partition: number): Promise<PartitionStateWithVersion | null> {
    if (zkNodeNameError(topic) !== undefined) return null;
    return readPartitionState(this.zk, topic, partition, log);
  }

  /** A topic's config overrides; unreadable data holds none (Kafka's ConfigEntityZNode.decode), logged with the path. */
  async getTopicConfig(topic: string): Promise<Map<string, string>> {
    if (zkNodeNameError(topic) !== undefined) return new Map();
    const path = ZkPaths.configEntity('topics', topic);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : readTopicOverrides(path, node.data);
  }

  async getTopicsMarkedForDeletion(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.deleteTopics)) ?? [];
  }

  /**
   * AdminZkClient.validateTopicCreate with its messages: the name (Topic.validate), existence, '.'/'_'
   * collisions, one replication factor for all partitions, no duplicate replicas, partition ids 0..n-1; and,
   * beyond Kafka 2.8 (which would create partitions that can never have a leader), no empty replica list. The
   * assignment's size is checked before (checkAssignmentFits): it is not built when it cannot be stored.
   */
  async validateTopicCreate(topic: string, assignment: ReadonlyMap<number, readonly number[]>): Promise<void> {
    const nameError = topicNameError(topic);
    if (nameError !== undefined) throw new AdminZkError('INVALID_TOPIC_EXCEPTION', nameError);
    const existing = await this.getAllTopics();
    if (existing.includes(topic)) throw new AdminZkError('TOPIC_ALREADY_EXISTS', `Topic '${topic}' already exists.`);
    if (hasCollisionChars(topic)) {
      const colliding = existing.filter((t) => unifyCollisionChars(t) === unifyCollisionChars(topic));
      if (colliding.length > 0) {
        throw new AdminZkError('INVALID_TOPIC_EXCEPTION', `Topic '${topic}' collides with existing topics: ${colliding.join(', ')}`);
      }
    }
    const sizes = new Set([...assignment.values()].map((r) => r.length));
    if (sizes.size !== 1) throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', 'All partitions should have the same number of replicas');
    for (const replicas of assignment.values()) {
      if (new Set(replicas).size !== replicas.length) {
        throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', `Duplicate replica assignment found: ${renderAssignment(assignment)}`);
      }
    }
    const ids = [...assignment.keys()].sort((a, b) => a - b);
    if (ids.some((id, i) => id !== i)) throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', 'partitions should be a consecutive 0-based integer sequence');
    const empty = ids.find((id) => assignment.get(id)?.length === 0);
    if (empty !== undefined) throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', `Cannot have replication factor of 0 for partition id ${empty}.`);
  }

  /**
   * Writes /config/topics/<t> and then /brokers/topics/<t>, as Kafka does (the two writes are not atomic). The
   * broker's CreateTopics gives the topic its id here (AdminZkClient.createTopic with usesTopicId); kafka-topics
   * --zookeeper writes none, and the controller gives the topic one when it sees it, as in Kafka 2.8.
   */
  async createTopic(topic: string, assignment: ReadonlyMap<number, readonly number[]>, config: ReadonlyMap<string, string>, topicId?: string): Promise<void> {
    await this.validateTopicCreate(topic, assignment);
    const configText = [...config].map(([k, v]) => `${k}=${v}`).join(', ');
    const assignmentText = [...assignment].map(([p, r]) => `${p} -> ArrayBuffer(${r.join(', ')})`).join(', ');
    log.info(`Creating topic ${topic} with configuration {${configText}} and initial partition assignment HashMap(${assignmentText})`);
    await this.zk.createRecursive(ZkPaths.configEntity('topics', topic), ConfigEntityZNode.encode(config)).catch(async (err: unknown) => {
      if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
      await this.zk.setData(ZkPaths.configEntity('topics', topic), ConfigEntityZNode.encode(config));
    });
    const data = TopicAssignmentZNode.encode({ partitions: new Map([...assignment].map(([p, r]) => [p, [...r]])), addingReplicas: new Map(), removingReplicas: new Map(), topicId });
    try {
      await this.zk.createRecursive(ZkPaths.topic(topic), data);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODEEXISTS') throw new AdminZkError('TOPIC_ALREADY_EXISTS', `Topic '${topic}' already exists.`);
      throw err;
    }
  }

  /** Rewrites the assignment with the added partitions (keeping the topic id); the controller picks them up from its data watch. */
  async addPartitions(topic: string, existing: TopicAssignment, added: ReadonlyMap<number, readonly number[]>): Promise<void> {
    const partitions = new Map(existing.partitions);
    for (const [p, r] of added) partitions.set(p, [...r]);
    await this.zk.setData(ZkPaths.topic(topic), TopicAssignmentZNode.encode({ ...existing, partitions }));
  }

  /** Creates /admin/delete_topics/<t>; false when it was already marked. */
  async markTopicForDeletion(topic: string): Promise<boolean> {
    try {
      await this.zk.createRecursive(ZkPaths.deleteTopic(topic), null);
      return true;
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODEEXISTS') return false;
      throw err;
    }
  }

  /** Writes the topic's full config and posts a change notification that every broker processes. */
  changeTopicConfig(topic: string, config: ReadonlyMap<string, string>): Promise<void> {
    return this.changeEntityConfig('topics', topic, config);
  }

  /**
   * Writes a client id's config (quotas: producer_byte_rate, consumer_byte_rate; `<default>` for every client
   * without its own) under its sanitized name, as Kafka's AdminZkClient.changeClientIdConfig, and notifies.
   */
  changeClientIdConfig(clientId: string, config: ReadonlyMap<string, string>): Promise<void> {
    return this.changeEntityConfig('clients', clientId === '<default>' ? clientId : sanitize(clientId), config);
  }

  /**
   * AdminZkClient.changeUserOrUserClientIdConfig: `/config/users/<user>` or, with a client id,
   * `/config/users/<user>/clients/<client-id>`; names already sanitized (or `<default>`), notified as
   * `users/<user>` or `users/<user>/clients/<client-id>`.
   */
  async changeUserOrUserClientIdConfig(sanitizedUser: string, sanitizedClientId: string | undefined, config: ReadonlyMap<string, string>): Promise<void> {
    if (sanitizedClientId === undefined) return this.changeEntityConfig('users', sanitizedUser, config);
    const path = ZkPaths.configUserClient(sanitizedUser, sanitizedClientId);
    await this.writeEntityConfig(path, config);
    await this.zk.createRecursive(ZkPaths.configChangePrefix, ConfigChangeNotificationZNode.encode('users', `${sanitizedUser}/clients/${sanitizedClientId}`), 'PERSISTENT_SEQUENTIAL');
  }

  /** AdminZkClient.changeIpConfig: `/config/ips/<ip>` (or `<default>`), notified as `ips/<ip>`. */
  changeIpConfig(ip: string, config: ReadonlyMap<string, string>): Promise<void> {
    return this.changeEntityConfig('ips', ip, config);
  }

  /**
   * AdminZkClient.changeUserOrUserClientIdConfig for a user: `/config/users/<sanitized user>` (SCRAM credentials
   * and quotas) written whole, with an `entity_path: users/<user>` notification.
   */
  changeUserConfig(sanitizedUser: string, config: ReadonlyMap<string, string>): Promise<void> {
    return this.changeEntityConfig('users', sanitizedUser, config);
  }

  /**
   * AdminZkClient.changeBrokerConfig: `/config/brokers/<id>`, or `/config/brokers/<default>` when there is no
   * id, written whole, with an `entity_path: brokers/<name>` notification every broker's DynamicConfigManager sees.
   */
  changeBrokerConfig(brokerId: number | undefined, config: ReadonlyMap<string, string>): Promise<void> {
    return this.changeEntityConfig('brokers', brokerId === undefined ? '<default>' : String(brokerId), config);
  }

  /**
   * An entity's config under its (sanitized) name, as AdminZkClient.fetchEntityConfig: empty when the node is
   * absent or unreadable (logged with the path).
   */
  async fetchEntityConfig(entityType: string, sanitizedName: string): Promise<Map<string, string>> {
    if (zkNodeNameError(sanitizedName) !== undefined) return new Map();
    const path = ZkPaths.configEntity(entityType, sanitizedName);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : readTopicOverrides(path, node.data);
  }

  /** `/config/users/<user>/clients/<client-id>`'s config (names sanitized or `<default>`); empty when absent. */
  async fetchUserClientConfig(sanitizedUser: string, sanitizedClientId: string): Promise<Map<string, string>> {
    if (zkNodeNameError(sanitizedUser) !== undefined || zkNodeNameError(sanitizedClientId) !== undefined) return new Map();
    const path = ZkPaths.configUserClient(sanitizedUser, sanitizedClientId);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : readTopicOverrides(path, node.data);
  }

  /** The (sanitized) names of an entity type's config nodes (KafkaZkClient.getAllEntitiesWithConfig). */
  async getAllEntitiesWithConfig(entityType: string): Promise<string[]> {
    return ((await this.zk.getChildren(ZkPaths.configEntityType(entityType))) ?? []).sort();
  }

  /**
   * The `<user>/clients/<client-id>` configs under /config/users (KafkaZkClient's fetchAllChildEntityConfigs for
   * users and clients): path below /config/users -> config, names sanitized.
   */
  async fetchAllUserClientConfigs(): Promise<Map<string, Map<string, string>>> {
    const result = new Map<string, Map<string, string>>();
    for (const user of await this.getAllEntitiesWithConfig('users')) {
      const clients = (await this.zk.getChildren(`${ZkPaths.configEntity('users', user)}/clients`)) ?? [];
      for (const client of clients.sort()) {
        if (zkNodeNameError(client) !== undefined) continue;
        const path = `${ZkPaths.configEntity('users', user)}/clients/${client}`;
        const node = await this.zk.getData(path);
        result.set(`${user}/clients/${client}`, node === null ? new Map() : readTopicOverrides(path, node.data));
      }
    }
    return result;
  }

  /** The ids of the registered (running) brokers. */
  async getLiveBrokerIds(): Promise<number[]> {
    return ((await this.zk.getChildren(ZkPaths.brokerIds)) ?? []).filter((c) => /^\d+$/.test(c)).map(Number).sort((a, b) => a - b);
  }

  private async changeEntityConfig(entityType: string, entityName: string, config: ReadonlyMap<string, string>): Promise<void> {
    await this.writeEntityConfig(ZkPaths.configEntity(entityType, entityName), config);
    await this.zk.createRecursive(ZkPaths.configChangePrefix, ConfigChangeNotificationZNode.encode(entityType, entityName), 'PERSISTENT_SEQUENTIAL');
  }

  private async writeEntityConfig(path: string, config: ReadonlyMap<string, string>): Promise<void> {
    try {
      await this.zk.setData(path, ConfigEntityZNode.encode(config));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
      await this.zk.createRecursive(path, ConfigEntityZNode.encode(config));
    }
  }
}
