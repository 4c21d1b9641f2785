import { PlainSaslServer, jaasPlainVerifier } from './plain-sasl-server';
import { ScramCredentialLookup, isScramMechanism } from './scram-credential';
import { ScramSaslServer } from './scram-sasl-server';
import { ListenerSasl, PLAIN_LOGIN_MODULE } from './sasl-server-config';
import { SaslServer, SaslServerFactory } from './sasl-server';

/**
 * The mechanism servers of one listener: PLAIN checks the `user_<name>` options of the listener's PlainLoginModule
 * (Kafka's PlainServerCallbackHandler), SCRAM looks credentials up in the broker's cache (users and tokens).
 */
export function createSaslServerFactory(listener: ListenerSasl, scram: ScramCredentialLookup): SaslServerFactory {
  return (mechanism: string): SaslServer => {
    if (mechanism === 'PLAIN') {
      const module = (listener.jaas.get('PLAIN') ?? []).find((m) => m.loginModule === PLAIN_LOGIN_MODULE);
      return new PlainSaslServer(jaasPlainVerifier(module?.options ?? new Map()));
    }
    if (isScramMechanism(mechanism)) return new ScramSaslServer(mechanism, scram);
    throw new Error(`Kafka Server failed to create a SaslServer to interact with a client during session authentication with server mechanism ${mechanism}`);
  };
}
