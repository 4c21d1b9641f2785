import { KafkaConfig } from '../common/config/kafka-config';
import { ConfigException } from '../common/config/config-def';
import { jaasFileFromKafkaOpts, loadJaasFileFromEnv } from '../security/jaas-config';
import { ScramCredentialCache } from '../security/scram-credential-cache';
import { JaasFile, ListenerSasl, SaslSettings, interBrokerCredentials, interBrokerOAuthBearerLogin, resolveListenerSasl } from '../security/sasl-server-config';
import { UnsecuredLogin } from '../security/oauth-bearer-unsecured-login';
import { createSaslServerFactory } from '../security/sasl-server-factory';
import { SaslServerFactory } from '../security/sasl-server';

/** The broker's own SASL identity on the inter-broker listener. */
export interface InterBrokerSasl {
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
  /** OAUTHBEARER: the unsecured login that makes the broker's tokens (username is then its principal). */
  readonly oauthBearer?: UnsecuredLogin;
}

/** Everything SASL of one broker, resolved before anything starts so that bad settings stop the start-up. */
export interface BrokerSasl {
  readonly listeners: ReadonlyMap<string, { listener: ListenerSasl; createServer: SaslServerFactory }>;
  readonly scramCredentials: ScramCredentialCache;
  /** Set when the inter-broker listener is a SASL one. */
  readonly interBroker: InterBrokerSasl | undefined;
}

/**
 * Reads the SASL settings of every SASL_* listener (Kafka's SaslChannelBuilder per listener, JaasContext, and
 * KafkaConfig's inter-broker checks). The JAAS file is the one `-Djava.security.auth.login.config=` names in
 * KAFKA_OPTS, read only when some listener needs it.
 */
export function resolveBrokerSasl(config: KafkaConfig, env: NodeJS.ProcessEnv = process.env): BrokerSasl {
  const scramCredentials = new ScramCredentialCache();
  const listeners = new Map<string, { listener: ListenerSasl; createServer: SaslServerFactory }>();
  const jaasFile = jaasFileReader(env);
  for (const endPoint of config.listeners) {
    if (!endPoint.securityProtocol.startsWith('SASL_')) continue;
    listeners.set(endPoint.listenerName, resolveSaslListener(config, endPoint.listenerName, scramCredentials, jaasFile));
  }
  const ibl = config.interBrokerListenerName;
  const ib = listeners.get(ibl);
  let interBroker: InterBrokerSasl | undefined;
  if (ib !== undefined) {
    const mechanism = config.get('sasl.mechanism.inter.broker.protocol');
    if (ib.listener.enabledMechanisms.length === 0) throw new ConfigException('requirement failed: sasl.enabled.mechanisms must be non-empty when SASL is used for inter-broker communication');
    if (mechanism === 'GSSAPI') {
      throw new ConfigException('sasl.mechanism.inter.broker.protocol is GSSAPI (the default when the key is not set): kafka-ts does not offer GSSAPI (Kerberos); set it to PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 or OAUTHBEARER');
    }
    if (mechanism === 'OAUTHBEARER') {
      const login = interBrokerOAuthBearerLogin(ib.listener);
      interBroker = { mechanism, username: login.token().principalName, password: '', oauthBearer: login };
    } else {
      interBroker = { mechanism, ...interBrokerCredentials(ib.listener, mechanism) };
    }
  }
  return { listeners, scramCredentials, interBroker };
}

/** The JAAS file of KAFKA_OPTS, read once and only when asked for. */
export function jaasFileReader(env: NodeJS.ProcessEnv = process.env): () => JaasFile | undefined {
  let file: JaasFile | undefined;
  let fileRead = false;
  return () => {
    if (!fileRead) {
      fileRead = true;
      const sections = loadJaasFileFromEnv(env);
      const path = jaasFileFromKafkaOpts(env['KAFKA_OPTS']);
      file = sections === undefined || path === undefined ? undefined : { path, sections };
    }
    return file;
  };
}

/**
 * One SASL listener's settings and mechanism servers from `config` (at start-up, and again when a dynamic
 * change touches the listener's mechanisms or JAAS entries). Bad settings throw ConfigException.
 */
export function resolveSaslListener(
  config: KafkaConfig,
  listenerName: string,
  scramCredentials: ScramCredentialCache,
  jaasFile: () => JaasFile | undefined,
): { listener: ListenerSasl; createServer: SaslServerFactory } {
  const settings: SaslSettings = {
    originals: config.originals,
    enabledMechanisms: config.get('sasl.enabled.mechanisms'),
    connectionsMaxReauthMs: config.get('connections.max.reauth.ms'),
  };
  const listener = resolveListenerSasl(settings, listenerName, needsFile(settings, listenerName, config) ? jaasFile() : undefined);
  return { listener, createServer: createSaslServerFactory(listener, scramCredentials) };
}

/** The JAAS file is read only when some mechanism of the listener has no `listener.name.<l>.<mech>.sasl.jaas.config`. */
function needsFile(settings: SaslSettings, listenerName: string, config: KafkaConfig): boolean {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const prefixed = config.originals.get(`${prefix}sasl.enabled.mechanisms`);
  const mechanisms = prefixed !== undefined ? prefixed.split(',').map((m) => m.trim()).filter((m) => m !== '') : settings.enabledMechanisms;
  return mechanisms.some((m) => !config.originals.has(`${prefix}${m.toLowerCase()}.sasl.jaas.config`));
}
