import { ConfigException } from '../common/config/config-def';
import { ClientTlsOptions, ConfigLookup, loadClientTls, sslSettings } from './ssl-factory';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
export const SECURITY_PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

/**
 * How a client connection secures itself (Kafka's ChannelBuilders.clientChannelBuilder inputs): the security
 * protocol and, for SSL and SASL_SSL, the TLS material. BrokerConnection reads it; for SASL_* its `sasl` option
 * (src/client/sasl-client-authenticator.ts) carries the mechanism and credentials.
 */
export interface ClientSecurity {
  readonly securityProtocol: SecurityProtocol;
  readonly tls?: ClientTlsOptions;
}

export const PLAINTEXT_SECURITY: ClientSecurity = Object.freeze({ securityProtocol: 'PLAINTEXT' });

export function isSecurityProtocol(text: string): text is SecurityProtocol {
  return (SECURITY_PROTOCOLS as readonly string[]).includes(text);
}

/**
 * A client's security from Kafka's client keys (`security.protocol`, `ssl.*`), read through `get` (a tool's
 * properties, or a broker listener's values for the broker's own clients). Loads the key material: a bad
 * store or password throws ConfigException naming the key.
 */
export function clientSecurityFrom(get: ConfigLookup, protocol?: string): ClientSecurity {
  const text = (protocol ?? get('security.protocol') ?? 'PLAINTEXT').trim().toUpperCase();
  if (!isSecurityProtocol(text)) throw new ConfigException(`Invalid value ${text} for configuration security.protocol: String must be one of: ${SECURITY_PROTOCOLS.join(', ')}`);
  if (text === 'PLAINTEXT') return PLAINTEXT_SECURITY;
  // The SASL half (mechanism and credentials) travels beside this, as the connection's `sasl` option.
  if (text === 'SASL_PLAINTEXT') return { securityProtocol: text };
  return { securityProtocol: text, tls: loadClientTls(sslSettings(get)) };
}
