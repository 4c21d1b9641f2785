/**
 * An unsecured JWS (RFC 7515 with `"alg":"none"` and an empty signature), read as Kafka's OAuthBearerUnsecuredJws:
 * the compact serialization `base64url(header).base64url(claims).`, its claims, and what an OAUTHBEARER token
 * needs of them (principal, lifetime, start time, scope). Nothing here trusts the token: the validator decides.
 */
export class OAuthBearerIllegalTokenError extends Error {
  override readonly name = 'OAuthBearerIllegalTokenException';
  constructor(
    message: string,
    /** The scope the token lacked (its failure is then `insufficient_scope`), Java's List.toString form. */
    readonly failureScope: string | undefined = undefined,
  ) {
    super(message);
  }
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Kafka's OAuthBearerToken: what the SASL server and KIP-368 use. */
export interface OAuthBearerToken {
  readonly value: string;
  readonly principalName: string;
  /** Expiry (`exp`) in epoch ms. */
  readonly lifetimeMs: number;
  /** `nbf`, else `iat`, in epoch ms, when present. */
  readonly startTimeMs: number | undefined;
  readonly scope: ReadonlySet<string>;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodePart(part: string, what: string): { [key: string]: JsonValue } {
  if (!BASE64URL.test(part)) throw new OAuthBearerIllegalTokenError(`Invalid unsecured JWS: the ${what} is not Base64URL-encoded`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch (e) {
    throw new OAuthBearerIllegalTokenError(`Invalid unsecured JWS: the ${what} is not JSON: ${(e as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new OAuthBearerIllegalTokenError(`Invalid unsecured JWS: the ${what} is not a JSON object`);
  return parsed as { [key: string]: JsonValue };
}

/** A NumericDate claim (seconds, possibly fractional) in ms, as Kafka rounds it. */
export function claimSecondsToMs(seconds: number): number {
  return Math.round(seconds * 1000);
}

export class OAuthBearerUnsecuredJws implements OAuthBearerToken {
  readonly header: Readonly<Record<string, JsonValue>>;
  readonly claims: Readonly<Record<string, JsonValue>>;
  readonly principalName: string;
  readonly lifetimeMs: number;
  readonly startTimeMs: number | undefined;
  readonly scope: ReadonlySet<string>;

  constructor(
    readonly value: string,
    readonly principalClaimName = 'sub',
    readonly scopeClaimName = 'scope',
  ) {
    const parts = value.split('.');
    if (parts.length !== 3) throw new OAuthBearerIllegalTokenError('Unsecured JWS compact serializations must have 3 dot-separated Base64URL-encoded values');
    if (parts[2] !== '') throw new OAuthBearerIllegalTokenError('Unsecured JWS must not contain a digital signature');
    this.header = decodePart(parts[0] as string, 'header');
    this.claims = decodePart(parts[1] as string, 'claims');
    const alg = this.header['alg'];
    if (alg === undefined) throw new OAuthBearerIllegalTokenError('JWS header must have an Algorithm value');
    if (alg !== 'none') throw new OAuthBearerIllegalTokenError("Unsecured JWS must have 'none' for an algorithm");
    const principal = this.claims[principalClaimName];
    if (typeof principal !== 'string' || principal.trim() === '') throw new OAuthBearerIllegalTokenError(`No principal name in JWT claim: ${principalClaimName}`);
    this.principalName = principal;
    const exp = this.numberClaim('exp');
    if (exp === undefined) throw new OAuthBearerIllegalTokenError('No expiration time in JWT');
    this.lifetimeMs = claimSecondsToMs(exp);
    const start = this.numberClaim('nbf') ?? this.numberClaim('iat');
    this.startTimeMs = start === undefined ? undefined : claimSecondsToMs(start);
    this.scope = this.readScope();
  }

  /** A numeric claim, undefined when absent; a claim of another type is an illegal token. */
  numberClaim(name: string): number | undefined {
    const v = this.claims[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number') throw new OAuthBearerIllegalTokenError(`The value of the "${name}" claim must be a Number: ${JSON.stringify(v)}`);
    return v;
  }

  /** Kafka accepts the scope claim as a space-delimited string or a list of strings; anything else is no scope. */
  private readScope(): Set<string> {
    const v = this.claims[this.scopeClaimName];
    if (typeof v === 'string') return new Set(v.split(' ').filter((s) => s !== ''));
    if (Array.isArray(v)) return new Set(v.filter((s): s is string => typeof s === 'string' && s.trim() !== '').map((s) => s.trim()));
    return new Set();
  }
}

/** Base64URL without padding, as JWS uses. */
export function base64UrlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
