import { ConfigException } from '../../../src/common/config/config-def';
import { PasswordEncoder } from '../../../src/common/config/password-encoder';

/** Fixed salt (256 x 0x01) and IV (0x02...): the randomness Kafka's encoder draws, pinned for a known vector. */
const fixed = (size: number): Buffer => Buffer.alloc(size, size === 256 ? 1 : 2);

describe('PasswordEncoder (Kafka 2.8 password.encoder.*)', () => {
  it('matches a vector computed independently with openssl (PBKDF2-HMAC-SHA512, 4096 iterations, AES-128-CBC)', () => {
    // openssl kdf -keylen 16 -kdfopt digest:SHA512 -kdfopt pass:encoder-secret -kdfopt hexsalt:0101.. -kdfopt iter:4096 PBKDF2
    // then openssl enc -aes-128-cbc -K <key> -iv 0202..: UfQpaBVmMwgCbSFFerm8NA==
    const encoded = new PasswordEncoder({ secret: 'encoder-secret', random: fixed }).encode('ks-password');
    expect(encoded).toBe(
      [
        'encryptedPassword:UfQpaBVmMwgCbSFFerm8NA==',
        'passwordLength:11',
        `salt:${Buffer.alloc(256, 1).toString('base64')}`,
        'keyLength:128',
        'iterations:4096',
        'cipherAlgorithm:AES/CBC/PKCS5Padding',
        'keyFactoryAlgorithm:PBKDF2WithHmacSHA512',
        `initializationVector:${Buffer.alloc(16, 2).toString('base64')}`,
      ].join(','),
    );
    expect(new PasswordEncoder({ secret: 'encoder-secret' }).decode(encoded)).toBe('ks-password');
  });

  it('round trips with random salts, other algorithms and non-ASCII text; decoding uses the stored parameters', () => {
    const a = new PasswordEncoder({ secret: 'sécret' });
    const one = a.encode('pässwörd-€');
    expect(one).not.toBe(a.encode('pässwörd-€'));
    expect(a.decode(one)).toBe('pässwörd-€');
    const gcm = new PasswordEncoder({ secret: 'sécret', cipherAlgorithm: 'AES/GCM/NoPadding', keyLength: 256, iterations: 1024, keyFactoryAlgorithm: 'PBKDF2WithHmacSHA1' });
    const two = gcm.encode('x'.repeat(100));
    expect(two).toContain('authenticationTagLength:128');
    // An encoder with other settings (but the same secret) decodes what was stored with these.
    expect(a.decode(two)).toBe('x'.repeat(100));
  });

  it("another secret, a damaged length or unknown algorithms fail with Kafka's messages", () => {
    const encoded = new PasswordEncoder({ secret: 'right' }).encode('password');
    expect(() => new PasswordEncoder({ secret: 'wrong' }).decode(encoded)).toThrow(new ConfigException('Password could not be decoded'));
    expect(() => new PasswordEncoder({ secret: 'right' }).decode(encoded.replace('passwordLength:8', 'passwordLength:9'))).toThrow('Password could not be decoded, sanity check of length failed');
    expect(() => new PasswordEncoder({ secret: 's', keyFactoryAlgorithm: 'PBKDF2WithHmacMD5' })).toThrow('PBKDF2WithHmacMD5 SecretKeyFactory not available');
    expect(() => new PasswordEncoder({ secret: 's', cipherAlgorithm: 'DES/CBC/PKCS5Padding' })).toThrow(ConfigException);
  });
});
