import { SCRAM_MECHANISMS, ScramCredential, ScramCredentialLookup, ScramMechanism, isScramMechanism, scramCredentialFromString } from './scram-credential';

/**
 * Kafka's CredentialCache for SCRAM: every broker keeps the users' credentials of `/config/users/<user>` in
 * memory (loaded at start-up, replaced on each `users/<user>` config change notification), so a SASL login never
 * waits on ZooKeeper. Delegation tokens are looked up through `tokens` when one is installed (KIP-48).
 */
export class ScramCredentialCache implements ScramCredentialLookup {
  private readonly users = new Map<string, Map<ScramMechanism, ScramCredential>>();
  private tokens: ScramCredentialLookup | undefined;

  /** The delegation-token cache, which answers `tokenauth=true` logins. */
  setTokenLookup(tokens: ScramCredentialLookup): void {
    this.tokens = tokens;
  }

  /**
   * A user's config as stored in ZooKeeper: its `SCRAM-SHA-*` keys replace whatever the cache held for the user
   * (a mechanism missing from the config is removed). Returns the mechanisms whose credential could not be read.
   */
  updateUser(username: string, config: ReadonlyMap<string, string>): string[] {
    const creds = new Map<ScramMechanism, ScramCredential>();
    const bad: string[] = [];
    for (const [key, value] of config) {
      if (!isScramMechanism(key)) continue;
      try {
        creds.set(key, scramCredentialFromString(value));
      } catch {
        bad.push(key);
      }
    }
    if (creds.size === 0) this.users.delete(username);
    else this.users.set(username, creds);
    return bad;
  }

  mechanisms(): ScramMechanism[] {
    return Object.keys(SCRAM_MECHANISMS) as ScramMechanism[];
  }

  credential(username: string, mechanism: ScramMechanism, tokenAuth: boolean): ScramCredential | undefined {
    if (tokenAuth) return this.tokens?.credential(username, mechanism, true);
    return this.users.get(username)?.get(mechanism);
  }

  tokenOwner(tokenId: string): string | undefined {
    return this.tokens?.tokenOwner?.(tokenId);
  }

  tokenExpiryMs(tokenId: string): number | undefined {
    return this.tokens?.tokenExpiryMs?.(tokenId);
  }
}
