import { JsonValue, OAuthBearerUnsecuredJws, base64UrlJson } from './oauth-bearer-unsecured-jws';

const OPTION = 'unsecuredLogin';

/** A client's unsecured token source: a fresh token per authentication, and its SASL extensions. */
export interface UnsecuredLogin {
  token(nowMs?: number): OAuthBearerUnsecuredJws;
  readonly extensions: ReadonlyMap<string, string>;
}

/**
 * Kafka's OAuthBearerUnsecuredLoginCallbackHandler, the default OAUTHBEARER login of 2.8: an unsigned token made
 * from the OAuthBearerLoginModule options `unsecuredLoginStringClaim_<name>`, `unsecuredLoginNumberClaim_<name>`,
 * `unsecuredLoginListClaim_<name>` (the first character separates the items), `unsecuredLoginExtension_<name>`,
 * `unsecuredLoginPrincipalClaimName` (sub), `unsecuredLoginScopeClaimName` (scope) and
 * `unsecuredLoginLifetimeSeconds` (3600); `iat` is now and `exp` now plus the lifetime. Bad options throw (at
 * start-up for the broker, as a one-line error for a tool).
 */
export function unsecuredLogin(options: ReadonlyMap<string, string>): UnsecuredLogin {
  const claims = new Map<string, JsonValue>();
  const extensions = new Map<string, string>();
  for (const [key, value] of options) {
    if (!key.startsWith(OPTION)) continue;
    const claim = /^unsecuredLogin(String|Number|List)Claim_(.+)$/.exec(key);
    if (claim !== null) {
      const name = claim[2] as string;
      if (name === 'exp' || name === 'iat') throw new Error(`Cannot explicitly set the '${name}' claim: ${key}`);
      if (claims.has(name)) throw new Error(`Claim name '${name}' is given more than once`);
      if (claim[1] === 'String') claims.set(name, value);
      else if (claim[1] === 'Number') {
        const n = Number(value);
        if (value.trim() === '' || !Number.isFinite(n)) throw new Error(`Number claim '${name}' is not a number: ${value}`);
        claims.set(name, n);
      } else {
        // The first character is the separator: `,a,b` is ["a","b"]; empty items are dropped.
        claims.set(name, value.length === 0 ? [] : value.slice(1).split(value.charAt(0)).filter((s) => s !== ''));
      }
      continue;
    }
    const ext = /^unsecuredLoginExtension_(.+)$/.exec(key);
    if (ext !== null) {
      const name = ext[1] as string;
      if (!/^[A-Za-z]+$/.test(name) || name === 'auth') throw new Error(`Invalid SASL extension name: ${name}`);
      extensions.set(name, value);
      continue;
    }
    if (!['unsecuredLoginPrincipalClaimName', 'unsecuredLoginScopeClaimName', 'unsecuredLoginLifetimeSeconds'].includes(key)) {
      throw new Error(`Unknown OAuthBearerLoginModule option: ${key}`);
    }
  }
  const principalClaim = options.get('unsecuredLoginPrincipalClaimName')?.trim() || 'sub';
  const scopeClaim = options.get('unsecuredLoginScopeClaimName')?.trim() || 'scope';
  const lifetimeText = options.get('unsecuredLoginLifetimeSeconds') ?? '3600';
  const lifetimeSeconds = Number(lifetimeText);
  if (!/^\d+$/.test(lifetimeText.trim()) || lifetimeSeconds <= 0) throw new Error(`Lifetime seconds option value must be a positive integer: ${lifetimeText}`);
  const principal = claims.get(principalClaim);
  if (typeof principal !== 'string' || principal.trim() === '') {
    throw new Error(`The OAuthBearerLoginModule needs a principal: set unsecuredLoginStringClaim_${principalClaim}`);
  }
  const token = (nowMs: number = Date.now()): OAuthBearerUnsecuredJws => {
    const body: Record<string, JsonValue> = { exp: nowMs / 1000 + lifetimeSeconds, iat: nowMs / 1000 };
    for (const [k, v] of claims) body[k] = v;
    return new OAuthBearerUnsecuredJws(`${base64UrlJson({ alg: 'none' })}.${base64UrlJson(body)}.`, principalClaim, scopeClaim);
  };
  token(); // fail now, not at the first connection
  return { token, extensions };
}
