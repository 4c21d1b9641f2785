import { getLogger } from '../common/logging/logging';
import { OAuthBearerIllegalTokenError, OAuthBearerToken, OAuthBearerUnsecuredJws, claimSecondsToMs } from './oauth-bearer-unsecured-jws';

/** The validator's options: the broker's OAuthBearerLoginModule JAAS options of the listener. */
export interface UnsecuredValidatorOptions {
  /** unsecuredValidatorPrincipalClaimName (default `sub`). */
  readonly principalClaimName: string;
  /** unsecuredValidatorScopeClaimName (default `scope`). */
  readonly scopeClaimName: string;
  /** unsecuredValidatorRequiredScope: space-delimited, none by default. */
  readonly requiredScope: readonly string[];
  /** unsecuredValidatorAllowableClockSkewMs (default 0). */
  readonly allowableClockSkewMs: number;
}

/** What a failed validation tells the client (RFC 7628's error JSON) and the log. */
export interface ValidationFailure {
  readonly status: 'invalid_token' | 'insufficient_scope';
  readonly scope: string | undefined;
  readonly reason: string;
}

export type ValidationResult = { ok: true; token: OAuthBearerToken } | { ok: false; failure: ValidationFailure };

/** Java's List/Set toString, which Kafka's messages and the error JSON's scope use. */
function javaList(items: Iterable<string>): string {
  return `[${[...items].join(', ')}]`;
}

/**
 * Reads the validator's options as Kafka's OAuthBearerUnsecuredValidatorCallbackHandler does; a bad clock skew is
 * a configuration error (thrown with Kafka's words), which the broker turns into a start-up failure.
 */
export function unsecuredValidatorOptions(options: ReadonlyMap<string, string>): UnsecuredValidatorOptions {
  const principal = options.get('unsecuredValidatorPrincipalClaimName')?.trim();
  const scope = options.get('unsecuredValidatorScopeClaimName')?.trim();
  const required = options.get('unsecuredValidatorRequiredScope');
  const skewText = options.get('unsecuredValidatorAllowableClockSkewMs');
  let skew = 0;
  if (skewText !== undefined && skewText.trim() !== '') {
    skew = Number(skewText.trim());
    if (!/^\d+$/.test(skewText.trim()) || skew > 2147483647) throw new Error(`Allowable clock skew option value must be a non-negative integer: ${skewText}`);
  }
  return {
    principalClaimName: principal === undefined || principal === '' ? 'sub' : principal,
    scopeClaimName: scope === undefined || scope === '' ? 'scope' : scope,
    requiredScope: required === undefined ? [] : required.split(' ').filter((s) => s !== ''),
    allowableClockSkewMs: skew,
  };
}

function check(token: OAuthBearerUnsecuredJws, options: UnsecuredValidatorOptions, nowMs: number): void {
  const skew = options.allowableClockSkewMs;
  const iat = token.numberClaim('iat');
  if (iat !== undefined && claimSecondsToMs(iat) > nowMs + skew) {
    throw new OAuthBearerIllegalTokenError(`The Issued At value (${iat} seconds) was after the indicated time (${nowMs} ms) plus allowable clock skew (${skew} ms)`);
  }
  const exp = token.numberClaim('exp') as number;
  if (nowMs - skew >= claimSecondsToMs(exp)) {
    throw new OAuthBearerIllegalTokenError(`The indicated time (${nowMs} ms) minus allowable clock skew (${skew} ms) was on or after the Expiration Time value (${exp} seconds)`);
  }
  if (token.startTimeMs !== undefined && token.startTimeMs > token.lifetimeMs) {
    throw new OAuthBearerIllegalTokenError(`The start time (${token.startTimeMs} ms) was after the lifetime (${token.lifetimeMs} ms)`);
  }
  for (const element of options.requiredScope) {
    if (!token.scope.has(element)) {
      const required = javaList(options.requiredScope);
      throw new OAuthBearerIllegalTokenError(`The provided scope (${javaList(token.scope)}) was missing a required scope (${element}).  All required scope elements: ${required}`, required);
    }
  }
}

/**
 * Kafka's OAuthBearerUnsecuredValidatorCallbackHandler (2.8's default for OAUTHBEARER on a broker): the token
 * must be an unsecured JWS with a string principal claim, an `exp` not yet reached and an `iat` not in the
 * future (both within the allowable clock skew), and every required scope element. No signature is checked:
 * Kafka documents it as unsuitable for production, and so does docs/security.md.
 */
export function validateUnsecuredToken(value: string, options: UnsecuredValidatorOptions, nowMs: number): ValidationResult {
  const log = getLogger('org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler');
  try {
    const token = new OAuthBearerUnsecuredJws(value, options.principalClaimName, options.scopeClaimName);
    check(token, options, nowMs);
    log.info(`Successfully validated token with principal ${token.principalName}: ${JSON.stringify(token.claims)}`);
    return { ok: true, token };
  } catch (e) {
    if (!(e instanceof OAuthBearerIllegalTokenError)) throw e;
    return { ok: false, failure: { status: e.failureScope !== undefined ? 'insufficient_scope' : 'invalid_token', scope: e.failureScope, reason: e.message } };
  }
}

/** RFC 7628 section 3.2.2's error JSON, exactly as Kafka's OAuthBearerSaslServer writes it. */
export function jsonErrorResponse(failure: ValidationFailure): string {
  let json = `{"status":"${failure.status}"`;
  if (failure.scope !== undefined) json += `, "scope":"${failure.scope}"`;
  return `${json}}`;
}
