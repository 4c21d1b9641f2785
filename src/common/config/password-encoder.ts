import { createCipheriv, createDecipheriv, pbkdf2Sync, randomBytes } from 'node:crypto';
import { ConfigException } from './config-def';

/** The password.encoder.* settings (KafkaConfig.PasswordEncoder*Prop). */
export interface PasswordEncoderSettings {
  readonly secret: string;
  /** password.encoder.keyfactory.algorithm: null means PBKDF2WithHmacSHA512, as Kafka's when the JVM has it. */
  readonly keyFactoryAlgorithm?: string | null;
  /** password.encoder.cipher.algorithm, default AES/CBC/PKCS5Padding. */
  readonly cipherAlgorithm?: string;
  /** password.encoder.key.length in bits, default 128. */
  readonly keyLength?: number;
  /** password.encoder.iterations, default 4096. */
  readonly iterations?: number;
  /** Where salts and IVs come from (tests fix them to check a known vector). */
  readonly random?: (size: number) => Buffer;
}

const DEFAULT_KEY_FACTORY = 'PBKDF2WithHmacSHA512';
const DEFAULT_CIPHER = 'AES/CBC/PKCS5Padding';
/** The HMACs of the JVM's PBKDF2 key factories. */
const KEY_FACTORY_DIGESTS: Readonly<Record<string, string>> = { PBKDF2WithHmacSHA512: 'sha512', PBKDF2WithHmacSHA256: 'sha256', PBKDF2WithHmacSHA1: 'sha1' };
/** Kafka's GcmParamsEncoder stores the tag length; the JVM's default for AES/GCM. */
const GCM_TAG_BITS = 128;

interface CipherMode {
  readonly node: string;
  readonly ivBytes: number;
  readonly gcm: boolean;
}

/** The JCE transformations this encoder speaks: AES in CBC (PKCS#5 padding) or GCM, of 128, 192 or 256 bits. */
function cipherMode(cipherAlgorithm: string, keyLength: number): CipherMode {
  const m = /^AES\/(CBC|GCM)\/(PKCS5Padding|NoPadding)$/.exec(cipherAlgorithm);
  if (m === null || (m[1] === 'CBC') !== (m[2] === 'PKCS5Padding')) throw new ConfigException(`Cipher algorithm ${cipherAlgorithm} is not supported (kafka-ts offers AES/CBC/PKCS5Padding and AES/GCM/NoPadding)`);
  if (![128, 192, 256].includes(keyLength)) throw new ConfigException(`Invalid AES key length: ${keyLength / 8} bytes`);
  const gcm = m[1] === 'GCM';
  return { node: `aes-${keyLength}-${gcm ? 'gcm' : 'cbc'}`, ivBytes: gcm ? 12 : 16, gcm };
}

function digestOf(keyFactoryAlgorithm: string): string {
  const digest = KEY_FACTORY_DIGESTS[keyFactoryAlgorithm];
  if (digest === undefined) throw new ConfigException(`${keyFactoryAlgorithm} SecretKeyFactory not available`);
  return digest;
}

/** CoreUtils.parseCsvMap: `k:v,k:v`, each value everything after the key's first colon. */
function parseCsvMap(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(',')) {
    const i = part.indexOf(':');
    if (i > 0) out.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  return out;
}

/**
 * Kafka's PasswordEncoder: dynamic password configs are stored in ZooKeeper encrypted with a key derived from
 * password.encoder.secret (PBKDF2 over a random 256-byte salt), as a CSV map of the encrypted bytes (base64)
 * and every parameter needed to decode them, so that a change of the encoder settings still decodes what was
 * stored before. Decoding uses the stored parameters, encoding this encoder's.
 */
export class PasswordEncoder {
  private readonly keyFactoryAlgorithm: string;
  private readonly cipherAlgorithm: string;
  private readonly keyLength: number;
  private readonly iterations: number;
  private readonly random: (size: number) => Buffer;

  constructor(private readonly settings: PasswordEncoderSettings) {
    this.keyFactoryAlgorithm = settings.keyFactoryAlgorithm ?? DEFAULT_KEY_FACTORY;
    this.cipherAlgorithm = settings.cipherAlgorithm ?? DEFAULT_CIPHER;
    this.keyLength = settings.keyLength ?? 128;
    this.iterations = settings.iterations ?? 4096;
    this.random = settings.random ?? randomBytes;
    // Bad settings are found when the broker (or the tool) starts, not at the first password.
    digestOf(this.keyFactoryAlgorithm);
    cipherMode(this.cipherAlgorithm, this.keyLength);
  }

  encode(password: string): string {
    const salt = this.random(256);
    const mode = cipherMode(this.cipherAlgorithm, this.keyLength);
    const iv = this.random(mode.ivBytes);
    const key = this.key(this.keyFactoryAlgorithm, this.keyLength, salt, this.iterations);
    const cipher = createCipheriv(mode.node, key, iv);
    const parts: Buffer[] = [cipher.update(password, 'utf8'), cipher.final()];
    // The JCE appends GCM's tag to the cipher text.
    if (mode.gcm) parts.push((cipher as unknown as { getAuthTag(): Buffer }).getAuthTag());
    const fields: [string, string][] = [
      ['encryptedPassword', Buffer.concat(parts).toString('base64')],
      // Java's String.length: UTF-16 code units, as a JavaScript string's.
      ['passwordLength', String(password.length)],
      ['salt', salt.toString('base64')],
      ['keyLength', String(this.keyLength)],
      ['iterations', String(this.iterations)],
      ['cipherAlgorithm', this.cipherAlgorithm],
      ['keyFactoryAlgorithm', this.keyFactoryAlgorithm],
      ['initializationVector', iv.toString('base64')],
    ];
    if (mode.gcm) fields.push(['authenticationTagLength', String(GCM_TAG_BITS)]);
    return fields.map(([k, v]) => `${k}:${v}`).join(',');
  }

  /** Throws ConfigException with Kafka's messages when the text does not decode (another secret, say). */
  decode(encoded: string): string {
    const params = parseCsvMap(encoded);
    const get = (name: string): string => {
      const v = params.get(name);
      if (v === undefined) throw new ConfigException(`Password could not be decoded: no ${name}`);
      return v;
    };
    const keyLength = Number(get('keyLength'));
    const mode = cipherMode(get('cipherAlgorithm'), keyLength);
    const key = this.key(get('keyFactoryAlgorithm'), keyLength, Buffer.from(get('salt'), 'base64'), Number(get('iterations')));
    const data = Buffer.from(get('encryptedPassword'), 'base64');
    let password: string;
    try {
      const decipher = createDecipheriv(mode.node, key, Buffer.from(get('initializationVector'), 'base64'));
      let body = data;
      if (mode.gcm) {
        const tagBytes = Number(params.get('authenticationTagLength') ?? GCM_TAG_BITS) / 8;
        body = data.subarray(0, data.length - tagBytes);
        (decipher as unknown as { setAuthTag(tag: Buffer): void }).setAuthTag(data.subarray(data.length - tagBytes));
      }
      password = Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch (e) {
      throw new ConfigException('Password could not be decoded', e);
    }
    if (password.length !== Number(get('passwordLength'))) throw new ConfigException('Password could not be decoded, sanity check of length failed');
    return password;
  }

  private key(keyFactoryAlgorithm: string, keyLength: number, salt: Buffer, iterations: number): Buffer {
    if (!Number.isInteger(iterations) || iterations < 1) throw new ConfigException('Password could not be decoded: bad iterations');
    // The JVM's PBKDF2 takes the secret's characters as UTF-8.
    return pbkdf2Sync(Buffer.from(this.settings.secret, 'utf8'), salt, iterations, keyLength / 8, digestOf(keyFactoryAlgorithm));
  }
}
