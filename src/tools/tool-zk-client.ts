import { ZkClient } from '../zk/zk-client';
import { toolZkSecurity } from '../security/zookeeper-login';

/**
 * The ZooKeeper session of a tool run with `--zookeeper`: Kafka's commands build theirs as
 * `KafkaZkClient(connect, JaasUtils.isZkSaslEnabled, 30000, 30000, ...)`, so a tool logs in with the JAAS `Client`
 * section named in KAFKA_OPTS and then creates nodes with secure ACLs, like the brokers. A JAAS file that cannot be
 * honoured rejects the promise, as a failed connection does.
 */
export async function connectToolZk(connectString: string, name: string): Promise<ZkClient> {
  return ZkClient.connect({ connectString, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, name, ...toolZkSecurity() });
}
