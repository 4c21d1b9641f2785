import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';

/** The SCRAM mechanisms Kafka offers (ScramMechanism): name, hash, and the least iteration count accepted. */
export const SCRAM_MECHANISMS = {
  'SCRAM-SHA-256': { hash: 'sha256', keyLength: 32, minIterations: 4096 },
  'SCRAM-SHA-512': { hash: 'sha512', keyLength: 64, minIterations: 4096 },
} as const;

export type ScramMechanism = keyof typeof SCRAM_MECHANISMS;

export function isScramMechanism(name: string): name is ScramMechanism {
  return Object.prototype.hasOwnProperty.call(SCRAM_MECHANISMS, name);
}

/** What the server keeps of a SCRAM password (RFC 5802): never the password itself. */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
  readonly iterations: number;
}

/** RFC 5802's Hi(): PBKDF2 with HMAC of the mechanism's hash. */
export function saltedPassword(mechanism: ScramMechanism, password: string, salt: Buffer, iterations: number): Buffer {
  const m = SCRAM_MECHANISMS[mechanism];
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, m.keyLength, m.hash);
}

export function scramHmac(mechanism: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(SCRAM_MECHANISMS[mechanism].hash, key).update(data).digest();
}

export function scramHash(mechanism: ScramMechanism, data: Buffer): Buffer {
  return createHash(SCRAM_MECHANISMS[mechanism].hash).update(data).digest();
}

/** Kafka's ScramFormatter.generateCredential: a random salt unless one is given. */
export function generateScramCredential(mechanism: ScramMechanism, password: string, iterations: number, salt: Buffer = randomBytes(32)): ScramCredential {
  const salted = saltedPassword(mechanism, password, salt, iterations);
  const clientKey = scramHmac(mechanism, salted, 'Client Key');
  return { salt, storedKey: scramHash(mechanism, clientKey), serverKey: scramHmac(mechanism, salted, 'Server Key'), iterations };
}

/** The form Kafka stores in `/config/users/<user>` under the mechanism's name (ScramCredentialUtils.credentialToString). */
export function scramCredentialToString(c: ScramCredential): string {
  return `salt=${c.salt.toString('base64')},stored_key=${c.storedKey.toString('base64')},server_key=${c.serverKey.toString('base64')},iterations=${c.iterations}`;
}

/** Parses the stored form; throws on anything else (ScramCredentialUtils.credentialFromString). */
export function scramCredentialFromString(text: string): ScramCredential {
  const fields = new Map<string, string>();
  for (const part of text.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`Invalid credential: ${part}`);
    fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const salt = fields.get('salt');
  const storedKey = fields.get('stored_key');
  const serverKey = fields.get('server_key');
  const iterations = Number(fields.get('iterations'));
  if (fields.size !== 4 || salt === undefined || storedKey === undefined || serverKey === undefined || !Number.isInteger(iterations) || iterations <= 0) {
    throw new Error('Credentials not valid');
  }
  return { salt: Buffer.from(salt, 'base64'), storedKey: Buffer.from(storedKey, 'base64'), serverKey: Buffer.from(serverKey, 'base64'), iterations };
}

/**
 * Where a SCRAM server finds a user's credential: `/config/users/<user>` for users, and the delegation-token
 * cache when the client sent the `tokenauth=true` extension (KIP-48), where the user name is the token id.
 */
export interface ScramCredentialLookup {
  credential(username: string, mechanism: ScramMechanism, tokenAuth: boolean): ScramCredential | undefined;
  /** For a token: the principal that owns it (the authenticated principal is the owner, not the token id). */
  tokenOwner?(tokenId: string): string | undefined;
  /** For a token: when it expires (epoch ms), which bounds the SASL session (KIP-368). */
  tokenExpiryMs?(tokenId: string): number | undefined;
}

/** ScramMechanism's type byte on the wire (DescribeUserScramCredentials, AlterUserScramCredentials); 0 is UNKNOWN. */
export const SCRAM_MECHANISM_TYPES: Readonly<Record<ScramMechanism, number>> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };

/** ScramMechanism.fromType: the mechanism of a type byte, undefined for UNKNOWN and anything else. */
export function scramMechanismOfType(type: number): ScramMechanism | undefined {
  return (Object.keys(SCRAM_MECHANISM_TYPES) as ScramMechanism[]).find((m) => SCRAM_MECHANISM_TYPES[m] === type);
}

/** ScramFormatter.generateCredential(salt, saltedPassword, iterations): the keys from an already salted password. */
export function scramCredentialFromSaltedPassword(mechanism: ScramMechanism, salt: Buffer, salted: Buffer, iterations: number): ScramCredential {
  const clientKey = scramHmac(mechanism, salted, 'Client Key');
  return { salt, storedKey: scramHash(mechanism, clientKey), serverKey: scramHmac(mechanism, salted, 'Server Key'), iterations };
}
