import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { hasCollisionChars, topicNameError, unifyCollisionChars } from '../common/topic';
import { ZkClient } from './zk-client';
import { ZkError } from './zk-error';
import { ZkPaths } from './zk-paths';
import { ConfigChangeNotificationZNode, ConfigEntityZNode } from './znodes/config-znodes';
import { sanitize } from './sanitizer';
import { LeaderIsrAndControllerEpoch, PartitionStateZNode } from './znodes/partition-state';
import { TopicAssignment, TopicAssignmentZNode } from './znodes/topic-assignment';

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

export interface PartitionStateWithVersion {
  state: LeaderIsrAndControllerEpoch;
  zkVersion: number;
}

const log = getLogger('kafka.zk.AdminZkClient');

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

  async topicExists(topic: string): Promise<boolean> {
    return (await this.zk.exists(ZkPaths.topic(topic))) !== null;
  }

  async getTopicAssignment(topic: string): Promise<TopicAssignment | null> {
    const node = await this.zk.getData(ZkPaths.topic(topic));
    return node === null ? null : TopicAssignmentZNode.decode(ZkPaths.topic(topic), node.data);
  }

  async getPartitionState(topic: string, partition: number): Promise<PartitionStateWithVersion | null> {
    const path = ZkPaths.partitionState(topic, partition);
    const node = await this.zk.getData(path);
    return node === null ? null : { state: PartitionStateZNode.decode(path, node.data), zkVersion: node.stat.version };
  }

  async getTopicConfig(topic: string): Promise<Map<string, string>> {
    const path = ZkPaths.configEntity('topics', topic);
    const node = await this.zk.getData(path);
    return node === null ? new Map() : ConfigEntityZNode.decode(path, node.data);
  }

  async getTopicsMarkedForDeletion(): Promise<string[]> {
    return (await this.zk.getChildren(ZkPaths.deleteTopics)) ?? [];
  }

  /** Checks name, existence and '.'/'_' collisions as AdminZkClient.validateTopicCreate does. */
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
    if (sizes.size > 1) throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', 'All partitions should have the same number of replicas');
    for (const [p, replicas] of assignment) {
      if (new Set(replicas).size !== replicas.length) {
        throw new AdminZkError('INVALID_REPLICA_ASSIGNMENT', `Duplicate replica assignment found: ${p} -> ${replicas.join(',')}`);
      }
    }
    const ids = [...assignment.keys()].sort((a, b) => a - b);
    if (ids.some((id, i) => id !== i)) throw new AdminZkError('INVALID_PARTITIONS', 'partitions should be a consecutive 0-based integer sequence');
  }

  /** Writes /config/topics/<t> and then /brokers/topics/<t>, as Kafka does (the two writes are not atomic). */
  async createTopic(topic: string, assignment: ReadonlyMap<number, readonly number[]>, config: ReadonlyMap<string, string>): Promise<void> {
    await this.validateTopicCreate(topic, assignment);
    const configText = [...config].map(([k, v]) => `${k}=${v}`).join(', ');
    const assignmentText = [...assignment].map(([p, r]) => `${p} -> ArrayBuffer(${r.join(', ')})`).join(', ');
    log.info(`Creating topic ${topic} with configuration {${configText}} and initial partition assignment HashMap(${assignmentText})`);
    await this.zk.createRecursive(ZkPaths.configEntity('topics', topic), ConfigEntityZNode.encode(config)).catch(async (err: unknown) => {
      if (!(err instanceof ZkError && err.code === 'NODEEXISTS')) throw err;
      await this.zk.setData(ZkPaths.configEntity('topics', topic), ConfigEntityZNode.encode(config));
    });
    const data = TopicAssignmentZNode.encode({ partitions: new Map([...assignment].map(([p, r]) => [p, [...r]])), addingReplicas: new Map(), removingReplicas: new Map() });
    try {
      await this.zk.createRecursive(ZkPaths.topic(topic), data);
    } catch (err) {
      if (err instanceof ZkError && err.code === 'NODEEXISTS') throw new AdminZkError('TOPIC_ALREADY_EXISTS', `Topic '${topic}' already exists.`);
      throw err;
    }
  }

  /** Rewrites the assignment with the added partitions; the controller picks them up from its data watch. */
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

  private async changeEntityConfig(entityType: string, entityName: string, config: ReadonlyMap<string, string>): Promise<void> {
    const path = ZkPaths.configEntity(entityType, entityName);
    try {
      await this.zk.setData(path, ConfigEntityZNode.encode(config));
    } catch (err) {
      if (!(err instanceof ZkError && err.code === 'NONODE')) throw err;
      await this.zk.createRecursive(path, ConfigEntityZNode.encode(config));
    }
    await this.zk.createRecursive(ZkPaths.configChangePrefix, ConfigChangeNotificationZNode.encode(entityType, entityName), 'PERSISTENT_SEQUENTIAL');
  }
}
