import { readFileSync } from 'node:fs';
import { parseProperties } from '../common/config/properties';
import { NetworkClient } from '../client/network-client';
import { CliError } from './cli';
import { intOption, parseBrokerList } from './tool-properties';

/** The AdminClient properties the admin tools honour from --command-config; any other key is refused, not ignored. */
const KNOWN = new Set(['bootstrap.servers', 'client.id', 'request.timeout.ms', 'retries', 'retry.backoff.ms', 'security.protocol']);

export interface AdminClientConfig {
  readonly bootstrapServers: string[];
  readonly clientId: string;
  readonly requestTimeoutMs: number;
  readonly retries: number;
  readonly retryBackoffMs: number;
}

/**
 * Kafka's admin tools' client set-up (createAdminClient): --command-config's properties, then
 * bootstrap.servers from --bootstrap-server on top. Only PLAINTEXT exists here, so another security.protocol is
 * refused rather than silently talked to in plaintext.
 */
export function adminClientConfig(bootstrapServer: string, commandConfig: string | undefined, defaultClientId: string): AdminClientConfig {
  let props = new Map<string, string>();
  if (commandConfig !== undefined) {
    let text: string;
    try {
      text = readFileSync(commandConfig, 'utf8');
    } catch (e) {
      throw new CliError(`Cannot read --command-config ${commandConfig}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    props = parseProperties(text);
    for (const key of props.keys()) if (!KNOWN.has(key)) throw new CliError(`Unsupported admin client property in --command-config: ${key}`);
    const protocol = props.get('security.protocol');
    if (protocol !== undefined && protocol.trim().toUpperCase() !== 'PLAINTEXT') throw new CliError(`Unsupported security.protocol ${protocol}: only PLAINTEXT is available`);
  }
  return {
    bootstrapServers: parseBrokerList(bootstrapServer, '--bootstrap-server'),
    clientId: props.get('client.id') ?? defaultClientId,
    requestTimeoutMs: intOption(props.get('request.timeout.ms'), 'request.timeout.ms', 30000),
    retries: intOption(props.get('retries'), 'retries', 3),
    retryBackoffMs: intOption(props.get('retry.backoff.ms'), 'retry.backoff.ms', 100),
  };
}

export function adminNetworkClient(config: AdminClientConfig): NetworkClient {
  return new NetworkClient({
    bootstrapServers: config.bootstrapServers,
    clientId: config.clientId,
    requestTimeoutMs: config.requestTimeoutMs,
    retries: config.retries,
    retryBackoffMs: config.retryBackoffMs,
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
};

export function javaExceptionName(errorName: string): string {
  const simple = EXCEPTION_CLASS[errorName] ?? `${errorName.toLowerCase().replace(/(^|_)([a-z])/g, (_m, _u: string, c: string) => c.toUpperCase())}Exception`;
  return `org.apache.kafka.common.errors.${simple}`;
}
