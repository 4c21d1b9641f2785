import { timingSafeEqual } from 'node:crypto';
import { SCRAM_MECHANISMS, ScramCredential, ScramCredentialLookup, ScramMechanism, scramHash, scramHmac } from './scram-credential';
import { ClientFirstMessage, ServerFirstMessage, parseClientFinalMessage, parseClientFirstMessage, scramUsername, secureRandomString, serverFirstMessage } from './scram-messages';
import { SaslAuthenticationError, SaslCredentialError, SaslServer } from './sasl-server';

/** Kafka's ScramLoginModule.TOKEN_AUTH_CONFIG: the extension a delegation-token client sends. */
export const TOKEN_AUTH_EXTENSION = 'tokenauth';

type State = 'client-first' | 'client-final' | 'complete' | 'failed';

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] as number) ^ (b[i] ?? 0);
  return out;
}

/**
 * Kafka's ScramSaslServer (RFC 5802/7677, server side): client-first -> server-first (the client's nonce plus
 * ours, salt, iterations) -> client-final (proof checked against the stored key) -> server-final (signature).
 * Unknown users, wrong proofs and stale nonces are SaslCredentialErrors, so the client cannot tell them apart.
 */
export class ScramSaslServer implements SaslServer {
  private state: State = 'client-first';
  private first: ClientFirstMessage | undefined;
  private serverFirst: ServerFirstMessage | undefined;
  private credential: ScramCredential | undefined;
  private authzid = '';
  private token = false;
  private expiry: number | undefined;

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
    private readonly nonce: () => string = secureRandomString,
  ) {}

  get complete(): boolean {
    return this.state === 'complete';
  }

  get tokenAuthenticated(): boolean {
    return this.token;
  }

  get credentialExpiryMs(): number | undefined {
    return this.expiry;
  }

  evaluate(token: Buffer): Buffer {
    try {
      if (this.state === 'client-first') return this.onClientFirst(token);
      if (this.state === 'client-final') return this.onClientFinal(token);
      throw new SaslCredentialError(`Unexpected SASL request in state ${this.state}`);
    } catch (e) {
      this.state = 'failed';
      if (e instanceof SaslAuthenticationError || e instanceof SaslCredentialError) throw e;
      throw new SaslCredentialError((e as Error).message);
    }
  }

  private onClientFirst(token: Buffer): Buffer {
    const first = parseClientFirstMessage(token);
    this.first = first;
    const username = scramUsername(first.saslName);
    const tokenAuth = first.extensions.get(TOKEN_AUTH_EXTENSION)?.toLowerCase() === 'true';
    let credential: ScramCredential | undefined;
    if (tokenAuth) {
      const owner = this.lookup.tokenOwner?.(username);
      if (owner === undefined) throw new SaslCredentialError(`Token Authentication failed: Invalid tokenId : ${username}`);
      credential = this.lookup.credential(username, this.mechanism, true);
      this.authzid = owner;
      this.token = true;
      this.expiry = this.lookup.tokenExpiryMs?.(username);
    } else {
      credential = this.lookup.credential(username, this.mechanism, false);
      this.authzid = username;
    }
    if (credential === undefined) throw new SaslCredentialError('Authentication failed: Invalid user credentials');
    if (first.authorizationId !== '' && first.authorizationId !== username) {
      throw new SaslAuthenticationError('Authentication failed: Client requested an authorization id that is different from username');
    }
    const min = SCRAM_MECHANISMS[this.mechanism].minIterations;
    if (credential.iterations < min) throw new SaslCredentialError(`Iterations ${credential.iterations} is less than the minimum ${min} for ${this.mechanism}`);
    this.credential = credential;
    this.serverFirst = serverFirstMessage(first.nonce + this.nonce(), credential.salt, credential.iterations);
    this.state = 'client-final';
    return Buffer.from(this.serverFirst.text, 'utf8');
  }

  private onClientFinal(token: Buffer): Buffer {
    const final = parseClientFinalMessage(token);
    const first = this.first as ClientFirstMessage;
    const serverFirst = this.serverFirst as ServerFirstMessage;
    const credential = this.credential as ScramCredential;
    // endsWith, as Kafka's ScramSaslServer: librdkafka sends its own nonce again in front of the combined one.
    if (!final.nonce.endsWith(serverFirst.nonce)) throw new SaslCredentialError('Invalid client nonce in the final client message.');
    const authMessage = `${first.bare},${serverFirst.text},${final.withoutProof}`;
    const clientSignature = scramHmac(this.mechanism, credential.storedKey, authMessage);
    const computed = scramHash(this.mechanism, xor(clientSignature, final.proof));
    if (final.proof.length !== clientSignature.length || !timingSafeEqual(computed, credential.storedKey)) throw new SaslCredentialError('Invalid client credentials');
    const serverSignature = scramHmac(this.mechanism, credential.serverKey, authMessage);
    this.credential = undefined;
    this.state = 'complete';
    return Buffer.from(`v=${serverSignature.toString('base64')}`, 'utf8');
  }

  authorizationId(): string {
    if (this.state !== 'complete') throw new Error('Authentication exchange has not completed');
    return this.authzid;
  }
}
