import { KafkaConfig } from '../../common/config/kafka-config';
import { SocketServerOptions } from './socket-server';

/**
 * The slice of the broker config the socket server uses (Kafka's SocketServer reads the same keys).
 * num.network.threads / num.io.threads are accepted by the config but do not apply (see SocketServer).
 */
export function socketServerOptions(config: KafkaConfig): SocketServerOptions {
  const queuedBytes = config.get('queued.max.request.bytes');
  return {
    brokerId: config.brokerId,
    listeners: config.listeners,
    advertisedListeners: config.advertisedListeners,
    socketRequestMaxBytes: config.get('socket.request.max.bytes'),
    connectionsMaxIdleMs: config.get('connections.max.idle.ms'),
    maxInFlightBytesPerConnection: queuedBytes > 0 ? queuedBytes : undefined,
    maxInFlightRequestsPerConnection: config.get('queued.max.requests'),
  };
}
