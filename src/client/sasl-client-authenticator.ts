import { KafkaError } from '../common/kafka-error';
import { ErrorCode } from '../common/error-codes';
import { SaslAuthenticateApi } from '../protocol/apis/sasl-authenticate';
import { SaslHandshakeApi } from '../protocol/apis/sasl-handshake';
import { isScramMechanism } from '../security/scram-credential';
import { ScramSaslClient } from '../security/scram-sasl-client';
import { ApiDefinition } from '../protocol/api-definition';
import { CONTROL_A, formatClientInitialResponse } from '../security/oauth-bearer-client-initial-response';
import { UnsecuredLogin } from '../security/oauth-bearer-unsecured-login';

/** The one thing the exchange needs of a connection: sending a request before authentication completes. */
export interface SaslTransport {
  send<Req, Res>(api: ApiDefinition<Req, Res>, body: Req, options: { version: number; duringAuthentication: boolean }): Promise<Res>;
}

/** A client's SASL settings (sasl.mechanism and the username/password of its JAAS login module). */
export interface ClientSasl {
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
  /** SCRAM with a delegation token: `tokenauth=true` (KIP-48). */
  readonly tokenAuth?: boolean;
  /** OAUTHBEARER: where tokens come from (Kafka's default unsecured login); username is the token's principal. */
  readonly oauthBearer?: UnsecuredLogin;
}

/**
 * Kafka's SaslClientAuthenticator as the Java client runs it against a 1.0+ broker: SaslHandshake v1, then the
 * mechanism's tokens in SaslAuthenticate v1 requests. PLAIN sends one token; SCRAM two, and checks the server's
 * signature; OAUTHBEARER one fresh token, and answers a server error JSON with Control-A (RFC 7628), after which
 * the server fails the exchange with its reason. Errors carry Kafka's messages. Resolves to the session lifetime
 * the server gave in its last SaslAuthenticate response (KIP-368; 0: the session does not expire). The same
 * exchange re-authenticates a connection whose session is about to end.
 */
export async function authenticateSasl(conn: SaslTransport, sasl: ClientSasl): Promise<number> {
  const during = { version: 1, duringAuthentication: true };
  const handshake = await conn.send(SaslHandshakeApi, { mechanism: sasl.mechanism }, during);
  if (handshake.errorCode === ErrorCode.UNSUPPORTED_SASL_MECHANISM.code) {
    throw new KafkaError('UNSUPPORTED_SASL_MECHANISM', `Client SASL mechanism '${sasl.mechanism}' not enabled in the server, enabled mechanisms are [${handshake.mechanisms.join(', ')}]`);
  }
  if (handshake.errorCode !== ErrorCode.NONE.code) throw new KafkaError('ILLEGAL_SASL_STATE', `Unexpected handshake request with client mechanism ${sasl.mechanism}, enabled mechanisms are [${handshake.mechanisms.join(', ')}]`);
  let sessionLifetimeMs = 0;
  const exchange = async (token: Buffer): Promise<Buffer> => {
    const r = await conn.send(SaslAuthenticateApi, { authBytes: token }, during);
    if (r.errorCode !== ErrorCode.NONE.code) {
      throw new KafkaError('SASL_AUTHENTICATION_FAILED', r.errorMessage ?? `SaslAuthenticate failed with error code ${r.errorCode}`);
    }
    sessionLifetimeMs = r.sessionLifetimeMs;
    return r.authBytes;
  };
  if (sasl.mechanism === 'PLAIN') {
    await exchange(Buffer.from(`\u0000${sasl.username}\u0000${sasl.password}`, 'utf8'));
    return sessionLifetimeMs;
  }
  if (isScramMechanism(sasl.mechanism)) {
    const client = new ScramSaslClient(sasl.mechanism, sasl.username, sasl.password, sasl.tokenAuth ?? false);
    const serverFirst = await exchange(client.first());
    const serverFinal = await exchange(client.respond(serverFirst));
    try {
      client.verify(serverFinal);
    } catch (e) {
      throw new KafkaError('SASL_AUTHENTICATION_FAILED', (e as Error).message);
    }
    return sessionLifetimeMs;
  }
  if (sasl.mechanism === 'OAUTHBEARER' && sasl.oauthBearer !== undefined) {
    const challenge = await exchange(formatClientInitialResponse(sasl.oauthBearer.token().value, sasl.oauthBearer.extensions));
    if (challenge.length > 0) {
      await exchange(Buffer.from(CONTROL_A, 'utf8'));
      throw new KafkaError('SASL_AUTHENTICATION_FAILED', challenge.toString('utf8'));
    }
    return sessionLifetimeMs;
  }
  throw new KafkaError('UNSUPPORTED_SASL_MECHANISM', `SASL mechanism ${sasl.mechanism} is not supported by this client`);
}
