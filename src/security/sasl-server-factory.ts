import { PlainSaslServer, jaasPlainVerifier } from './plain-sasl-server';
import { ScramCredentialLookup, isScramMechanism } from './scram-credential';
import { ScramSaslServer } from './scram-sasl-server';
import { ConfigException } from '../common/config/config-def';
import { OAuthBearerSaslServer } from './oauth-bearer-sasl-server';
import { UnsecuredValidatorOptions, unsecuredValidatorOptions } from './oauth-bearer-unsecured-validator';
import { ListenerSasl, PLAIN_LOGIN_MODULE, moduleFor } from './sasl-server-config';
import { SaslServer, SaslServerFactory } from './sasl-server';

/**
 * The mechanism servers of one listener: PLAIN checks the `user_<name>` options of the listener's PlainLoginModule
 * (Kafka's PlainServerCallbackHandler), SCRAM looks credentials up in the broker's cache (users and tokens),
 * OAUTHBEARER validates unsecured tokens with the `unsecuredValidator*` options of the listener's
 * OAuthBearerLoginModule (read here, at start-up, so that a bad option stops it).
 */
export function createSaslServerFactory(listener: ListenerSasl, scram: ScramCredentialLookup, nowMs: () => number = Date.now): SaslServerFactory {
  let oauth: UnsecuredValidatorOptions | undefined;
  if (listener.enabledMechanisms.includes('OAUTHBEARER')) {
    try {
      oauth = unsecuredValidatorOptions(moduleFor(listener.jaas.get('OAUTHBEARER') ?? [], 'OAUTHBEARER')?.options ?? new Map());
    } catch (e) {
      throw new ConfigException(`The JAAS entry of listener ${listener.listenerName} for OAUTHBEARER: ${(e as Error).message}`);
    }
  }
  return (mechanism: string): SaslServer => {
    if (mechanism === 'OAUTHBEARER' && oauth !== undefined) return new OAuthBearerSaslServer(oauth, nowMs);
    if (mechanism === 'PLAIN') {
      const module = (listener.jaas.get('PLAIN') ?? []).find((m) => m.loginModule === PLAIN_LOGIN_MODULE);
      return new PlainSaslServer(jaasPlainVerifier(module?.options ?? new Map()));
    }
    if (isScramMechanism(mechanism)) return new ScramSaslServer(mechanism, scram);
    throw new Error(`Kafka Server failed to create a SaslServer to interact with a client during session authentication with server mechanism ${mechanism}`);
  };
}
