import { ApiDefinition } from '../../../../src/protocol/api-definition';
import { SaslAuthenticateApi } from '../../../../src/protocol/apis/sasl-authenticate';
import { SaslHandshakeApi } from '../../../../src/protocol/apis/sasl-handshake';
import { MetadataApi } from '../../../../src/protocol/apis/metadata';
import { readResponseHeader, writeRequestHeader } from '../../../../src/protocol/headers';
import { ByteReader } from '../../../../src/protocol/primitives/byte-reader';
import { ByteWriter } from '../../../../src/protocol/primitives/byte-writer';
import { RequestDispatcher, DispatchOutcome } from '../../../../src/broker/request-dispatcher';
import { SaslServerAuthenticator } from '../../../../src/broker/network/sasl-server-authenticator';
import { AuthenticationFailureLog } from '../../../../src/broker/network/authentication-failure-log';
import { ConnectionContext } from '../../../../src/broker/network/api-handler';
import { ANONYMOUS } from '../../../../src/security/kafka-principal';
import { resolveListenerSasl } from '../../../../src/security/sasl-server-config';
import { createSaslServerFactory } from '../../../../src/security/sasl-server-factory';
import { ScramCredentialCache } from '../../../../src/security/scram-credential-cache';
import { MockClock } from '../../../helpers/mock-clock';

const JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret" user_bob="bob-secret";';

function setup(reauthMs = 0): { auth: SaslServerAuthenticator; context: ConnectionContext; clock: MockClock } {
  const listener = resolveListenerSasl(
    { originals: new Map([['listener.name.sasl_plaintext.plain.sasl.jaas.config', JAAS]]), enabledMechanisms: ['PLAIN'], connectionsMaxReauthMs: reauthMs },
    'SASL_PLAINTEXT',
    undefined,
  );
  const clock = new MockClock();
  const context: ConnectionContext = {
    connectionId: 'c-0',
    listenerName: 'SASL_PLAINTEXT',
    securityProtocol: 'SASL_PLAINTEXT',
    clientAddress: '/127.0.0.1',
    clientPort: 5000,
    clientSoftwareName: 'unknown',
    clientSoftwareVersion: 'unknown',
    principal: ANONYMOUS,
  };
  const auth = new SaslServerAuthenticator(
    { listener, createServer: createSaslServerFactory(listener, new ScramCredentialCache()), dispatcher: new RequestDispatcher({}), clock, failures: new AuthenticationFailureLog(clock) },
    context,
  );
  return { auth, context, clock };
}

function request<Req>(api: ApiDefinition<Req, unknown>, version: number, body: Req): Buffer {
  const w = new ByteWriter(256);
  writeRequestHeader(w, { apiKey: api.key, apiVersion: version, correlationId: 7, clientId: 'test' }, api.requestHeaderVersion(version));
  api.encodeRequest(version, w, body);
  return Buffer.concat(w.toChunks());
}

function response<Res>(api: ApiDefinition<unknown, Res>, version: number, outcome: DispatchOutcome): Res {
  if (outcome.kind !== 'send') throw new Error(`expected a response, got ${outcome.kind}`);
  const r = new ByteReader(Buffer.concat(outcome.chunks).subarray(4));
  readResponseHeader(r, api.responseHeaderVersion(version));
  return api.decodeResponse(version, r);
}

const plain = (user: string, password: string): Buffer => Buffer.from(`\u0000${user}\u0000${password}`);
const HS = SaslHandshakeApi as unknown as ApiDefinition<{ mechanism: string }, { errorCode: number; mechanisms: string[] }>;
const SA = SaslAuthenticateApi as unknown as ApiDefinition<{ authBytes: Buffer }, { errorCode: number; errorMessage: string | null; authBytes: Buffer; sessionLifetimeMs: number }>;

describe('SaslServerAuthenticator', () => {
  it('v1 handshake then SaslAuthenticate: the principal is set and the session has no lifetime by default', () => {
    const { auth, context } = setup();
    expect(response(HS, 1, auth.handle(request(HS, 1, { mechanism: 'PLAIN' })))).toEqual({ errorCode: 0, mechanisms: ['PLAIN'] });
    const r = response(SA, 1, auth.handle(request(SA, 1, { authBytes: plain('alice', 'alice-secret') })));
    expect(r.errorCode).toBe(0);
    expect(r.sessionLifetimeMs).toBe(0);
    expect(auth.complete).toBe(true);
    expect(context.principal).toEqual({ principalType: 'User', name: 'alice' });
    expect(auth.beginReauthentication()).toBe(false);
  });

  it('v0 handshake then a raw token, answered by a raw (empty) token', () => {
    const { auth } = setup();
    auth.handle(request(HS, 0, { mechanism: 'PLAIN' }));
    const out = auth.handle(plain('bob', 'bob-secret'));
    expect(out.kind === 'send' && Buffer.concat(out.chunks)).toEqual(Buffer.from([0, 0, 0, 0]));
    expect(auth.complete).toBe(true);
  });

  it('an unknown mechanism: UNSUPPORTED_SASL_MECHANISM with the enabled ones, then close', () => {
    const { auth } = setup();
    const out = auth.handle(request(HS, 1, { mechanism: 'GSSAPI' }));
    expect(response(HS, 1, out)).toEqual({ errorCode: 33, mechanisms: ['PLAIN'] });
    expect(out.kind === 'send' && out.closeAfter).toBe('Unsupported SASL mechanism GSSAPI');
  });

  it('a wrong password: SASL_AUTHENTICATION_FAILED with the message, then close', () => {
    const { auth } = setup();
    auth.handle(request(HS, 1, { mechanism: 'PLAIN' }));
    const out = auth.handle(request(SA, 1, { authBytes: plain('alice', 'nope') }));
    expect(response(SA, 1, out)).toMatchObject({ errorCode: 58, errorMessage: 'Authentication failed: Invalid username or password' });
    expect(out.kind === 'send' && out.closeAfter).toBeTruthy();
    expect(auth.complete).toBe(false);
  });

  it('other requests before authentication close the connection', () => {
    const first = setup().auth.handle(request(MetadataApi as unknown as ApiDefinition<unknown, unknown>, 1, { topics: null }));
    expect(first).toEqual({ kind: 'close', reason: expect.stringContaining('Invalid request, potential reasons') as string });
    const { auth } = setup();
    auth.handle(request(HS, 1, { mechanism: 'PLAIN' }));
    expect(auth.handle(request(MetadataApi as unknown as ApiDefinition<unknown, unknown>, 1, { topics: null }))).toMatchObject({ kind: 'send', chunks: [], closeAfter: 'Unexpected Kafka request of type METADATA during SASL authentication.' });
  });

  it('connections.max.reauth.ms: the lifetime is sent, re-authentication keeps the principal, expiry is detected', () => {
    const { auth, clock } = setup(60000);
    auth.handle(request(HS, 1, { mechanism: 'PLAIN' }));
    expect(response(SA, 1, auth.handle(request(SA, 1, { authBytes: plain('alice', 'alice-secret') }))).sessionLifetimeMs).toBe(60000);
    clock.advance(30000);
    expect(auth.beginReauthentication()).toBe(true);
    auth.handle(request(HS, 1, { mechanism: 'PLAIN' }));
    expect(response(SA, 1, auth.handle(request(SA, 1, { authBytes: plain('alice', 'alice-secret') }))).errorCode).toBe(0);
    clock.advance(59000);
    expect(auth.sessionExpired(clock.nowMs())).toBe(false);
    clock.advance(2000);
    expect(auth.sessionExpired(clock.nowMs())).toBe(true);
    // Another user on re-authentication is refused, as Kafka's ensurePrincipalUnchanged.
    expect(auth.beginReauthentication()).toBe(true);
    auth.handle(request(HS, 1, { mechanism: 'PLAIN' }));
    expect(response(SA, 1, auth.handle(request(SA, 1, { authBytes: plain('bob', 'bob-secret') }))).errorMessage).toBe('Cannot change principals during re-authentication from User.alice: User.bob');
  });
});
