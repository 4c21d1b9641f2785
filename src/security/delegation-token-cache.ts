import { generateScramCredential, SCRAM_MECHANISMS, ScramCredential, ScramCredentialLookup, ScramMechanism } from './scram-credential';
import { DelegationToken, TokenInformation } from './delegation-token';

interface CachedToken {
  readonly info: TokenInformation;
  readonly hmacBase64: string;
  readonly credentials: ReadonlyMap<ScramMechanism, ScramCredential>;
}

/**
 * Kafka's DelegationTokenCache, one per broker: the tokens by id and by HMAC, and for each token a SCRAM
 * credential per mechanism whose password is the base64 HMAC, salted at random with the mechanism's least
 * iteration count (4096), as DelegationTokenManager.prepareScramCredentials builds them. A client authenticates
 * with SCRAM, the `tokenauth=true` extension, the token id as user name and the base64 HMAC as password.
 */
export class DelegationTokenCache {
  private readonly byId = new Map<string, CachedToken>();
  private readonly idByHmac = new Map<string, string>();

  /** updateCache: a new or renewed token; the credentials are generated again only when the HMAC changed. */
  updateCache(token: DelegationToken): void {
    const tokenId = token.tokenInfo.tokenId;
    const hmacBase64 = token.hmac.toString('base64');
    const previous = this.byId.get(tokenId);
    let credentials = previous?.credentials;
    if (previous === undefined || previous.hmacBase64 !== hmacBase64) {
      if (previous !== undefined) this.idByHmac.delete(previous.hmacBase64);
      const generated = new Map<ScramMechanism, ScramCredential>();
      for (const mechanism of Object.keys(SCRAM_MECHANISMS) as ScramMechanism[]) {
        generated.set(mechanism, generateScramCredential(mechanism, hmacBase64, SCRAM_MECHANISMS[mechanism].minIterations));
      }
      credentials = generated;
    }
    this.byId.set(tokenId, { info: { ...token.tokenInfo, renewers: [...token.tokenInfo.renewers] }, hmacBase64, credentials: credentials ?? new Map() });
    this.idByHmac.set(hmacBase64, tokenId);
  }

  removeCache(tokenId: string): void {
    const cached = this.byId.get(tokenId);
    if (cached === undefined) return;
    this.byId.delete(tokenId);
    this.idByHmac.delete(cached.hmacBase64);
  }

  /** A copy: callers change the expiry of their copy and write it back through the manager. */
  token(tokenId: string): TokenInformation | undefined {
    const info = this.byId.get(tokenId)?.info;
    return info === undefined ? undefined : { ...info };
  }

  tokenForHmac(hmacBase64: string): TokenInformation | undefined {
    const id = this.idByHmac.get(hmacBase64);
    return id === undefined ? undefined : this.token(id);
  }

  tokens(): TokenInformation[] {
    return [...this.byId.values()].map((c) => ({ ...c.info }));
  }

  /** The SCRAM credential of the token for `mechanism` (DelegationTokenCache.credential). */
  credential(tokenId: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.byId.get(tokenId)?.credentials.get(mechanism);
  }

  /**
   * The owner's principal name (DelegationTokenCache.owner returns `owner.getName`): the authenticated principal of
   * a token-authenticated connection is `User:<this name>` with tokenAuthenticated set.
   */
  tokenOwner(tokenId: string): string | undefined {
    return this.byId.get(tokenId)?.info.owner.name;
  }

  /** When the token stops being valid, for KIP-368's session lifetime (ScramServerCallbackHandler's tokenExpiryTimestamp). */
  tokenExpiryTimestamp(tokenId: string): number | undefined {
    return this.byId.get(tokenId)?.info.expiryTimestamp;
  }
}

/**
 * Joins a users' lookup (`/config/users/<user>`) and the token cache into the one ScramCredentialLookup the SCRAM
 * server asks (ScramServerCallbackHandler): `tokenauth=true` exchanges find the token's credential, the others the
 * user's.
 */
export function scramLookupWithTokens(users: ScramCredentialLookup, tokens: DelegationTokenCache): ScramCredentialLookup {
  return {
    credential: (username, mechanism, tokenAuth) => (tokenAuth ? tokens.credential(username, mechanism) : users.credential(username, mechanism, false)),
    tokenOwner: (tokenId) => tokens.tokenOwner(tokenId),
  };
}
