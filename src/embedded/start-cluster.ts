import { EmbeddedCluster, StartClusterOptions } from './embedded-cluster';

/**
 * Starts a real kafka-ts cluster for a test and resolves once clients can use it:
 *
 *     const cluster = await startCluster({ brokers: 3 });
 *     const kafka = new Kafka({ brokers: cluster.bootstrapServers.split(',') });
 *     ...
 *     await cluster.stop();
 */
export function startCluster(options: StartClusterOptions = {}): Promise<EmbeddedCluster> {
  return EmbeddedCluster.start(options);
}
