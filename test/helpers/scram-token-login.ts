import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { RawConnection, requestFrame } from './raw-connection';

/**
 * A SCRAM-SHA-256 login with a delegation token (KIP-48): Kafka's client-first message
 * `n,,n=<tokenId>,r=<nonce>,tokenauth=true` with the base64 HMAC as password, over SaslHandshake v1 and
 * SaslAuthenticate v1 frames, written by hand because none of the test clients (kafkajs, kafka-python,
 * librdkafka) sends SCRAM extensions. Resolves with the last error code (0 when authenticated).
 */
export async function authenticateWithToken(port: number, tokenId: string, hmac: Buffer): Promise<number> {
  const conn = await RawConnection.open(port);
  try {
    const str = (s: string): Buffer => {
      const b = Buffer.alloc(2);
      b.writeInt16BE(Buffer.byteLength(s), 0);
      return Buffer.concat([b, Buffer.from(s)]);
    };
    const bytes = (b: Buffer): Buffer => {
      const n = Buffer.alloc(4);
      n.writeInt32BE(b.length, 0);
      return Buffer.concat([n, b]);
    };
    // SaslAuthenticate v1 response: errorCode, errorMessage (nullable string), authBytes, sessionLifetimeMs.
    const authenticate = async (correlationId: number, payload: string): Promise<{ errorCode: number; authBytes: string }> => {
      conn.send(requestFrame(36, 1, correlationId, bytes(Buffer.from(payload))));
      const r = await conn.response(correlationId);
      if (r === undefined) throw new Error('no SaslAuthenticate response');
      const errorCode = r.readInt16BE(4);
      const msgLen = r.readInt16BE(6);
      const at = 8 + Math.max(msgLen, 0);
      const len = r.readInt32BE(at);
      return { errorCode, authBytes: r.subarray(at + 4, at + 4 + len).toString() };
    };
    conn.send(requestFrame(17, 1, 1, str('SCRAM-SHA-256')));
    const handshake = await conn.response(1);
    if (handshake === undefined || handshake.readInt16BE(4) !== 0) return handshake?.readInt16BE(4) ?? -1;
    const nonce = randomBytes(16).toString('base64');
    const clientFirstBare = `n=${tokenId},r=${nonce},tokenauth=true`;
    const first = await authenticate(2, `n,,${clientFirstBare}`);
    if (first.errorCode !== 0) return first.errorCode;
    const fields = new Map(first.authBytes.split(',').map((kv) => [kv.slice(0, 1), kv.slice(2)] as [string, string]));
    const salted = pbkdf2Sync(Buffer.from(hmac.toString('base64')), Buffer.from(fields.get('s') ?? '', 'base64'), Number(fields.get('i')), 32, 'sha256');
    const clientKey = createHmac('sha256', salted).update('Client Key').digest();
    const storedKey = createHash('sha256').update(clientKey).digest();
    const clientFinalNoProof = `c=biws,r=${fields.get('r') ?? ''}`;
    const authMessage = `${clientFirstBare},${first.authBytes},${clientFinalNoProof}`;
    const signature = createHmac('sha256', storedKey).update(authMessage).digest();
    const proof = Buffer.from(clientKey.map((x, i) => x ^ (signature[i] ?? 0))).toString('base64');
    return (await authenticate(3, `${clientFinalNoProof},p=${proof}`)).errorCode;
  } finally {
    conn.close();
  }
}
