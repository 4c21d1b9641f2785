import { KafkaConfig } from '../../common/config/kafka-config';
import { Clock } from '../../common/time';
import { LogConfig } from '../../common/config/log-config';
import { DynamicBrokerConfig } from '../../common/config/dynamic-broker-config';
import { KafkaController } from '../../controller';
import { GroupCoordinator } from '../../rebalance/group-coordinator';
import { DelegationTokenManager } from '../../security/delegation-token-manager';
import { TransactionCoordinator } from '../../transaction/transaction-coordinator';
import { AdminZk } from '../../zk/admin-zk';
import { BrokerRegistryZk } from '../../zk/broker-registry-zk';
import { AutoTopicCreationManager } from '../auto-topic-creation-manager';
import { ClientQuotaManager } from '../client-quota-manager';
import { FetchManager } from '../fetch-manager';
import { MetadataCache } from '../metadata-cache';
import { ProducerIdGenerator } from '../producer-id-manager';
import { ReplicaManager } from '../replica-manager';
import { AclAuthorizer } from '../../security/acl-authorizer';
import { ErrorName } from '../../common/error-codes';
import type { BrokerTopicStats } from '../../metrics/broker-topic-stats';

/** What InitProducerId answers (Kafka's InitProducerIdResult). */
export interface InitProducerIdResult {
  readonly error: ErrorName;
  readonly producerId: number;
  readonly producerEpoch: number;
}


/** What request handlers may use (Kafka's KafkaApis fields). Built once by KafkaServer, which owns every part. */
export interface HandlerContext {
  readonly brokerId: number;
  readonly clock: Clock;
  readonly config: KafkaConfig;
  readonly clusterId: string;
  readonly replicaManager: ReplicaManager;
  readonly metadataCache: MetadataCache;
  readonly adminZk: AdminZk;
  readonly brokerRegistry: BrokerRegistryZk;
  readonly controller: KafkaController;
  readonly groupCoordinator: GroupCoordinator;
  /** The transaction coordinator of the `__transaction_state` partitions this broker leads. */
  readonly transactionCoordinator: TransactionCoordinator;
  readonly autoTopicCreation: AutoTopicCreationManager;
  /** Byte-rate quotas of clients (producer_byte_rate, consumer_byte_rate). */
  readonly quotas: { readonly produce: ClientQuotaManager; readonly fetch: ClientQuotaManager };
  /** KIP-227 incremental fetch sessions. */
  readonly fetchManager: FetchManager;
  readonly brokerEpoch: () => number;
  readonly logConfigFor: (topic: string, overrides?: ReadonlyMap<string, string>) => Promise<LogConfig>;
  /** Static, `<default>` and per-broker configuration (DescribeConfigs, AlterConfigs for BROKER resources). */
  readonly dynamicBrokerConfig: DynamicBrokerConfig;
  /** Delegation tokens (KIP-48): created, renewed, expired and described here, cached on every broker. */
  readonly tokenManager: DelegationTokenManager;
  /** authorizer.class.name's AclAuthorizer; absent, every request is allowed (see auth-helper.ts). */
  readonly authorizer?: AclAuthorizer;
  /** Producer ids for InitProducerId (blocks from /latest_producer_id_block). */
  readonly producerIdManager: ProducerIdGenerator;
  /** BrokerTopicMetrics, when kafka.metrics.port is set: produce and fetch add to it once per partition. */
  readonly brokerTopicStats?: BrokerTopicStats;
}
