import { getLogger } from '../common/logging/logging';
import { parseClientInitialResponse } from './oauth-bearer-client-initial-response';
import { OAuthBearerToken } from './oauth-bearer-unsecured-jws';
import { UnsecuredValidatorOptions, jsonErrorResponse, validateUnsecuredToken } from './oauth-bearer-unsecured-validator';
import { SaslAuthenticationError, SaslServer } from './sasl-server';

/**
 * Kafka's OAuthBearerSaslServer (RFC 7628) with the unsecured validator. A valid token completes in one message;
 * an invalid one is answered with the error JSON as a challenge, the client acknowledges with a single Control-A,
 * and only then does authentication fail (SASL_AUTHENTICATION_FAILED carrying the JSON). The session ends with
 * the token (its `exp` is the credential expiry of KIP-368).
 */
export class OAuthBearerSaslServer implements SaslServer {
  readonly mechanism = 'OAUTHBEARER';
  readonly tokenAuthenticated = false;
  private token: OAuthBearerToken | undefined;
  private errorMessage: string | undefined;
  private readonly log = getLogger('org.apache.kafka.common.security.oauthbearer.internals.OAuthBearerSaslServer');

  constructor(
    private readonly options: UnsecuredValidatorOptions,
    private readonly nowMs: () => number = Date.now,
  ) {}

  get complete(): boolean {
    return this.token !== undefined;
  }

  get credentialExpiryMs(): number | undefined {
    return this.token?.lifetimeMs;
  }

  evaluate(response: Buffer): Buffer {
    if (this.complete) throw new SaslAuthenticationError('Authentication exchange has completed');
    if (response.length === 1 && response[0] === 0x01 && this.errorMessage !== undefined) {
      this.log.debug('Received %x01 response from client after it received our error');
      throw new SaslAuthenticationError(this.errorMessage);
    }
    this.errorMessage = undefined;
    const first = parseClientInitialResponse(response);
    const result = validateUnsecuredToken(first.tokenValue, this.options, this.nowMs());
    if (!result.ok) {
      this.errorMessage = jsonErrorResponse(result.failure);
      this.log.debug(`${this.errorMessage}: ${result.failure.reason}`);
      return Buffer.from(this.errorMessage, 'utf8');
    }
    const principal = result.token.principalName;
    if (first.authorizationId !== '' && first.authorizationId !== principal) {
      throw new SaslAuthenticationError(
        `Authentication failed: Client requested an authorization id (${first.authorizationId}) that is different from the token's principal name (${principal})`,
      );
    }
    // The unsecured validator accepts every extension (Kafka's default extensions callback).
    this.token = result.token;
    this.log.debug(`Successfully authenticate User=${principal}`);
    return Buffer.alloc(0);
  }

  authorizationId(): string {
    if (this.token === undefined) throw new Error('Authentication exchange has not completed');
    return this.token.principalName;
  }
}
