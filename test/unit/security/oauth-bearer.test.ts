import { OAuthBearerIllegalTokenError, OAuthBearerUnsecuredJws, base64UrlJson } from '../../../src/security/oauth-bearer-unsecured-jws';
import { jsonErrorResponse, unsecuredValidatorOptions, validateUnsecuredToken } from '../../../src/security/oauth-bearer-unsecured-validator';
import { formatClientInitialResponse, parseClientInitialResponse } from '../../../src/security/oauth-bearer-client-initial-response';
import { OAuthBearerSaslServer } from '../../../src/security/oauth-bearer-sasl-server';
import { unsecuredLogin } from '../../../src/security/oauth-bearer-unsecured-login';
import { SaslAuthenticationError, SaslCredentialError } from '../../../src/security/sasl-server';
import { resolveListenerSasl } from '../../../src/security/sasl-server-config';
import { createSaslServerFactory } from '../../../src/security/sasl-server-factory';
import { ScramCredentialCache } from '../../../src/security/scram-credential-cache';
import { DelayedCloseQueue } from '../../../src/broker/network/delayed-close-queue';
import { MockClock } from '../../helpers/mock-clock';
import { resolveBrokerSasl } from '../../../src/broker/broker-sasl';
import { KafkaConfig } from '../../../src/common/config/kafka-config';
import { ConfigException } from '../../../src/common/config/config-def';
import { clientSaslFrom } from '../../../src/tools/client-sasl-config';
import { CliError } from '../../../src/tools/cli';
import { authenticateSasl } from '../../../src/client/sasl-client-authenticator';

const NOW = 1_700_000_000_000;
const jwt = (claims: Record<string, unknown>, header: Record<string, unknown> = { alg: 'none' }): string => `${base64UrlJson(header)}.${base64UrlJson(claims)}.`;
const good = (extra: Record<string, unknown> = {}): string => jwt({ sub: 'alice', iat: NOW / 1000, exp: NOW / 1000 + 60, ...extra });
const defaults = unsecuredValidatorOptions(new Map());

describe('OAuthBearerUnsecuredJws', () => {
  it('reads the principal, lifetime, start time and scope (string or list)', () => {
    const t = new OAuthBearerUnsecuredJws(good({ scope: 'read  write' }));
    expect(t.principalName).toBe('alice');
    expect(t.lifetimeMs).toBe(NOW + 60_000);
    expect(t.startTimeMs).toBe(NOW);
    expect([...t.scope]).toEqual(['read', 'write']);
    expect([...new OAuthBearerUnsecuredJws(good({ scope: ['a', 'b'] })).scope]).toEqual(['a', 'b']);
    expect(new OAuthBearerUnsecuredJws(jwt({ user: 'bob', exp: 1 }), 'user').principalName).toBe('bob');
  });

  it.each([
    ['two parts', 'abc.def', 'Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values'],
    ['a signature', `${good()}c2ln`, 'Unsecured JWS must not contain a digital signature'],
    ['alg HS256', jwt({ sub: 'a', exp: 1 }, { alg: 'HS256' }), "Unsecured JWS must have 'none' for an algorithm"],
    ['no alg', jwt({ sub: 'a', exp: 1 }, {}), 'JWS header must have an Algorithm value'],
    ['no sub', jwt({ exp: 1 }), 'No principal name in JWT claim: sub'],
    ['a numeric sub', jwt({ sub: 5, exp: 1 }), 'No principal name in JWT claim: sub'],
    ['no exp', jwt({ sub: 'a' }), 'No expiration time in JWT'],
    ['a string exp', jwt({ sub: 'a', exp: 'soon' }), 'The value of the "exp" claim must be a Number: "soon"'],
    ['claims that are not JSON', `${base64UrlJson({ alg: 'none' })}.${Buffer.from('{nope').toString('base64url')}.`, 'Invalid unsecured JWS: the claims is not JSON'],
    ['claims that are an array', `${base64UrlJson({ alg: 'none' })}.${base64UrlJson([1])}.`, 'Invalid unsecured JWS: the claims is not a JSON object'],
    ['a header that is not Base64URL', 'a+b.e30.', 'Invalid unsecured JWS: the header is not Base64URL-encoded'],
  ])('refuses %s', (_what, token, message) => {
    expect(() => new OAuthBearerUnsecuredJws(token)).toThrow(OAuthBearerIllegalTokenError);
    expect(() => new OAuthBearerUnsecuredJws(token)).toThrow(message);
  });
});

describe('the unsecured validator', () => {
  it('accepts a current token', () => {
    const r = validateUnsecuredToken(good(), defaults, NOW);
    expect(r.ok && r.token.principalName).toBe('alice');
  });

  it('refuses an expired token as invalid_token, unless within the clock skew', () => {
    const expired = jwt({ sub: 'alice', exp: NOW / 1000 - 1 });
    const r = validateUnsecuredToken(expired, defaults, NOW);
    expect(r).toMatchObject({ ok: false, failure: { status: 'invalid_token', scope: undefined } });
    if (!r.ok) expect(r.failure.reason).toMatch(/was on or after the Expiration Time value/);
    expect(validateUnsecuredToken(expired, unsecuredValidatorOptions(new Map([['unsecuredValidatorAllowableClockSkewMs', '2000']])), NOW).ok).toBe(true);
    // exactly at exp is already expired
    expect(validateUnsecuredToken(jwt({ sub: 'a', exp: NOW / 1000 }), defaults, NOW).ok).toBe(false);
  });

  it('refuses a token issued in the future and one whose start is after its expiry', () => {
    expect(validateUnsecuredToken(good({ iat: NOW / 1000 + 10 }), defaults, NOW)).toMatchObject({ ok: false, failure: { status: 'invalid_token' } });
    expect(validateUnsecuredToken(jwt({ sub: 'a', nbf: NOW / 1000 + 100, exp: NOW / 1000 + 50 }), defaults, NOW)).toMatchObject({ ok: false });
  });

  it('a missing required scope is insufficient_scope with the required list', () => {
    const options = unsecuredValidatorOptions(new Map([['unsecuredValidatorRequiredScope', 'read write']]));
    const r = validateUnsecuredToken(good({ scope: 'read' }), options, NOW);
    expect(r).toMatchObject({ ok: false, failure: { status: 'insufficient_scope', scope: '[read, write]' } });
    if (!r.ok) expect(jsonErrorResponse(r.failure)).toBe('{"status":"insufficient_scope", "scope":"[read, write]"}');
    expect(validateUnsecuredToken(good({ scope: ['write', 'read', 'x'] }), options, NOW).ok).toBe(true);
  });

  it('a malformed token is invalid_token, and the JSON is Kafka\'s', () => {
    const r = validateUnsecuredToken('x.y', defaults, NOW);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(jsonErrorResponse(r.failure)).toBe('{"status":"invalid_token"}');
  });

  it('options: the principal claim name, and a bad clock skew refused', () => {
    const options = unsecuredValidatorOptions(new Map([['unsecuredValidatorPrincipalClaimName', 'user']]));
    expect(validateUnsecuredToken(good(), options, NOW).ok).toBe(false);
    expect(validateUnsecuredToken(jwt({ user: 'u', exp: NOW / 1000 + 5 }), options, NOW).ok).toBe(true);
    expect(() => unsecuredValidatorOptions(new Map([['unsecuredValidatorAllowableClockSkewMs', '-1']]))).toThrow('Allowable clock skew option value must be a non-negative integer: -1');
  });
});

describe('the client initial response', () => {
  it('round-trips a token with extensions', () => {
    const bytes = formatClientInitialResponse('a.b.', new Map([['traceId', '42']]));
    expect(bytes.toString()).toBe('n,,\u0001auth=Bearer a.b.\u0001traceId=42\u0001\u0001');
    expect(parseClientInitialResponse(bytes)).toEqual({ tokenValue: 'a.b.', authorizationId: '', extensions: new Map([['traceId', '42']]) });
  });

  it('reads an authorization id and a lower-case scheme', () => {
    expect(parseClientInitialResponse(Buffer.from('n,a=alice,\u0001auth=bearer t.u.\u0001\u0001'))).toMatchObject({ tokenValue: 't.u.', authorizationId: 'alice' });
  });

  it.each([
    ['no GS2 header', 'auth=Bearer x\u0001\u0001', 'Invalid OAUTHBEARER client first message'],
    ['no auth', 'n,,\u0001foo=bar\u0001\u0001', "'auth' not specified"],
    ['a bad auth', 'n,,\u0001auth=Bearer\u0001\u0001', "invalid 'auth' format"],
    ['another scheme', 'n,,\u0001auth=Basic abc\u0001\u0001', 'Invalid scheme in OAUTHBEARER client first message: Basic'],
    ['no final Control-A', 'n,,\u0001auth=Bearer x\u0001', 'Invalid OAUTHBEARER client first message'],
  ])('refuses %s (a SaslException: the client learns only that its credentials were invalid)', (_what, text, message) => {
    expect(() => parseClientInitialResponse(Buffer.from(text))).toThrow(SaslCredentialError);
    expect(() => parseClientInitialResponse(Buffer.from(text))).toThrow(message);
  });
});

describe('OAuthBearerSaslServer', () => {
  it('completes with the token principal, its exp the credential expiry', () => {
    const s = new OAuthBearerSaslServer(defaults, () => NOW);
    expect(s.evaluate(formatClientInitialResponse(good()))).toEqual(Buffer.alloc(0));
    expect(s.complete).toBe(true);
    expect(s.authorizationId()).toBe('alice');
    expect(s.credentialExpiryMs).toBe(NOW + 60_000);
  });

  it('answers a bad token with the error JSON, then fails with it on the client\'s Control-A', () => {
    const s = new OAuthBearerSaslServer(defaults, () => NOW);
    const challenge = s.evaluate(formatClientInitialResponse(jwt({ sub: 'alice', exp: NOW / 1000 - 5 })));
    expect(challenge.toString()).toBe('{"status":"invalid_token"}');
    expect(s.complete).toBe(false);
    expect(() => s.evaluate(Buffer.from([1]))).toThrow(new SaslAuthenticationError('{"status":"invalid_token"}'));
  });

  it('refuses an authorization id that is not the principal', () => {
    const s = new OAuthBearerSaslServer(defaults, () => NOW);
    const msg = Buffer.from(`n,a=bob,\u0001auth=Bearer ${good()}\u0001\u0001`);
    expect(() => s.evaluate(msg)).toThrow("Authentication failed: Client requested an authorization id (bob) that is different from the token's principal name (alice)");
  });

  it('comes from the listener factory with the JAAS validator options', () => {
    const listener = resolveListenerSasl(
      {
        originals: new Map([['listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config', 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredValidatorRequiredScope="produce";']]),
        enabledMechanisms: ['OAUTHBEARER'],
        connectionsMaxReauthMs: 0,
      },
      'SASL_PLAINTEXT',
      undefined,
    );
    const s = createSaslServerFactory(listener, new ScramCredentialCache(), () => NOW)('OAUTHBEARER');
    expect(s.evaluate(formatClientInitialResponse(good())).toString()).toBe('{"status":"insufficient_scope", "scope":"[produce]"}');
    const bad = { ...listener, jaas: new Map([['OAUTHBEARER', [{ loginModule: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule', flag: 'required', options: new Map([['unsecuredValidatorAllowableClockSkewMs', 'x']]) }]]]) };
    expect(() => createSaslServerFactory(bad as never, new ScramCredentialCache())).toThrow(/Allowable clock skew/);
  });
});

describe('the unsecured login', () => {
  it('makes a token the validator accepts, with string, number and list claims and extensions', () => {
    const login = unsecuredLogin(
      new Map([
        ['unsecuredLoginStringClaim_sub', 'broker'],
        ['unsecuredLoginNumberClaim_level', '3'],
        ['unsecuredLoginListClaim_scope', ',read,write'],
        ['unsecuredLoginLifetimeSeconds', '120'],
        ['unsecuredLoginExtension_traceId', 'x'],
      ]),
    );
    const t = login.token(NOW);
    expect(t.principalName).toBe('broker');
    expect(t.lifetimeMs).toBe(NOW + 120_000);
    expect(t.claims['level']).toBe(3);
    expect([...t.scope]).toEqual(['read', 'write']);
    expect(login.extensions).toEqual(new Map([['traceId', 'x']]));
    const required = unsecuredValidatorOptions(new Map([['unsecuredValidatorRequiredScope', 'write']]));
    expect(validateUnsecuredToken(t.value, required, NOW + 1000).ok).toBe(true);
    expect(validateUnsecuredToken(t.value, required, NOW + 121_000).ok).toBe(false);
  });

  it.each([
    [new Map<string, string>(), 'set unsecuredLoginStringClaim_sub'],
    [new Map([['unsecuredLoginStringClaim_sub', 'a'], ['unsecuredLoginNumberClaim_exp', '5']]), "Cannot explicitly set the 'exp' claim"],
    [new Map([['unsecuredLoginStringClaim_sub', 'a'], ['unsecuredLoginLifetimeSeconds', '0']]), 'Lifetime seconds option value must be a positive integer: 0'],
    [new Map([['unsecuredLoginStringClaim_sub', 'a'], ['unsecuredLoginFoo', '1']]), 'Unknown OAuthBearerLoginModule option: unsecuredLoginFoo'],
  ])('refuses bad options %#', (options, message) => {
    expect(() => unsecuredLogin(options)).toThrow(message);
  });
});

describe('DelayedCloseQueue (connection.failed.authentication.delay.ms)', () => {
  it('completes each entry after the delay, in order, with one timer', () => {
    const clock = new MockClock();
    const q = new DelayedCloseQueue(100, clock);
    const done: string[] = [];
    q.add({ complete: () => done.push('a') });
    clock.advance(40);
    q.add({ complete: () => done.push('b') });
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(59);
    expect(done).toEqual([]);
    clock.advance(1);
    expect(done).toEqual(['a']);
    clock.advance(40);
    expect(done).toEqual(['a', 'b']);
    expect(q.size).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps going past a failing entry; flush completes everything now', () => {
    const clock = new MockClock();
    const q = new DelayedCloseQueue(100, clock);
    const done: number[] = [];
    q.add({ complete: () => { throw new Error('gone'); } });
    for (let i = 0; i < 3000; i++) q.add({ complete: () => done.push(i) });
    clock.advance(100);
    expect(done.length).toBe(3000);
    q.add({ complete: () => done.push(-1) });
    q.flush();
    expect(done[3000]).toBe(-1);
    expect(q.size).toBe(0);
  });
});

describe('OAUTHBEARER configuration and the client side', () => {
  const MODULE = 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule';
  const brokerProps = (jaas: string): Map<string, string> =>
    new Map([
      ['broker.id', '0'],
      ['zookeeper.connect', 'zk:2181'],
      ['log.dirs', '/tmp/x'],
      ['listeners', 'SASL_PLAINTEXT://127.0.0.1:9093'],
      ['security.inter.broker.protocol', 'SASL_PLAINTEXT'],
      ['sasl.enabled.mechanisms', 'OAUTHBEARER'],
      ['sasl.mechanism.inter.broker.protocol', 'OAUTHBEARER'],
      ['listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config', jaas],
    ]);

  it('the broker logs in over its inter-broker listener with its unsecured token; no principal stops the start-up', () => {
    const sasl = resolveBrokerSasl(KafkaConfig.fromProperties(brokerProps(`${MODULE} required unsecuredLoginStringClaim_sub="broker";`)), {});
    expect(sasl.interBroker).toMatchObject({ mechanism: 'OAUTHBEARER', username: 'broker' });
    expect(sasl.interBroker?.oauthBearer?.token().principalName).toBe('broker');
    expect(() => resolveBrokerSasl(KafkaConfig.fromProperties(brokerProps(`${MODULE} required;`)), {})).toThrow(/cannot log the broker in: .*unsecuredLoginStringClaim_sub/);
    expect(() => resolveBrokerSasl(KafkaConfig.fromProperties(brokerProps(`${MODULE} required unsecuredLoginStringClaim_sub="b" unsecuredValidatorAllowableClockSkewMs="-5";`)), {})).toThrow(ConfigException);
  });

  it('a tool reads sasl.mechanism=OAUTHBEARER and the OAuthBearerLoginModule options', () => {
    const props = new Map([['security.protocol', 'SASL_PLAINTEXT'], ['sasl.mechanism', 'OAUTHBEARER'], ['sasl.jaas.config', `${MODULE} required unsecuredLoginStringClaim_sub="alice";`]]);
    expect(clientSaslFrom(props, 'client.properties')).toMatchObject({ mechanism: 'OAUTHBEARER', username: 'alice' });
    props.set('sasl.jaas.config', `${MODULE} required;`);
    expect(() => clientSaslFrom(props, 'client.properties')).toThrow(CliError);
  });

  it('the client answers the error JSON with Control-A and fails with SASL_AUTHENTICATION_FAILED', async () => {
    const server = new OAuthBearerSaslServer(defaults, () => NOW);
    const sent: Buffer[] = [];
    const transport = {
      send: async (api: { key: number }, body: unknown): Promise<never> => {
        if (api.key === 17) return { errorCode: 0, mechanisms: ['OAUTHBEARER'] } as never;
        const token = (body as { authBytes: Buffer }).authBytes;
        sent.push(token);
        try {
          return { errorCode: 0, errorMessage: null, authBytes: server.evaluate(token), sessionLifetimeMs: 0 } as never;
        } catch (e) {
          return { errorCode: 58, errorMessage: (e as Error).message, authBytes: Buffer.alloc(0), sessionLifetimeMs: 0 } as never;
        }
      },
    };
    const expired = { token: () => new OAuthBearerUnsecuredJws(jwt({ sub: 'alice', exp: NOW / 1000 - 1 })), extensions: new Map<string, string>() };
    await expect(authenticateSasl(transport as never, { mechanism: 'OAUTHBEARER', username: 'alice', password: '', oauthBearer: expired })).rejects.toMatchObject({
      errorName: 'SASL_AUTHENTICATION_FAILED',
      message: '{"status":"invalid_token"}',
    });
    expect(sent.map((b) => b.toString())).toEqual([expect.stringMatching(/^n,,\u0001auth=Bearer [^\u0001]+\u0001\u0001$/), '\u0001']);
  });
});
