import { KafkaConfig } from '../../common/config/kafka-config';
import { LogConfig } from '../../log/log-config';
import { KafkaController } from '../../controller';
import { AdminZk } from '../../zk/admin-zk';
import { BrokerRegistryZk } from '../../zk/broker-registry-zk';
import { ZkClient } from '../../zk/zk-client';
import { MetadataCache } from '../metadata-cache';
import { ReplicaManager } from '../replica-manager';

/** What request handlers may use (Kafka's KafkaApis fields). Built once by KafkaServer. */
export interface HandlerContext {
  readonly brokerId: number;
  readonly config: KafkaConfig;
  readonly clusterId: string;
  readonly replicaManager: ReplicaManager;
  readonly metadataCache: MetadataCache;
  readonly adminZk: AdminZk;
  readonly brokerRegistry: BrokerRegistryZk;
  readonly controller: KafkaController;
  readonly brokerEpoch: () => number;
  readonly logConfigFor: (topic: string, overrides?: ReadonlyMap<string, string>) => Promise<LogConfig>;
  /** The broker's ZooKeeper session (the group coordinator stores offsets through it). */
  readonly zkClient: ZkClient;
}
