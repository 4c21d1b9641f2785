import { ConfigException } from '../common/config/config-def';
import { JaasLoginModule, parseJaasConfigProperty } from './jaas-config';
import { UnsecuredLogin, unsecuredLogin } from './oauth-bearer-unsecured-login';

export const PLAIN_LOGIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
export const SCRAM_LOGIN_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';
export const OAUTHBEARER_LOGIN_MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';

/** The SASL mechanisms kafka-ts offers, and the login module each one's JAAS entry names. */
export const OFFERED_MECHANISMS: Readonly<Record<string, string>> = {
  PLAIN: PLAIN_LOGIN_MODULE,
  'SCRAM-SHA-256': SCRAM_LOGIN_MODULE,
  'SCRAM-SHA-512': SCRAM_LOGIN_MODULE,
  OAUTHBEARER: OAUTHBEARER_LOGIN_MODULE,
};

/** The JAAS file named by `-Djava.security.auth.login.config`, when there is one. */
export interface JaasFile {
  readonly path: string;
  readonly sections: ReadonlyMap<string, JaasLoginModule[]>;
}

/** What a broker's SASL settings are read from: its properties as given, and the broker-wide list. */
export interface SaslSettings {
  /** The broker's properties as written (for `listener.name.<l>.` keys). */
  readonly originals: ReadonlyMap<string, string>;
  /** `sasl.enabled.mechanisms` (Kafka's default is GSSAPI). */
  readonly enabledMechanisms: readonly string[];
  /** `connections.max.reauth.ms` (0: sessions never expire). */
  readonly connectionsMaxReauthMs: number;
}

/** One SASL listener's resolved settings (Kafka's SaslChannelBuilder configuration for it). */
export interface ListenerSasl {
  readonly listenerName: string;
  readonly enabledMechanisms: readonly string[];
  /** The JAAS login modules each enabled mechanism uses (JaasContext.loadServerContext). */
  readonly jaas: ReadonlyMap<string, readonly JaasLoginModule[]>;
  /** connections.max.reauth.ms per mechanism (KIP-368); 0 or less: no re-authentication, no expiry. */
  readonly maxReauthMs: ReadonlyMap<string, number>;
}

function listenerPrefix(listenerName: string): string {
  return `listener.name.${listenerName.toLowerCase()}.`;
}

/**
 * A key as the listener's channel builder sees it: `listener.name.<listener>.<key>` wins over `<key>`. (h20's
 * common prefix resolver will replace this private lookup when both land.)
 */
function listenerValue(settings: SaslSettings, listenerName: string, key: string): string | undefined {
  return settings.originals.get(`${listenerPrefix(listenerName)}${key}`);
}

function parseList(text: string): string[] {
  return text.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

/** sasl.enabled.mechanisms of a listener (the listener-prefixed value first). */
export function listenerMechanisms(settings: SaslSettings, listenerName: string): string[] {
  const prefixed = listenerValue(settings, listenerName, 'sasl.enabled.mechanisms');
  return prefixed !== undefined ? parseList(prefixed) : [...settings.enabledMechanisms];
}

/**
 * Kafka's JaasContext.loadServerContext: `listener.name.<l>.<mechanism>.sasl.jaas.config` if set, else the JAAS
 * file's `<listener>.KafkaServer` section, else its `KafkaServer` section; Kafka's message when there is none.
 */
export function serverJaasModules(settings: SaslSettings, listenerName: string, mechanism: string, file: JaasFile | undefined): JaasLoginModule[] {
  const property = listenerValue(settings, listenerName, `${mechanism.toLowerCase()}.sasl.jaas.config`);
  if (property !== undefined) {
    try {
      return [parseJaasConfigProperty(property)];
    } catch (e) {
      throw new ConfigException(`Invalid value [hidden] for configuration ${listenerPrefix(listenerName)}${mechanism.toLowerCase()}.sasl.jaas.config: ${(e as Error).message}`);
    }
  }
  const listenerContext = `${listenerName.toLowerCase()}.KafkaServer`;
  const modules = file?.sections.get(listenerContext) ?? file?.sections.get('KafkaServer');
  if (modules === undefined || modules.length === 0) {
    throw new ConfigException(
      `Could not find a 'KafkaServer' or '${listenerContext}' entry in the JAAS configuration. System property 'java.security.auth.login.config' is ${file === undefined ? 'not set' : file.path}`,
    );
  }
  return modules;
}

/**
 * Resolves one SASL listener, refusing at start-up what kafka-ts cannot honour: GSSAPI (Kerberos, which is also
 * Kafka's default for sasl.enabled.mechanisms), unknown mechanisms, a missing JAAS configuration, login modules
 * kafka-ts does not implement.
 */
export function resolveListenerSasl(settings: SaslSettings, listenerName: string, file: JaasFile | undefined): ListenerSasl {
  const mechanisms = listenerMechanisms(settings, listenerName);
  const offered = Object.keys(OFFERED_MECHANISMS).join(', ');
  const key = listenerValue(settings, listenerName, 'sasl.enabled.mechanisms') !== undefined ? `${listenerPrefix(listenerName)}sasl.enabled.mechanisms` : 'sasl.enabled.mechanisms';
  const jaas = new Map<string, JaasLoginModule[]>();
  const maxReauthMs = new Map<string, number>();
  for (const mechanism of mechanisms) {
    if (mechanism === 'GSSAPI') {
      throw new ConfigException(
        `${key} of listener ${listenerName} includes GSSAPI (the default when the key is not set): kafka-ts does not offer GSSAPI (Kerberos). Set ${key} to mechanisms it offers: ${offered}`,
      );
    }
    const module = OFFERED_MECHANISMS[mechanism];
    if (module === undefined) throw new ConfigException(`${key} of listener ${listenerName} includes ${mechanism}, which kafka-ts does not offer (it offers ${offered})`);
    const modules = serverJaasModules(settings, listenerName, mechanism, file);
    for (const m of modules) {
      if (!Object.values(OFFERED_MECHANISMS).includes(m.loginModule)) {
        throw new ConfigException(`The JAAS configuration of listener ${listenerName} names login module ${m.loginModule}, which kafka-ts does not implement (it has ${[...new Set(Object.values(OFFERED_MECHANISMS))].join(', ')})`);
      }
    }
    jaas.set(mechanism, modules);
    const reauth = listenerValue(settings, listenerName, `${mechanism.toLowerCase()}.connections.max.reauth.ms`) ?? listenerValue(settings, listenerName, 'connections.max.reauth.ms');
    const ms = reauth === undefined ? settings.connectionsMaxReauthMs : Number(reauth);
    if (!Number.isInteger(ms)) throw new ConfigException(`Invalid value ${String(reauth)} for configuration connections.max.reauth.ms of listener ${listenerName}: Not a number of type LONG`);
    maxReauthMs.set(mechanism, ms);
  }
  return { listenerName, enabledMechanisms: mechanisms, jaas, maxReauthMs };
}

/** The module of a mechanism's JAAS entries that carries its options (the one of the mechanism's class, else the first). */
export function moduleFor(modules: readonly JaasLoginModule[], mechanism: string): JaasLoginModule | undefined {
  const cls = OFFERED_MECHANISMS[mechanism];
  return modules.find((m) => m.loginModule === cls) ?? modules[0];
}

/**
 * The broker's own credentials on its inter-broker listener (Kafka logs the broker in with the same JAAS entry
 * and its `username` / `password` options): refused at start-up when they are missing.
 */
export function interBrokerCredentials(listener: ListenerSasl, mechanism: string): { username: string; password: string } {
  requireInterBrokerMechanism(listener, mechanism);
  const module = moduleFor(listener.jaas.get(mechanism) ?? [], mechanism);
  const username = module?.options.get('username');
  const password = module?.options.get('password');
  if (username === undefined || password === undefined) {
    throw new ConfigException(`The JAAS entry of listener ${listener.listenerName} for ${mechanism} has no username and password options: the broker needs them to connect to the other brokers over SASL`);
  }
  return { username, password };
}

function requireInterBrokerMechanism(listener: ListenerSasl, mechanism: string): void {
  if (!listener.enabledMechanisms.includes(mechanism)) {
    throw new ConfigException('requirement failed: sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication');
  }
}

/**
 * The broker's own OAUTHBEARER login on its inter-broker listener: Kafka logs the broker in with the listener's
 * OAuthBearerLoginModule entry and its `unsecuredLogin*` options (OAuthBearerUnsecuredLoginCallbackHandler).
 */
export function interBrokerOAuthBearerLogin(listener: ListenerSasl): UnsecuredLogin {
  requireInterBrokerMechanism(listener, 'OAUTHBEARER');
  const module = moduleFor(listener.jaas.get('OAUTHBEARER') ?? [], 'OAUTHBEARER');
  try {
    return unsecuredLogin(module?.options ?? new Map());
  } catch (e) {
    throw new ConfigException(`The JAAS entry of listener ${listener.listenerName} for OAUTHBEARER cannot log the broker in: ${(e as Error).message}`);
  }
}
