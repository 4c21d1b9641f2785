import * as fs from 'node:fs';
import { parseProperties } from '../common/config/properties';
import { NetworkClientOptions } from '../client/network-client';
import { CliError } from './cli';
import { intOption, parseBrokerList } from './tool-properties';

/** The admin client properties the admin tools honour; any other key is refused, not silently ignored. */
const ADMIN_KEYS = new Set(['bootstrap.servers', 'client.id', 'request.timeout.ms', 'default.api.timeout.ms', 'retries', 'retry.backoff.ms', 'security.protocol']);

/**
 * The NetworkClient options of an admin tool (Kafka's Admin.create(props)): `--command-config` / `--admin.config`
 * properties under the tool's `--bootstrap-server` and its defaults (`defaults`: client.id, timeouts).
 */
export function adminClientOptions(bootstrapServer: string, configFile: string | undefined, option: string, defaults: { clientId: string; requestTimeoutMs?: number }): NetworkClientOptions {
  let props = new Map<string, string>();
  if (configFile !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(configFile, 'utf8');
    } catch (e) {
      throw new CliError(`Cannot read ${option} ${configFile}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    props = parseProperties(text);
    for (const key of props.keys()) if (!ADMIN_KEYS.has(key)) throw new CliError(`Unsupported admin client property ${key} in ${configFile}; supported: ${[...ADMIN_KEYS].join(', ')}`);
    const protocol = props.get('security.protocol');
    if (protocol !== undefined && protocol !== 'PLAINTEXT') throw new CliError(`Unsupported security.protocol ${protocol} in ${configFile}: only PLAINTEXT is supported`);
  }
  return {
    bootstrapServers: parseBrokerList(bootstrapServer, '--bootstrap-server'),
    clientId: props.get('client.id') ?? defaults.clientId,
    requestTimeoutMs: intOption(props.get('request.timeout.ms'), 'request.timeout.ms', defaults.requestTimeoutMs ?? 30000),
    retries: intOption(props.get('retries'), 'retries', 3),
    retryBackoffMs: intOption(props.get('retry.backoff.ms'), 'retry.backoff.ms', 100),
  };
}
