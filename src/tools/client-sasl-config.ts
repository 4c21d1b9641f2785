import { ClientSasl } from '../client/sasl-client-authenticator';
import { parseJaasConfigProperty } from '../security/jaas-config';
import { isScramMechanism } from '../security/scram-credential';
import { unsecuredLogin } from '../security/oauth-bearer-unsecured-login';
import { CliError } from './cli';

/** The client properties of SASL that the tools honour. */
export const CLIENT_SASL_KEYS = ['security.protocol', 'sasl.mechanism', 'sasl.jaas.config'];

/**
 * A tool's SASL settings from its client properties, as Kafka's clients read them: `security.protocol`
 * (the SASL part of SASL_PLAINTEXT and SASL_SSL; TLS is client-security's), `sasl.mechanism` (default GSSAPI, which kafka-ts does not offer) and
 * `sasl.jaas.config` with the PlainLoginModule / ScramLoginModule `username` and `password` options
 * (`tokenauth=true` for a delegation token), or the OAuthBearerLoginModule's `unsecuredLogin*` options. Undefined for PLAINTEXT.
 */
export function clientSaslFrom(props: ReadonlyMap<string, string>, source: string): ClientSasl | undefined {
  const protocol = (props.get('security.protocol') ?? 'PLAINTEXT').trim().toUpperCase();
  if (protocol === 'PLAINTEXT' || protocol === 'SSL') return undefined;
  if (protocol !== 'SASL_PLAINTEXT' && protocol !== 'SASL_SSL') throw new CliError(`Unsupported security.protocol ${protocol} in ${source}: PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL are supported`);
  const mechanism = (props.get('sasl.mechanism') ?? 'GSSAPI').trim();
  if (mechanism !== 'PLAIN' && mechanism !== 'OAUTHBEARER' && !isScramMechanism(mechanism)) {
    throw new CliError(`sasl.mechanism ${mechanism} in ${source} is not offered by kafka-ts (GSSAPI is the default when it is not set): use PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER`);
  }
  const jaas = props.get('sasl.jaas.config');
  if (jaas === undefined) throw new CliError("Could not find a 'KafkaClient' entry in the JAAS configuration. System property 'java.security.auth.login.config' is not set");
  let options: ReadonlyMap<string, string>;
  try {
    options = parseJaasConfigProperty(jaas).options;
  } catch (e) {
    throw new CliError(`Invalid value [hidden] for configuration sasl.jaas.config: ${(e as Error).message}`);
  }
  if (mechanism === 'OAUTHBEARER') {
    try {
      const login = unsecuredLogin(options);
      return { mechanism, username: login.token().principalName, password: '', oauthBearer: login };
    } catch (e) {
      throw new CliError(`sasl.jaas.config in ${source}: ${(e as Error).message}`);
    }
  }
  const username = options.get('username');
  const password = options.get('password');
  if (username === undefined || password === undefined) throw new CliError(`sasl.jaas.config in ${source} has no username and password options`);
  return { mechanism, username, password, ...(options.get('tokenauth') === 'true' ? { tokenAuth: true } : {}) };
}
