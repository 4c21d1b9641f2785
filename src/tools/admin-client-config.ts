import { readFileSync } from 'node:fs';
import { parseProperties } from '../common/config/properties';
import { NetworkClient, NetworkClientOptions } from '../client/network-client';
import { CliError } from './cli';
import { intOption, parseBrokerList } from './tool-properties';
import { ClientSecurity, clientSecurityFrom } from '../security/client-security';
import { ClientSasl } from '../client/sasl-client-authenticator';
import { CLIENT_SASL_KEYS, clientSaslFrom } from './client-sasl-config';

/** The client's TLS keys (SslConfigs' client side), honoured by every tool. */
export const CLIENT_SSL_KEYS: readonly string[] = [
  'ssl.protocol', 'ssl.enabled.protocols', 'ssl.cipher.suites', 'ssl.keystore.type', 'ssl.keystore.location', 'ssl.keystore.password',
  'ssl.key.password', 'ssl.keystore.key', 'ssl.keystore.certificate.chain', 'ssl.truststore.type', 'ssl.truststore.location',
  'ssl.truststore.password', 'ssl.truststore.certificates', 'ssl.endpoint.identification.algorithm',
];

/** The AdminClient properties the admin tools honour; any other key is refused, not silently ignored. */
const ADMIN_KEYS = new Set(['bootstrap.servers', 'client.id', 'request.timeout.ms', 'default.api.timeout.ms', 'retries', 'retry.backoff.ms', ...CLIENT_SASL_KEYS, ...CLIENT_SSL_KEYS]);

export interface AdminClientConfig {
  readonly bootstrapServers: string[];
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly retries: number;
  readonly retryBackoffMs: number;
  /** security.protocol and the ssl.* client keys. */
  readonly security: ClientSecurity;
  /** SASL_PLAINTEXT / SASL_SSL: the mechanism and credentials (sasl.mechanism, sasl.jaas.config). */
  readonly sasl?: ClientSasl;
}

/**
 * A tool's client security from its properties (security.protocol, ssl.*): key material is loaded here, so a
 * bad truststore or password is one line naming the key and a non-zero exit.
 */
export function toolClientSecurity(props: ReadonlyMap<string, string>, file: string): ClientSecurity {
  try {
    return clientSecurityFrom((key) => props.get(key));
  } catch (e) {
    throw new CliError(`${(e as Error).message} (in ${file})`);
  }
}

/**
 * Reads an admin tool's properties file (`--command-config`, `--admin.config`): security.protocol with its ssl.*
 * (toolClientSecurity) and sasl.* (clientSaslFrom) keys; anything else is refused rather than ignored.
 */
function readAdminProperties(file: string | undefined, option: string): Map<string, string> {
  if (file === undefined) return new Map();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read ${option} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const props = parseProperties(text);
  for (const key of props.keys()) if (!ADMIN_KEYS.has(key)) throw new CliError(`Unsupported admin client property ${key} in ${file}; supported: ${[...ADMIN_KEYS].join(', ')}`);
  return props;
}

/**
 * Kafka's admin tools' client set-up (createAdminClient / Admin.create(props)): the properties file, then
 * bootstrap.servers from --bootstrap-server on top, then the tool's defaults for what neither sets.
 */
export function adminClientConfig(bootstrapServer: string, configFile: string | undefined, defaultClientId: string, option = '--command-config', defaultRequestTimeoutMs = 30000): AdminClientConfig {
  const props = readAdminProperties(configFile, option);
  return {
    bootstrapServers: parseBrokerList(bootstrapServer, '--bootstrap-server'),
    clientId: props.get('client.id') ?? defaultClientId,
    requestTimeoutMs: intOption(props.get('request.timeout.ms'), 'request.timeout.ms', defaultRequestTimeoutMs),
    retries: intOption(props.get('retries'), 'retries', 3),
    retryBackoffMs: intOption(props.get('retry.backoff.ms'), 'retry.backoff.ms', 100),
    security: toolClientSecurity(props, configFile ?? option),
    ...saslOf(clientSaslFrom(props, configFile ?? option)),
  };
}

function saslOf(sasl: ClientSasl | undefined): { sasl?: ClientSasl } {
  return sasl === undefined ? {} : { sasl };
}

/** The same, as NetworkClient options (for tools that build their client themselves). */
export function adminClientOptions(bootstrapServer: string, configFile: string | undefined, option: string, defaults: { clientId: string; requestTimeoutMs?: number }): NetworkClientOptions {
  const c = adminClientConfig(bootstrapServer, configFile, defaults.clientId, option, defaults.requestTimeoutMs);
  return { bootstrapServers: c.bootstrapServers, clientId: c.clientId, requestTimeoutMs: c.requestTimeoutMs, retries: c.retries, retryBackoffMs: c.retryBackoffMs, security: c.security, ...saslOf(c.sasl) };
}

export function adminNetworkClient(config: AdminClientConfig): NetworkClient {
  return new NetworkClient({
    bootstrapServers: config.bootstrapServers,
    clientId: config.clientId,
    requestTimeoutMs: config.requestTimeoutMs,
    retries: config.retries,
    retryBackoffMs: config.retryBackoffMs,
    security: config.security,
    ...saslOf(config.sasl),
  });
}

/** Kafka's exception class for an error code, as `ExecutionException.getMessage` shows it: `<class>: <message>`. */
const EXCEPTION_CLASS: Readonly<Record<string, string>> = {
  REQUEST_TIMED_OUT: 'TimeoutException',
  KAFKA_STORAGE_ERROR: 'KafkaStorageException',
  INVALID_TOPIC_EXCEPTION: 'InvalidTopicException',
  UNKNOWN_SERVER_ERROR: 'UnknownServerException',
  CORRUPT_MESSAGE: 'CorruptRecordException',
  NETWORK_EXCEPTION: 'NetworkException',
  CLUSTER_AUTHORIZATION_FAILED: 'ClusterAuthorizationException',
  TOPIC_AUTHORIZATION_FAILED: 'TopicAuthorizationException',
  GROUP_AUTHORIZATION_FAILED: 'GroupAuthorizationException',
  INVALID_CONFIG: 'InvalidConfigurationException',
  TOPIC_ALREADY_EXISTS: 'TopicExistsException',
};

export function javaExceptionName(errorName: string): string {
  const simple = EXCEPTION_CLASS[errorName] ?? `${errorName.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}Exception`;
  return `org.apache.kafka.common.errors.${simple}`;
}
