import { readFileSync } from 'node:fs';
import { ClientSasl } from '../client/sasl-client-authenticator';
import { parseProperties } from '../common/config/properties';
import { ClientSecurity } from '../security/client-security';
import { toolClientSecurity } from './admin-client-config';
import { CliError } from './cli';
import { clientSaslFrom } from './client-sasl-config';

/**
 * How every producing and consuming tool connects, from the same client properties Kafka's clients read:
 * `security.protocol` with its `ssl.*` material and, for SASL_PLAINTEXT / SASL_SSL, `sasl.mechanism` and
 * `sasl.jaas.config`. One helper so that no tool honours a setting another ignores.
 */
export interface ToolClientConnection {
  security: ClientSecurity;
  sasl?: ClientSasl;
}

export function toolClientConnection(props: ReadonlyMap<string, string>, source: string): ToolClientConnection {
  const security = toolClientSecurity(props, source);
  const sasl = clientSaslFrom(props, source);
  return sasl === undefined ? { security } : { security, sasl };
}

/** A tool's client properties file (`--producer.config`, `--consumer.config`, `--command-config`); empty when not given. */
export function readClientProperties(file: string | undefined, option: string): Map<string, string> {
  if (file === undefined) return new Map();
  try {
    return parseProperties(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`Cannot read ${option} ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
