import { ErrorCode } from '../../common/error-codes';
import { getLogger } from '../../common/logging/logging';
import { Clock } from '../../common/time';
import { ApiDefinition } from '../../protocol/api-definition';
import { ApiKey } from '../../protocol/api-keys';
import { SaslAuthenticateApi } from '../../protocol/apis/sasl-authenticate';
import { SaslHandshakeApi } from '../../protocol/apis/sasl-handshake';
import { readRequestHeaderPrefix, readRequestHeaderRest } from '../../protocol/headers';
import { ByteReader } from '../../protocol/primitives/byte-reader';
import { USER_TYPE } from '../../security/kafka-principal';
import { SaslAuthenticationError, SaslServer, SaslServerFactory } from '../../security/sasl-server';
import { ListenerSasl } from '../../security/sasl-server-config';
import { DispatchOutcome, RequestDispatcher, encodeResponse } from '../request-dispatcher';
import { ConnectionContext } from './api-handler';
import { AuthenticationFailureLog } from './authentication-failure-log';

type State = 'initial' | 'handshake-or-versions' | 'handshake' | 'authenticate' | 'reauth-handshake' | 'reauth-bad-mechanism' | 'complete' | 'failed';

const API_NAMES = new Map<number, string>(Object.entries(ApiKey).map(([name, key]) => [key, name]));

/** What the listener's authenticators share. */
export interface SaslAuthenticatorDeps {
  readonly listener: ListenerSasl;
  readonly createServer: SaslServerFactory;
  readonly dispatcher: RequestDispatcher;
  readonly clock: Clock;
  readonly failures: AuthenticationFailureLog;
}

/** An authentication failure: an optional response for the client, then the connection is closed. */
class AuthFailure extends Error {
  constructor(
    message: string,
    readonly response: Buffer[] | undefined,
    /** Logged as Selector's "Failed authentication" (else as an unexpected error, at WARN). */
    readonly authentication: boolean,
  ) {
    super(message);
  }
}

/**
 * Kafka's SaslServerAuthenticator for one connection on a SASL listener. Until it completes, every frame comes
 * here: ApiVersions (once) and SaslHandshake are the only Kafka requests accepted; after a v0 handshake the
 * tokens are raw size-prefixed frames (the exchange of old clients and kafka-python), after v1 they travel in
 * SaslAuthenticate requests. A failure answers what Kafka answers (UNSUPPORTED_SASL_MECHANISM with the enabled
 * mechanisms, SASL_AUTHENTICATION_FAILED with Kafka's message, ILLEGAL_SASL_STATE), is logged, and closes this
 * connection only. With connections.max.reauth.ms the session gets a lifetime (KIP-368): the client may
 * re-authenticate with a new SaslHandshake, and a request after the session expired closes the connection.
 */
export class SaslServerAuthenticator {
  private state: State = 'initial';
  private framed = false;
  private server: SaslServer | undefined;
  private mechanism: string | undefined;
  private previous: { mechanism: string; principal: string } | undefined;
  private badMechanismMessage = '';
  /** When the session ends (epoch ms), if it does. */
  private sessionExpiryMs: number | undefined;
  private readonly log = getLogger('org.apache.kafka.common.security.authenticator.SaslServerAuthenticator');

  constructor(
    private readonly deps: SaslAuthenticatorDeps,
    private readonly context: ConnectionContext,
  ) {}

  get complete(): boolean {
    return this.state === 'complete';
  }

  /** KafkaChannel.maybeBeginServerReauthentication: only sessions with an expiry may re-authenticate. */
  beginReauthentication(): boolean {
    if (this.state !== 'complete' || this.sessionExpiryMs === undefined || this.mechanism === undefined) return false;
    this.previous = { mechanism: this.mechanism, principal: this.context.principal.name };
    this.server = undefined;
    this.state = 'reauth-handshake';
    this.log.debug(`Beginning re-authentication: ${this.context.connectionId}`);
    return true;
  }

  sessionExpired(nowMs: number): boolean {
    return this.sessionExpiryMs !== undefined && nowMs > this.sessionExpiryMs;
  }

  private get text(): string {
    return this.previous !== undefined ? 're-authentication' : 'authentication';
  }

  handle(frame: Buffer): DispatchOutcome {
    try {
      switch (this.state) {
        case 'initial':
        case 'handshake-or-versions':
        case 'handshake':
        case 'reauth-handshake':
          return this.handleKafkaRequest(frame);
        case 'reauth-bad-mechanism':
          throw new AuthFailure(this.badMechanismMessage, undefined, true);
        case 'authenticate':
          return this.framed ? this.handleAuthenticateRequest(frame) : this.handleRawToken(frame);
        default:
          throw new AuthFailure(`Unexpected SASL frame in state ${this.state}`, undefined, false);
      }
    } catch (e) {
      this.state = 'failed';
      const failure = e instanceof AuthFailure ? e : new AuthFailure(String(e), undefined, false);
      if (failure.authentication) this.deps.failures.failed(this.context.clientAddress, failure.message);
      else this.log.debug(`Failed during ${this.text}: ${failure.message}`);
      if (!failure.authentication) getLogger('org.apache.kafka.common.network.Selector').warn(`Unexpected error from ${this.context.clientAddress}; closing connection: ${failure.message}`);
      // An authentication failure (Kafka's AuthenticationException) is answered and closed after
      // connection.failed.authentication.delay.ms, with or without a response; anything else closes now.
      if (failure.response !== undefined || failure.authentication) return { kind: 'send', chunks: failure.response ?? [], closeAfter: failure.message };
      return { kind: 'close', reason: failure.message };
    }
  }

  private handleKafkaRequest(frame: Buffer): DispatchOutcome {
    const r = new ByteReader(frame);
    let prefix: ReturnType<typeof readRequestHeaderPrefix>;
    try {
      prefix = readRequestHeaderPrefix(r);
    } catch {
      prefix = { apiKey: -1, apiVersion: 0, correlationId: 0 };
    }
    if (prefix.apiKey !== ApiKey.API_VERSIONS && prefix.apiKey !== ApiKey.SASL_HANDSHAKE) {
      if (this.state === 'initial') {
        throw new AuthFailure('Invalid request, potential reasons: kafka client configured with the wrong security protocol, it does not support KIP-43 or it is not a kafka client.', undefined, false);
      }
      throw new AuthFailure(`Unexpected Kafka request of type ${API_NAMES.get(prefix.apiKey) ?? String(prefix.apiKey)} during SASL handshake.`, undefined, false);
    }
    if (this.state === 'initial') this.state = 'handshake-or-versions';
    if (prefix.apiKey === ApiKey.API_VERSIONS) {
      if (this.state !== 'handshake-or-versions') throw new AuthFailure(`Unexpected ApiVersions request received during SASL authentication state ${this.state}`, undefined, false);
      const outcome = this.deps.dispatcher.handle(frame, this.context);
      if (outcome instanceof Promise) throw new AuthFailure('ApiVersions must be answered synchronously', undefined, false);
      // An ApiVersions the client must retry (unsupported version) leaves the state where it is.
      if (outcome.kind === 'send' && this.answeredWithoutError(outcome)) this.state = 'handshake';
      return outcome;
    }
    const api = SaslHandshakeApi as unknown as ApiDefinition;
    if (!api.isSupported(prefix.apiVersion)) throw new AuthFailure(`Version ${prefix.apiVersion} is not supported for apiKey SASL_HANDSHAKE`, undefined, false);
    readRequestHeaderRest(r, api.requestHeaderVersion(prefix.apiVersion));
    const request = SaslHandshakeApi.decodeRequest(prefix.apiVersion, r);
    if (prefix.apiVersion >= 1) this.framed = true;
    const mechanisms = [...this.deps.listener.enabledMechanisms];
    if (!mechanisms.includes(request.mechanism)) {
      this.log.debug(`SASL mechanism '${request.mechanism}' requested by client is not supported`);
      const response = encodeResponse(api, prefix.apiVersion, prefix.correlationId, { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM.code, mechanisms });
      throw new AuthFailure(`Unsupported SASL mechanism ${request.mechanism}`, response, true);
    }
    this.log.debug(`Using SASL mechanism '${request.mechanism}' provided by client`);
    const chunks = encodeResponse(api, prefix.apiVersion, prefix.correlationId, { errorCode: ErrorCode.NONE.code, mechanisms });
    if (this.previous !== undefined && this.previous.mechanism !== request.mechanism) {
      this.badMechanismMessage = `SASL mechanism '${request.mechanism}' requested by client is not supported for re-authentication of mechanism '${this.previous.mechanism}'`;
      this.state = 'reauth-bad-mechanism';
      return { kind: 'send', chunks };
    }
    this.mechanism = request.mechanism;
    this.server = this.deps.createServer(request.mechanism);
    this.state = 'authenticate';
    return { kind: 'send', chunks };
  }

  private answeredWithoutError(outcome: { chunks: Buffer[] }): boolean {
    // Response: size(4) correlationId(4) errorCode(2) for every ApiVersions version (header v0).
    const all = Buffer.concat(outcome.chunks);
    return all.length >= 10 && all.readInt16BE(8) === ErrorCode.NONE.code;
  }

  /** After a v0 handshake: the client's token is the whole frame, and so is our answer. */
  private handleRawToken(frame: Buffer): DispatchOutcome {
    const token = this.evaluate(frame, undefined);
    const size = Buffer.alloc(4);
    size.writeInt32BE(token.length);
    return { kind: 'send', chunks: [size, token] };
  }

  private handleAuthenticateRequest(frame: Buffer): DispatchOutcome {
    const r = new ByteReader(frame);
    const prefix = readRequestHeaderPrefix(r);
    const api = SaslAuthenticateApi as unknown as ApiDefinition;
    if (prefix.apiKey !== ApiKey.SASL_AUTHENTICATE) {
      const message = `Unexpected Kafka request of type ${API_NAMES.get(prefix.apiKey) ?? String(prefix.apiKey)} during SASL authentication.`;
      throw new AuthFailure(message, undefined, true);
    }
    if (!api.isSupported(prefix.apiVersion)) throw new AuthFailure(`Version ${prefix.apiVersion} is not supported for apiKey SASL_AUTHENTICATE`, undefined, false);
    readRequestHeaderRest(r, api.requestHeaderVersion(prefix.apiVersion));
    const request = SaslAuthenticateApi.decodeRequest(prefix.apiVersion, r);
    const failed = (message: string): Buffer[] =>
      encodeResponse(api, prefix.apiVersion, prefix.correlationId, { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED.code, errorMessage: message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 });
    const token = this.evaluate(request.authBytes, failed);
    const lifetime = this.complete ? this.sessionLifetimeMs : 0;
    return { kind: 'send', chunks: encodeResponse(api, prefix.apiVersion, prefix.correlationId, { errorCode: ErrorCode.NONE.code, errorMessage: null, authBytes: token, sessionLifetimeMs: lifetime }) };
  }

  private sessionLifetimeMs = 0;

  /** One token through the mechanism; on completion the principal, the session lifetime and the state are set. */
  private evaluate(token: Buffer, failedResponse: ((message: string) => Buffer[]) | undefined): Buffer {
    const server = this.server as SaslServer;
    let out: Buffer;
    try {
      out = server.evaluate(token);
    } catch (e) {
      if (e instanceof SaslAuthenticationError) throw new AuthFailure(e.message, failedResponse?.(e.message), true);
      // Never the mechanism's own text: it may say whether the user exists.
      this.log.debug(`${this.text} failed with SASL mechanism ${this.mechanism ?? ''}: ${(e as Error).message}`);
      const message = `Authentication failed during ${this.text} due to invalid credentials with SASL mechanism ${this.mechanism ?? ''}`;
      throw new AuthFailure(message, failedResponse?.(message), true);
    }
    if (server.complete) {
      const name = server.authorizationId();
      if (this.previous !== undefined && this.previous.principal !== name) {
        const message = `Cannot change principals during re-authentication from ${USER_TYPE}.${this.previous.principal}: ${USER_TYPE}.${name}`;
        throw new AuthFailure(message, failedResponse?.(message), true);
      }
      this.context.principal = { principalType: USER_TYPE, name, ...(server.tokenAuthenticated ? { tokenAuthenticated: true } : {}) };
      this.sessionLifetimeMs = this.computeSessionLifetime(server);
      this.previous = undefined;
      this.state = 'complete';
    }
    return out;
  }

  /** ReauthInfo.calcCompletionTimesAndReturnSessionLifetimeMs. */
  private computeSessionLifetime(server: SaslServer): number {
    const now = this.deps.clock.nowMs();
    const maxReauth = this.deps.listener.maxReauthMs.get(this.mechanism ?? '') ?? 0;
    const expiry = server.credentialExpiryMs;
    const maxSet = maxReauth > 0;
    let lifetime = 0;
    this.sessionExpiryMs = undefined;
    if (expiry !== undefined || maxSet) {
      if (expiry === undefined) lifetime = Math.max(0, maxReauth);
      else if (!maxSet) lifetime = Math.max(0, expiry - now);
      else lifetime = Math.max(0, Math.min(expiry - now, maxReauth));
      this.sessionExpiryMs = now + lifetime;
    }
    return lifetime;
  }
}
