import { KafkaConfig } from '../common/config/kafka-config';
import { ClientSecurity, clientSecurityFrom } from '../security/client-security';

/**
 * How this broker's own clients (replica fetchers, the controller's channel, controlled shutdown) reach a
 * listener of the other brokers: that listener's security protocol, with its `listener.name.<l>.ssl.*` keys over
 * the broker's ssl.* as client settings (Kafka's ChannelBuilders.clientChannelBuilder on the inter-broker
 * listener). Loads the key material: bad material throws ConfigException naming the key.
 */
export function listenerClientSecurity(config: KafkaConfig, listenerName: string): ClientSecurity {
  const listener = config.listenerConfig(listenerName);
  return clientSecurityFrom((key) => listener.raw(key), config.securityProtocolOf(listenerName) ?? 'PLAINTEXT');
}
