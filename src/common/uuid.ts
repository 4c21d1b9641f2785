import { randomBytes } from 'node:crypto';

/**
 * Kafka's Uuid (KIP-516 topic ids): 16 bytes, written as URL-safe Base64 without padding (22 characters), as
 * `Uuid.toString` does. On the wire a Uuid is the 16 raw bytes (most significant long first).
 */
export const UUID_BYTES = 16;

/** Uuid.ZERO_UUID: "no id" on the wire and in responses. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** Uuid.METADATA_TOPIC_ID (new Uuid(0, 1)): reserved for KRaft's metadata topic, never given to a topic. */
export const METADATA_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** 16 bytes as Kafka prints a Uuid. */
export function uuidToString(bytes: Buffer): string {
  return bytes.toString('base64url');
}

/**
 * Uuid.fromString: the Base64 text back to 16 bytes; throws (as Kafka's IllegalArgumentException) when the text
 * is not 16 bytes of URL-safe Base64.
 */
export function uuidFromString(text: string): Buffer {
  if (!/^[A-Za-z0-9_-]{22}$/.test(text)) {
    throw new Error(`Input string \`${text}\` decoded as ${Buffer.from(text, 'base64url').length} bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID`);
  }
  const bytes = Buffer.from(text, 'base64url');
  // Two trailing bits of the 22nd character fall outside the 16 bytes: a text that is not a canonical encoding is
  // refused, so that one id has one text.
  if (bytes.length !== UUID_BYTES || uuidToString(bytes) !== text) throw new Error(`Input string \`${text}\` is not a base64-encoded UUID`);
  return bytes;
}

/** Whether `text` is a Uuid's canonical text. */
export function isUuidString(text: string): boolean {
  try {
    uuidFromString(text);
    return true;
  } catch {
    return false;
  }
}

/** The 16 bytes of a version-4 random UUID, as java.util.UUID.randomUUID makes them. */
function unsafeRandomUuid(): Buffer {
  const b = randomBytes(UUID_BYTES);
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  return b;
}

/**
 * Uuid.randomUuid: a random id that is never the zero Uuid nor METADATA_TOPIC_ID (impossible for a version-4
 * UUID, but Kafka's rule is kept whatever the source of the bytes), nor one whose text starts with "-" (which
 * a command line would take for an option).
 */
export function randomUuid(random: () => Buffer = unsafeRandomUuid): string {
  for (;;) {
    const id = uuidToString(random());
    if (id !== ZERO_UUID && id !== METADATA_TOPIC_ID && !id.startsWith('-')) return id;
  }
}

/** A topic id from the wire: undefined for the zero Uuid (no id). */
export function topicIdOf(bytes: Buffer): string | undefined {
  const id = uuidToString(bytes);
  return id === ZERO_UUID ? undefined : id;
}

/** A topic id for the wire: the zero Uuid when there is none. */
export function topicIdBytes(id: string | undefined | null): Buffer {
  return id === undefined || id === null ? Buffer.alloc(UUID_BYTES) : uuidFromString(id);
}
