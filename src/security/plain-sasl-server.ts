import { timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, SaslServer } from './sasl-server';

/** Checks a PLAIN user name and password (Kafka's PlainServerCallbackHandler). */
export type PlainPasswordVerifier = (username: string, password: string) => boolean;

/**
 * Kafka's PlainServerCallbackHandler: the password of `alice` is the `user_alice` option of the listener's
 * PlainLoginModule, compared in constant time.
 */
export function jaasPlainVerifier(options: ReadonlyMap<string, string>): PlainPasswordVerifier {
  return (username, password) => {
    const expected = options.get(`user_${username}`);
    if (expected === undefined) return false;
    const a = Buffer.from(expected, 'utf8');
    const b = Buffer.from(password, 'utf8');
    return a.length === b.length && timingSafeEqual(a, b);
  };
}

/** RFC 4616's message, `authzid NUL authcid NUL passwd`, split as Kafka's PlainSaslServer.extractTokens does. */
function extractTokens(text: string): string[] {
  const tokens: string[] = [];
  let start = 0;
  for (let i = 0; i < 4; i++) {
    const end = text.indexOf('\u0000', start);
    if (end < 0) {
      tokens.push(text.slice(start));
      break;
    }
    tokens.push(text.slice(start, end));
    start = end + 1;
  }
  if (tokens.length !== 3) throw new SaslAuthenticationError(`Invalid SASL/PLAIN response: expected 3 tokens, got ${tokens.length}`);
  return tokens;
}

/** Kafka's PlainSaslServer: one client message, every failure explained to the client. */
export class PlainSaslServer implements SaslServer {
  readonly mechanism = 'PLAIN';
  readonly tokenAuthenticated = false;
  readonly credentialExpiryMs = undefined;
  private done = false;
  private authzid = '';

  constructor(private readonly verify: PlainPasswordVerifier) {}

  get complete(): boolean {
    return this.done;
  }

  evaluate(token: Buffer): Buffer {
    const [authzidFromClient, username, password] = extractTokens(token.toString('utf8')) as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    let ok: boolean;
    try {
      ok = this.verify(username, password);
    } catch {
      throw new SaslAuthenticationError('Authentication failed: credentials for user could not be verified');
    }
    if (!ok) throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authzidFromClient !== '' && authzidFromClient !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    this.authzid = username;
    this.done = true;
    return Buffer.alloc(0);
  }

  authorizationId(): string {
    if (!this.done) throw new Error('Authentication exchange has not completed');
    return this.authzid;
  }
}
