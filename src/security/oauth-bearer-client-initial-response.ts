import { SaslCredentialError } from './sasl-server';

/** RFC 7628's separator between key/value pairs (Control-A). */
export const CONTROL_A = '\u0001';

/** The client's first (and only) OAUTHBEARER message, Kafka's OAuthBearerClientInitialResponse. */
export interface OAuthBearerClientInitialResponse {
  readonly tokenValue: string;
  /** The GS2 header's `a=` authorization id; empty when absent. */
  readonly authorizationId: string;
  /** SASL extensions (KIP-342): every pair but `auth`. */
  readonly extensions: ReadonlyMap<string, string>;
}

const MESSAGE = /^n,(?:a=([^,]*))?,\u0001((?:[A-Za-z]+=[\x21-\x7E \t\r\n]+\u0001)*)\u0001$/;
const AUTH = /^([\w]+)[ ]+([-_.a-zA-Z0-9]+)$/;
const EXTENSION_KEY = /^[A-Za-z]+$/;

/**
 * Parses `n,[a=<authzid>],^Aauth=Bearer <token>^A[<key>=<value>^A]*^A`. A malformed message is a SaslException
 * in Kafka: the client is told only that its credentials were invalid.
 */
export function parseClientInitialResponse(bytes: Buffer): OAuthBearerClientInitialResponse {
  const m = MESSAGE.exec(bytes.toString('utf8'));
  if (m === null) throw new SaslCredentialError('Invalid OAUTHBEARER client first message');
  const pairs = new Map<string, string>();
  for (const kv of (m[2] ?? '').split(CONTROL_A)) {
    if (kv === '') continue;
    const eq = kv.indexOf('=');
    pairs.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  const auth = pairs.get('auth');
  if (auth === undefined) throw new SaslCredentialError("Invalid OAUTHBEARER client first message: 'auth' not specified");
  pairs.delete('auth');
  const a = AUTH.exec(auth);
  if (a === null) throw new SaslCredentialError("Invalid OAUTHBEARER client first message: invalid 'auth' format");
  if ((a[1] as string).toLowerCase() !== 'bearer') throw new SaslCredentialError(`Invalid scheme in OAUTHBEARER client first message: ${a[1] as string}`);
  return { tokenValue: a[2] as string, authorizationId: m[1] ?? '', extensions: pairs };
}

/** The message a client sends (Kafka's OAuthBearerSaslClient): no authorization id, the extensions in order. */
export function formatClientInitialResponse(tokenValue: string, extensions: ReadonlyMap<string, string> = new Map()): Buffer {
  let kv = `auth=Bearer ${tokenValue}${CONTROL_A}`;
  for (const [k, v] of extensions) {
    if (!EXTENSION_KEY.test(k) || k === 'auth') throw new Error(`Invalid SASL extension key: ${k}`);
    kv += `${k}=${v}${CONTROL_A}`;
  }
  return Buffer.from(`n,,${CONTROL_A}${kv}${CONTROL_A}`, 'utf8');
}
