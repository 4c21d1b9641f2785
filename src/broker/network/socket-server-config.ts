import { KafkaConfig } from '../../common/config/kafka-config';
import { Clock } from '../../common/time';
import { SocketServerOptions } from './socket-server';
import { ListenerLimits } from './connection-quotas';
import { loadServerTls, ServerTlsOptions, sslSettings } from '../../security/ssl-factory';

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
    failedAuthenticationDelayMs: config.get('connection.failed.authentication.delay.ms'),
    queuedMaxRequests: config.get('queued.max.requests'),
    queuedMaxRequestBytes: config.get('queued.max.request.bytes'),
    maxConnections: config.get('max.connections'),
    maxConnectionsPerIp: config.get('max.connections.per.ip'),
    maxConnectionsPerIpOverrides: config.maxConnectionsPerIpOverrides,
    maxConnectionCreationRate: config.get('max.connection.creation.rate'),
    listenerLimits: listenerConnectionLimits(config),
    interBrokerListenerName: config.interBrokerListenerName,
    quotaWindow: { numQuotaSamples: config.get('quota.window.num'), quotaWindowSizeSeconds: config.get('quota.window.size.seconds') },
    tls: listenerTls(config),
    ...(clock === undefined ? {} : { clock }),
  };
}

/**
 * Each SSL / SASL_SSL listener's key material, from its `listener.name.<l>.ssl.*` keys over the broker's ssl.*
 * (Kafka's ChannelBuilders.serverChannelBuilder with the listener's valuesWithPrefixOverride). A bad store,
 * password or key throws ConfigException naming the key: start-up stops there.
 */
export function listenerTls(config: KafkaConfig): Map<string, ServerTlsOptions> {
  const out = new Map<string, ServerTlsOptions>();
  for (const l of config.listeners) {
    if (l.securityProtocol !== 'SSL' && l.securityProtocol !== 'SASL_SSL') continue;
    out.set(l.listenerName, serverTlsFor(config, l.listenerName));
  }
  return out;
}

export function serverTlsFor(config: KafkaConfig, listenerName: string): ServerTlsOptions {
  const listener = config.listenerConfig(listenerName);
  return loadServerTls(sslSettings((key) => listener.raw(key)));
}

/**
 * Each listener's own `listener.name.<l>.max.connections` / `.max.connection.creation.rate` (Kafka's
 * ListenerConnectionQuota); a listener without either is left out (the broker-wide limits alone apply to it).
 */
export function listenerConnectionLimits(config: KafkaConfig): Map<string, ListenerLimits> {
  const out = new Map<string, ListenerLimits>();
  for (const l of config.listeners) {
    const own = config.listenerConfig(l.listenerName);
    const prefix = own.prefix;
    const maxConnections = config.originals.has(`${prefix}max.connections`) ? own.get('max.connections') : undefined;
    const maxConnectionCreationRate = config.originals.has(`${prefix}max.connection.creation.rate`) ? own.get('max.connection.creation.rate') : undefined;
    if (maxConnections === undefined && maxConnectionCreationRate === undefined) continue;
    out.set(l.listenerName, { ...(maxConnections === undefined ? {} : { maxConnections }), ...(maxConnectionCreationRate === undefined ? {} : { maxConnectionCreationRate }) });
  }
  return out;
}
