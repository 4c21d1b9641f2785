import { KafkaConfig } from '../common/config/kafka-config';
import { ErrorCode } from '../common/error-codes';
import { getLogger } from '../common/logging/logging';
import { GROUP_METADATA_TOPIC_NAME, isInternalTopic, topicNameError, TRANSACTION_STATE_TOPIC_NAME } from '../common/topic';
import { assignReplicasToBrokers } from '../controller';
import { AdminZk, AdminZkError } from '../zk/admin-zk';
import { BrokerRegistryZk } from '../zk/broker-registry-zk';

const log = getLogger('kafka.server.KafkaApis');
const adminLog = getLogger('kafka.server.ZkAdminManager');

/**
 * Topics a broker creates on a client's behalf (Kafka 2.8's AutoTopicCreationManager, ZooKeeper flavour): a
 * topic named in Metadata or Produce when auto.create.topics.enable is set, and `__consumer_offsets` or
 * `__transaction_state` on the first FindCoordinator of their kind. Creation writes ZooKeeper as kafka-topics does; the controller takes it from there. Creations
 * of the offsets topic are not repeated while one is in flight.
 */
export class AutoTopicCreationManager {
  /** Internal topic creations in flight, by topic: not repeated while one runs. */
  private readonly creations = new Map<string, Promise<void>>();

  constructor(
    private readonly config: KafkaConfig,
    private readonly adminZk: AdminZk,
    private readonly brokerRegistry: BrokerRegistryZk,
  ) {}

  /**
   * The answer for a topic the metadata cache does not know, creating it first (num.partitions partitions,
   * default.replication.factor capped at the live brokers) when `autoCreate` holds. A created or existing
   * topic answers LEADER_NOT_AVAILABLE until its leaders are known, as Kafka does.
   */
  async unknownTopicError(name: string, autoCreate: boolean): Promise<number> {
    if (topicNameError(name) !== undefined) return ErrorCode.INVALID_TOPIC_EXCEPTION.code;
    if (!autoCreate || isInternalTopic(name)) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code;
    try {
      if (await this.adminZk.topicExists(name)) return ErrorCode.LEADER_NOT_AVAILABLE.code;
      const brokers = await this.brokerRegistry.getBrokerIds();
      const rf = Math.min(this.config.get('default.replication.factor'), Math.max(brokers.length, 1));
      const assignment = assignReplicasToBrokers(brokers, this.config.get('num.partitions'), rf);
      await this.adminZk.createTopic(name, assignment, new Map());
      log.info(`Auto creation of topic ${name} with ${assignment.size} partitions and replication factor ${rf} is successful`);
      return ErrorCode.LEADER_NOT_AVAILABLE.code;
    } catch (err) {
      if (isTopicExists(err)) return ErrorCode.LEADER_NOT_AVAILABLE.code;
      log.warn(`Auto creation of topic ${name} failed`, err);
      return err instanceof AdminZkError ? err.code : ErrorCode.LEADER_NOT_AVAILABLE.code;
    }
  }

  /**
   * Starts creating `__consumer_offsets` unless a creation is in flight: offsets.topic.num.partitions partitions,
   * offsets.topic.replication.factor replicas, compacted. As in Kafka 2.8, fewer live brokers than that refuse the
   * creation (InvalidReplicationFactorException, logged by ZkAdminManager) and it is tried again on the next
   * FindCoordinator. The caller answers COORDINATOR_NOT_AVAILABLE meanwhile; clients retry FindCoordinator.
   */
  createOffsetsTopic(): void {
    this.createInternalTopic(GROUP_METADATA_TOPIC_NAME, this.config.get('offsets.topic.num.partitions'), this.config.get('offsets.topic.replication.factor'), [
      ['cleanup.policy', 'compact'],
      ['compression.type', 'producer'],
      ['segment.bytes', String(this.config.get('offsets.topic.segment.bytes'))],
    ]);
  }

  /**
   * The same for `__transaction_state` on the first FindCoordinator of a transactional id, with Kafka's
   * TransactionStateManager.transactionTopicConfigs: transaction.state.log.num.partitions partitions,
   * .replication.factor replicas, compacted, uncompressed, min.insync.replicas .min.isr, .segment.bytes, and no
   * unclean leader election.
   */
  createTransactionStateTopic(): void {
    this.createInternalTopic(TRANSACTION_STATE_TOPIC_NAME, this.config.get('transaction.state.log.num.partitions'), this.config.get('transaction.state.log.replication.factor'), [
      ['compression.type', 'uncompressed'],
      ['cleanup.policy', 'compact'],
      ['min.insync.replicas', String(this.config.get('transaction.state.log.min.isr'))],
      ['segment.bytes', String(this.config.get('transaction.state.log.segment.bytes'))],
      ['unclean.leader.election.enable', 'false'],
    ]);
  }

  private createInternalTopic(name: string, partitions: number, rf: number, config: [string, string][]): void {
    if (this.creations.has(name)) return;
    const creation = this.doCreateInternalTopic(name, partitions, rf, new Map(config))
      .catch((err: unknown) => {
        if (!isTopicExists(err)) log.warn(`Could not create ${name}`, err);
      })
      .finally(() => this.creations.delete(name));
    this.creations.set(name, creation);
  }

  private async doCreateInternalTopic(name: string, partitions: number, rf: number, config: Map<string, string>): Promise<void> {
    if (await this.adminZk.topicExists(name)) return;
    const brokers = await this.brokerRegistry.getBrokerIds();
    if (brokers.length < rf) {
      adminLog.info(
        `Error processing create topic request CreatableTopic(name='${name}', numPartitions=${partitions}, replicationFactor=${rf}, assignments=[], configs=[]) ` +
          `(org.apache.kafka.common.errors.InvalidReplicationFactorException: Replication factor: ${rf} larger than available brokers: ${brokers.length}.)`,
      );
      return;
    }
    await this.adminZk.createTopic(name, assignReplicasToBrokers(brokers, partitions, rf), config);
    log.info(`Created topic ${name} with ${partitions} partitions and replication factor ${rf}`);
  }
}

function isTopicExists(err: unknown): boolean {
  return err instanceof AdminZkError && err.errorName === 'TOPIC_ALREADY_EXISTS';
}
