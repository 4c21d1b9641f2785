import { KafkaConfig } from '../../common/config/kafka-config';
import { ClientSecurity, PLAINTEXT_SECURITY } from '../../security/client-security';
import { ClientSasl } from '../../client/sasl-client-authenticator';

/** The replica.* settings a follower's fetchers use (Kafka's KafkaConfig replica fetcher keys). */
export interface ReplicaFetcherConfig {
  /** This broker's id, sent as the Fetch replica id. */
  brokerId: number;
  /** num.replica.fetchers: fetchers per source broker. */
  numReplicaFetchers: number;
  /** replica.fetch.max.bytes: per partition. */
  fetchMaxBytes: number;
  /** replica.fetch.response.max.bytes: per response. */
  fetchResponseMaxBytes: number;
  /** replica.fetch.wait.max.ms. */
  fetchWaitMaxMs: number;
  /** replica.fetch.min.bytes. */
  fetchMinBytes: number;
  /** replica.fetch.backoff.ms: pause after an error. */
  fetchBackoffMs: number;
  /** replica.socket.timeout.ms: how long a request may take beyond its own wait. */
  socketTimeoutMs: number;
  /** The inter-broker listener's security protocol and TLS material (default PLAINTEXT). */
  security?: ClientSecurity;
  /** The broker's SASL identity when the inter-broker listener is a SASL one. */
  sasl?: ClientSasl;
}

export function replicaFetcherConfigFrom(brokerId: number, config: KafkaConfig, security: ClientSecurity = PLAINTEXT_SECURITY): ReplicaFetcherConfig {
  return {
    brokerId,
    numReplicaFetchers: Math.max(1, config.get('num.replica.fetchers')),
    fetchMaxBytes: config.get('replica.fetch.max.bytes'),
    fetchResponseMaxBytes: config.get('replica.fetch.response.max.bytes'),
    fetchWaitMaxMs: config.get('replica.fetch.wait.max.ms'),
    fetchMinBytes: config.get('replica.fetch.min.bytes'),
    fetchBackoffMs: config.get('replica.fetch.backoff.ms'),
    socketTimeoutMs: config.get('replica.socket.timeout.ms'),
    security,
  };
}
