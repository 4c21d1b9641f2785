import { KafkaConfig } from '../../common/config/kafka-config';
import { Clock } from '../../common/time';
import { SocketServerOptions } from './socket-server';

/**
 * The slice of the broker config the socket server uses (Kafka's SocketServer reads the same keys).
 * num.network.threads / num.io.threads are accepted by the config (statically and dynamically, and reported by
 * DescribeConfigs) but do not apply (see SocketServer). The connection limits may change later (reconfigureConnectionLimits).
 */
export function socketServerOptions(config: KafkaConfig, clock?: Clock): SocketServerOptions {
  return {
    brokerId: config.brokerId,
    listeners: config.listeners,
    advertisedListeners: config.advertisedListeners,
    socketRequestMaxBytes: config.get('socket.request.max.bytes'),
    connectionsMaxIdleMs: config.get('connections.max.idle.ms'),
    queuedMaxRequests: config.get('queued.max.requests'),
    queuedMaxRequestBytes: config.get('queued.max.request.bytes'),
    maxConnections: config.get('max.connections'),
    maxConnectionsPerIp: config.get('max.connections.per.ip'),
    maxConnectionsPerIpOverrides: config.maxConnectionsPerIpOverrides,
    maxConnectionCreationRate: config.get('max.connection.creation.rate'),
    interBrokerListenerName: config.interBrokerListenerName,
    quotaWindow: { numQuotaSamples: config.get('quota.window.num'), quotaWindowSizeSeconds: config.get('quota.window.size.seconds') },
    ...(clock === undefined ? {} : { clock }),
  };
}
