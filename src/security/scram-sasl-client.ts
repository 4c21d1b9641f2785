import { timingSafeEqual } from 'node:crypto';
import { ScramMechanism, saltedPassword, scramHash, scramHmac } from './scram-credential';
import { clientFirstMessage, parseServerFinalMessage, parseServerFirstMessage, scramSaslName, secureRandomString } from './scram-messages';
import { TOKEN_AUTH_EXTENSION } from './scram-sasl-server';

/**
 * Kafka's ScramSaslClient: the broker's own client side (inter-broker SASL, the tools). `first()` gives the
 * client-first message, `respond()` answers the server-first one, `verify()` checks the server's signature.
 */
export class ScramSaslClient {
  private bare = '';
  private expectedServerSignature: Buffer | undefined;
  private readonly clientNonce: string;

  constructor(
    private readonly mechanism: ScramMechanism,
    private readonly username: string,
    private readonly password: string,
    private readonly tokenAuth = false,
    nonce: string = secureRandomString(),
  ) {
    this.clientNonce = nonce;
  }

  first(): Buffer {
    const ext = this.tokenAuth ? new Map([[TOKEN_AUTH_EXTENSION, 'true']]) : new Map<string, string>();
    const m = clientFirstMessage(scramSaslName(this.username), this.clientNonce, ext);
    this.bare = m.bare;
    return Buffer.from(m.text, 'utf8');
  }

  respond(serverFirstBytes: Buffer): Buffer {
    const sf = parseServerFirstMessage(serverFirstBytes);
    if (!sf.nonce.startsWith(this.clientNonce)) throw new Error('Invalid server nonce: does not start with client nonce');
    const salted = saltedPassword(this.mechanism, this.password, sf.salt, sf.iterations);
    const clientKey = scramHmac(this.mechanism, salted, 'Client Key');
    const storedKey = scramHash(this.mechanism, clientKey);
    const withoutProof = `c=biws,r=${sf.nonce}`;
    const authMessage = `${this.bare},${sf.text},${withoutProof}`;
    const clientSignature = scramHmac(this.mechanism, storedKey, authMessage);
    const proof = Buffer.alloc(clientKey.length);
    for (let i = 0; i < proof.length; i++) proof[i] = (clientKey[i] as number) ^ (clientSignature[i] as number);
    this.expectedServerSignature = scramHmac(this.mechanism, scramHmac(this.mechanism, salted, 'Server Key'), authMessage);
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8');
  }

  verify(serverFinalBytes: Buffer): void {
    const sf = parseServerFinalMessage(serverFinalBytes);
    if (sf.error !== undefined) throw new Error(`Sasl authentication using ${this.mechanism} failed with error: ${sf.error}`);
    const expected = this.expectedServerSignature;
    const got = sf.serverSignature as Buffer;
    if (expected === undefined || got.length !== expected.length || !timingSafeEqual(got, expected)) throw new Error('Invalid server signature in server final message');
  }
}
