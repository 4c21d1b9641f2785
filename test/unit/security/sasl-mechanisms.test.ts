import { PlainSaslServer, jaasPlainVerifier } from '../../../src/security/plain-sasl-server';
import { generateScramCredential, ScramCredentialLookup } from '../../../src/security/scram-credential';
import { ScramSaslClient } from '../../../src/security/scram-sasl-client';
import { ScramSaslServer } from '../../../src/security/scram-sasl-server';
import { SaslAuthenticationError, SaslCredentialError } from '../../../src/security/sasl-server';
import { ScramCredentialCache } from '../../../src/security/scram-credential-cache';
import { scramCredentialToString } from '../../../src/security/scram-credential';

// RFC 7677 section 3: user "user", password "pencil".
const CLIENT_NONCE = 'rOprNGfwEbeRWgbNEkqO';
const SERVER_NONCE = '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0';
const SALT = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
const CLIENT_FIRST = `n,,n=user,r=${CLIENT_NONCE}`;
const SERVER_FIRST = `r=${CLIENT_NONCE}${SERVER_NONCE},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`;
const CLIENT_FINAL = `c=biws,r=${CLIENT_NONCE}${SERVER_NONCE},p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=`;
const SERVER_FINAL = 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=';

function lookup(users: Record<string, string>): ScramCredentialLookup {
  const cache = new ScramCredentialCache();
  for (const [u, p] of Object.entries(users)) cache.updateUser(u, new Map([['SCRAM-SHA-256', scramCredentialToString(generateScramCredential('SCRAM-SHA-256', p, 4096, SALT))]]));
  return cache;
}

describe('SCRAM-SHA-256 server (RFC 7677 vector)', () => {
  it("answers the RFC's exchange with the RFC's messages", () => {
    const server = new ScramSaslServer('SCRAM-SHA-256', lookup({ user: 'pencil' }), () => SERVER_NONCE);
    expect(server.evaluate(Buffer.from(CLIENT_FIRST)).toString()).toBe(SERVER_FIRST);
    expect(server.complete).toBe(false);
    expect(server.evaluate(Buffer.from(CLIENT_FINAL)).toString()).toBe(SERVER_FINAL);
    expect(server.complete).toBe(true);
    expect(server.authorizationId()).toBe('user');
  });

  it('the client side produces the RFC messages and accepts its signature', () => {
    const client = new ScramSaslClient('SCRAM-SHA-256', 'user', 'pencil', false, CLIENT_NONCE);
    expect(client.first().toString()).toBe(CLIENT_FIRST);
    expect(client.respond(Buffer.from(SERVER_FIRST)).toString()).toBe(CLIENT_FINAL);
    expect(() => client.verify(Buffer.from(SERVER_FINAL))).not.toThrow();
    expect(() => client.verify(Buffer.from('v=AAAA'))).toThrow('Invalid server signature in server final message');
  });

  it('a wrong password, an unknown user and a stale nonce fail without saying which', () => {
    const wrong = new ScramSaslServer('SCRAM-SHA-256', lookup({ user: 'pencil' }), () => SERVER_NONCE);
    wrong.evaluate(Buffer.from(CLIENT_FIRST));
    const client = new ScramSaslClient('SCRAM-SHA-256', 'user', 'crayon', false, CLIENT_NONCE);
    client.first();
    expect(() => wrong.evaluate(client.respond(Buffer.from(SERVER_FIRST)))).toThrow(SaslCredentialError);
    expect(() => new ScramSaslServer('SCRAM-SHA-256', lookup({})).evaluate(Buffer.from(CLIENT_FIRST))).toThrow('Authentication failed: Invalid user credentials');
    const stale = new ScramSaslServer('SCRAM-SHA-256', lookup({ user: 'pencil' }), () => 'other');
    stale.evaluate(Buffer.from(CLIENT_FIRST));
    expect(() => stale.evaluate(Buffer.from(CLIENT_FINAL))).toThrow('Invalid client nonce in the final client message.');
  });

  it('refuses another authzid and malformed messages as Kafka does', () => {
    const s = new ScramSaslServer('SCRAM-SHA-256', lookup({ user: 'pencil' }));
    expect(() => s.evaluate(Buffer.from(`n,a=admin,n=user,r=${CLIENT_NONCE}`))).toThrow(SaslAuthenticationError);
    expect(() => new ScramSaslServer('SCRAM-SHA-256', lookup({})).evaluate(Buffer.from('garbage'))).toThrow('Invalid SCRAM client first message format: garbage');
  });

  it('tokenauth=true looks the token up and authenticates its owner', () => {
    const cred = generateScramCredential('SCRAM-SHA-512', 'hmac', 4096);
    const cache = new ScramCredentialCache();
    cache.setTokenLookup({ credential: (id, _m, token) => (token && id === 'tok1' ? cred : undefined), tokenOwner: (id) => (id === 'tok1' ? 'alice' : undefined) });
    const server = new ScramSaslServer('SCRAM-SHA-512', cache);
    const client = new ScramSaslClient('SCRAM-SHA-512', 'tok1', 'hmac', true);
    const first = client.first();
    expect(first.toString()).toMatch(/,tokenauth=true$/);
    client.verify(server.evaluate(client.respond(server.evaluate(first))));
    expect(server.authorizationId()).toBe('alice');
    expect(server.tokenAuthenticated).toBe(true);
    expect(() => new ScramSaslServer('SCRAM-SHA-512', cache).evaluate(Buffer.from('n,,n=tok2,r=abc,tokenauth=true'))).toThrow('Token Authentication failed: Invalid tokenId : tok2');
  });
});

describe('PLAIN server', () => {
  const verify = jaasPlainVerifier(new Map([['username', 'admin'], ['password', 'admin-secret'], ['user_admin', 'admin-secret'], ['user_alice', 'alice-secret']]));
  const token = (s: string): Buffer => Buffer.from(s.replace(/\|/g, '\u0000'));

  it('accepts user_<name> passwords, with an empty or equal authzid', () => {
    const s = new PlainSaslServer(verify);
    expect(s.evaluate(token('|alice|alice-secret')).length).toBe(0);
    expect(s.complete).toBe(true);
    expect(s.authorizationId()).toBe('alice');
    expect(new PlainSaslServer(verify).evaluate(token('alice|alice|alice-secret')).length).toBe(0);
  });

  it("refuses with Kafka's messages", () => {
    const e = (t: string): string => {
      try {
        new PlainSaslServer(verify).evaluate(token(t));
      } catch (err) {
        expect(err).toBeInstanceOf(SaslAuthenticationError);
        return (err as Error).message;
      }
      return 'accepted';
    };
    expect(e('|alice|wrong')).toBe('Authentication failed: Invalid username or password');
    expect(e('|mallory|x')).toBe('Authentication failed: Invalid username or password');
    expect(e('|username|admin')).toBe('Authentication failed: Invalid username or password');
    expect(e('||x')).toBe('Authentication failed: username not specified');
    expect(e('|alice|')).toBe('Authentication failed: password not specified');
    expect(e('admin|alice|alice-secret')).toBe('Authentication failed: Client requested an authorization id that is different from username');
    expect(e('alice')).toBe('Invalid SASL/PLAIN response: expected 3 tokens, got 1');
    expect(e('a|b|c|d')).toBe('Invalid SASL/PLAIN response: expected 3 tokens, got 4');
  });
});
