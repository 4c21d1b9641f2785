import { randomBytes } from 'node:crypto';

/*
 * The SCRAM messages of RFC 5802 as Kafka's ScramMessages reads and writes them. Kafka accepts only the `n` GS2
 * flag (no channel binding), an optional authzid, and `key=value` extensions after the nonce (`tokenauth=true`).
 */

const SASLNAME = '(?:[\\x01-\\x2B\\x2D-\\x3C\\x3E-\\x7F]|=2C|=3D)+';
const PRINTABLE = '[\\x21-\\x2B\\x2D-\\x7E]+';
const VALUE = '[\\x01-\\x2B\\x2D-\\x7F]+';
const BASE64 = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?';
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;

const CLIENT_FIRST = new RegExp(`^n,(?:a=(${SASLNAME}))?,(?:m=${VALUE},)?(n=(${SASLNAME}),r=(${PRINTABLE})(${EXTENSIONS}))$`);
const SERVER_FIRST = new RegExp(`^(?:m=${VALUE},)?r=(${PRINTABLE}),s=(${BASE64}),i=([0-9]+)(?:${EXTENSIONS})$`);
const CLIENT_FINAL = new RegExp(`^(c=(${BASE64}),r=(${PRINTABLE})(?:${EXTENSIONS}))(?:,p=(${BASE64}))$`);
const SERVER_FINAL = new RegExp(`^(?:e=(${VALUE})|v=(${BASE64}))(?:${EXTENSIONS})$`);

export interface ClientFirstMessage {
  readonly authorizationId: string;
  readonly saslName: string;
  readonly nonce: string;
  readonly extensions: ReadonlyMap<string, string>;
  /** `client-first-message-bare` (RFC 5802), as sent: part of the AuthMessage. */
  readonly bare: string;
}

function parseExtensions(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(',').filter((s) => s !== '')) {
    const eq = part.indexOf('=');
    out.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return out;
}

export function parseClientFirstMessage(bytes: Buffer): ClientFirstMessage {
  const text = bytes.toString('utf8');
  const m = CLIENT_FIRST.exec(text);
  if (m === null) throw new Error(`Invalid SCRAM client first message format: ${text}`);
  return { authorizationId: m[1] ?? '', bare: m[2] as string, saslName: m[3] as string, nonce: m[4] as string, extensions: parseExtensions(m[5] ?? '') };
}

export function clientFirstMessage(saslName: string, nonce: string, extensions: ReadonlyMap<string, string> = new Map()): { text: string; bare: string } {
  const ext = [...extensions].map(([k, v]) => `,${k}=${v}`).join('');
  const bare = `n=${saslName},r=${nonce}${ext}`;
  return { text: `n,,${bare}`, bare };
}

export interface ServerFirstMessage {
  readonly nonce: string;
  readonly salt: Buffer;
  readonly iterations: number;
  readonly text: string;
}

export function serverFirstMessage(nonce: string, salt: Buffer, iterations: number): ServerFirstMessage {
  return { nonce, salt, iterations, text: `r=${nonce},s=${salt.toString('base64')},i=${iterations}` };
}

export function parseServerFirstMessage(bytes: Buffer): ServerFirstMessage {
  const text = bytes.toString('utf8');
  const m = SERVER_FIRST.exec(text);
  if (m === null) throw new Error(`Invalid SCRAM server first message format: ${text}`);
  return { nonce: m[1] as string, salt: Buffer.from(m[2] as string, 'base64'), iterations: Number(m[3]), text };
}

export interface ClientFinalMessage {
  readonly channelBinding: string;
  readonly nonce: string;
  readonly proof: Buffer;
  /** `client-final-message-without-proof`: part of the AuthMessage. */
  readonly withoutProof: string;
}

export function parseClientFinalMessage(bytes: Buffer): ClientFinalMessage {
  const text = bytes.toString('utf8');
  const m = CLIENT_FINAL.exec(text);
  if (m === null) throw new Error(`Invalid SCRAM client final message format: ${text}`);
  return { withoutProof: m[1] as string, channelBinding: m[2] as string, nonce: m[3] as string, proof: Buffer.from(m[4] as string, 'base64') };
}

export function parseServerFinalMessage(bytes: Buffer): { error?: string; serverSignature?: Buffer } {
  const text = bytes.toString('utf8');
  const m = SERVER_FINAL.exec(text);
  if (m === null) throw new Error(`Invalid SCRAM server final message format: ${text}`);
  return m[1] !== undefined ? { error: m[1] } : { serverSignature: Buffer.from(m[2] as string, 'base64') };
}

/** Kafka's ScramFormatter.username: `=2C` and `=3D` decoded; any other `=` is refused. */
export function scramUsername(saslName: string): string {
  const username = saslName.replace(/=2C/g, ',').replace(/=3D/g, '=');
  if (username.includes('=')) throw new Error(`Invalid username: ${saslName}`);
  return username;
}

export function scramSaslName(username: string): string {
  return username.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

/** Kafka's ScramFormatter.secureRandomString: 130 random bits written in base 36. */
export function secureRandomString(): string {
  return BigInt(`0x${randomBytes(17).toString('hex')}`).toString(36);
}
