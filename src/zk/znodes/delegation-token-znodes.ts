import { desanitize, sanitize } from '../sanitizer';
import { decodeJsonObject, encodeJson, intField, Json, stringField, ZnodeFormatError } from './znode-json';

/**
 * What `/delegation_token/tokens/<tokenId>` holds (Kafka's TokenInformation): principals in their `User:alice`
 * form, timestamps in epoch milliseconds. The HMAC is never stored: every broker derives it from the token id and
 * the shared secret key.
 */
export interface TokenInformationData {
  readonly tokenId: string;
  readonly owner: string;
  readonly renewers: readonly string[];
  readonly issueTimestamp: number;
  readonly maxTimestamp: number;
  readonly expiryTimestamp: number;
}

/** Kafka 2.8's DelegationTokenManager.CurrentVersion (3.x writes 3, with `tokenRequester`). */
export const DELEGATION_TOKEN_ZNODE_VERSION = 1;

function longField(path: string, o: Json, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new ZnodeFormatError(path, `field "${key}" is not a long`);
  return v;
}

/**
 * Kafka's DelegationTokenInfoZNode with DelegationTokenManager.toJsonCompatibleMap / fromBytes:
 * `{"version":1,"owner":"User%3Aalice","renewers":["User%3Abob"],"issueTimestamp":...,"maxTimestamp":...,
 * "expiryTimestamp":...,"tokenId":"..."}`. Principals are sanitized (URL-encoded) as Kafka writes them, and
 * timestamps are JSON numbers. A version other than 1 is refused, as 2.8's `require` does.
 */
export const DelegationTokenInfoZNode = {
  encode(token: TokenInformationData): Buffer {
    return encodeJson({
      version: DELEGATION_TOKEN_ZNODE_VERSION,
      owner: sanitize(token.owner),
      renewers: token.renewers.map(sanitize),
      issueTimestamp: token.issueTimestamp,
      maxTimestamp: token.maxTimestamp,
      expiryTimestamp: token.expiryTimestamp,
      tokenId: token.tokenId,
    });
  },
  /** Undefined for an empty node (Kafka's `None`); throws ZnodeFormatError for anything not of this shape. */
  decode(path: string, data: Buffer | null): TokenInformationData | undefined {
    if (data === null || data.length === 0) return undefined;
    const o = decodeJsonObject(path, data);
    const version = intField(path, o, 'version');
    if (version !== DELEGATION_TOKEN_ZNODE_VERSION) throw new ZnodeFormatError(path, `unsupported delegation token version ${version}`);
    const renewers = o['renewers'];
    if (!Array.isArray(renewers) || !renewers.every((r): r is string => typeof r === 'string')) {
      throw new ZnodeFormatError(path, 'field "renewers" is not a list of strings');
    }
    return {
      tokenId: stringField(path, o, 'tokenId'),
      owner: desanitize(stringField(path, o, 'owner')),
      renewers: renewers.map(desanitize),
      issueTimestamp: longField(path, o, 'issueTimestamp'),
      maxTimestamp: longField(path, o, 'maxTimestamp'),
      expiryTimestamp: longField(path, o, 'expiryTimestamp'),
    };
  },
};

/** `/delegation_token/token_changes/token_change_<seq>`: the token id as UTF-8 bytes (DelegationTokenChangeNotificationSequenceZNode). */
export const DelegationTokenChangeNotificationZNode = {
  encode(tokenId: string): Buffer {
    return Buffer.from(tokenId, 'utf8');
  },
  decode(data: Buffer | null): string {
    return data === null ? '' : data.toString('utf8');
  },
};
