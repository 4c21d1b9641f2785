import { KafkaConfig } from '../common/config/kafka-config';
import { Scheduler } from '../common/scheduler';
import { Clock } from '../common/time';
import { TRANSACTION_STATE_TOPIC_NAME } from '../common/topic';
import { TransactionCoordinator } from '../transaction/transaction-coordinator';
import { TransactionMarkerChannelManager } from '../transaction/transaction-marker-channel-manager';
import { TransactionStateManager } from '../transaction/transaction-state-manager';
import { MetadataCache } from './metadata-cache';
import { ProducerIdGenerator } from './producer-id-manager';
import { ReplicaManager } from './replica-manager';
import { transactionLogAccess } from './transaction-log-access';

/** How long the marker sender waits before resending after an unknown leader or a failed request. */
const MARKER_RETRY_BACKOFF_MS = 100;

export interface TransactionCoordinatorParts {
  readonly brokerId: number;
  readonly config: KafkaConfig;
  readonly clock: Clock;
  readonly scheduler: Scheduler;
  readonly replicaManager: ReplicaManager;
  readonly metadataCache: MetadataCache;
  readonly producerIds: ProducerIdGenerator;
}

/**
 * Builds the transaction coordinator from the broker's parts (Kafka's TransactionCoordinator.apply): the state
 * manager on the local `__transaction_state` replicas, the marker sender reaching partition leaders on the
 * inter-broker listener, and the broker's producer id manager.
 */
export function createTransactionCoordinator(p: TransactionCoordinatorParts): TransactionCoordinator {
  const { config, metadataCache } = p;
  const stateManager = new TransactionStateManager(
    {
      brokerId: p.brokerId,
      // The topic's real partition count once it exists, the configured one until then.
      numPartitions: () => metadataCache.numPartitions(TRANSACTION_STATE_TOPIC_NAME) ?? config.get('transaction.state.log.num.partitions'),
      transactionMaxTimeoutMs: config.get('transaction.max.timeout.ms'),
      transactionalIdExpirationMs: config.get('transactional.id.expiration.ms'),
      loadBufferSize: config.get('transaction.state.log.load.buffer.size'),
      requestTimeoutMs: config.get('request.timeout.ms'),
    },
    transactionLogAccess(p.replicaManager, p.clock),
    p.clock,
  );
  const listener = config.interBrokerListenerName;
  const markerChannel = new TransactionMarkerChannelManager(
    { brokerId: p.brokerId, requestTimeoutMs: config.get('request.timeout.ms'), retryBackoffMs: MARKER_RETRY_BACKOFF_MS },
    (tp) => {
      const state = metadataCache.partitionState(tp);
      if (state === undefined) return 'unknown';
      const leader = state.leader;
      if (leader < 0 || !metadataCache.isBrokerAlive(leader)) return undefined;
      const endpoint = metadataCache.endpoint(leader, listener);
      return endpoint === undefined ? undefined : { brokerId: leader, host: endpoint.host, port: endpoint.port };
    },
    stateManager,
    p.clock,
  );
  return new TransactionCoordinator(
    {
      brokerId: p.brokerId,
      abortTimedOutTransactionsIntervalMs: config.get('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
      removeExpiredTransactionalIdsIntervalMs: config.get('transaction.remove.expired.transaction.cleanup.interval.ms'),
    },
    stateManager,
    markerChannel,
    p.producerIds,
    p.scheduler,
    p.clock,
  );
}
