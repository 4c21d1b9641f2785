import { createHmac, randomUUID } from 'node:crypto';
import { TokenInformationData } from '../zk/znodes/delegation-token-znodes';
import { KafkaPrincipal, parseKafkaPrincipal, principalEquals, principalToString } from './kafka-principal';

/** Kafka's DelegationTokenManager.DefaultHmacAlgorithm, HmacSHA512. */
export const DELEGATION_TOKEN_HMAC_ALGORITHM = 'sha512';

/** Kafka's TokenInformation: who owns a token, who may renew it, and its three timestamps (epoch ms). */
export interface TokenInformation {
  readonly tokenId: string;
  readonly owner: KafkaPrincipal;
  readonly renewers: readonly KafkaPrincipal[];
  readonly issueTimestamp: number;
  readonly maxTimestamp: number;
  expiryTimestamp: number;
}

/** A token with its HMAC, which is the token's password (Kafka's DelegationToken). */
export interface DelegationToken {
  readonly tokenInfo: TokenInformation;
  readonly hmac: Buffer;
}

/**
 * The HMAC-SHA512 of the token id's UTF-8 bytes keyed by the secret key's UTF-8 bytes (Kafka's createHmac). Every
 * broker computes the same HMAC from the shared `delegation.token.secret.key`, so it is never stored.
 */
export function createTokenHmac(tokenId: string, secretKey: string): Buffer {
  return createHmac(DELEGATION_TOKEN_HMAC_ALGORITHM, Buffer.from(secretKey, 'utf8')).update(tokenId, 'utf8').digest();
}

/** Kafka's CoreUtils.generateUuidAsBase64: a random UUID's 16 bytes, URL-safe base64 without padding (22 characters). */
export function generateTokenId(): string {
  return Buffer.from(randomUUID().replace(/-/g, ''), 'hex').toString('base64url');
}

/** TokenInformation.ownerOrRenewer. */
export function ownerOrRenewer(token: TokenInformation, principal: KafkaPrincipal): boolean {
  return principalEquals(token.owner, principal) || token.renewers.some((r) => principalEquals(r, principal));
}

export function tokenInfoToData(token: TokenInformation): TokenInformationData {
  return {
    tokenId: token.tokenId,
    owner: principalToString(token.owner),
    renewers: token.renewers.map(principalToString),
    issueTimestamp: token.issueTimestamp,
    maxTimestamp: token.maxTimestamp,
    expiryTimestamp: token.expiryTimestamp,
  };
}

/** Throws (SecurityUtils.parseKafkaPrincipal's message) when a stored principal is not `Type:name`. */
export function tokenInfoFromData(data: TokenInformationData): TokenInformation {
  return {
    tokenId: data.tokenId,
    owner: parseKafkaPrincipal(data.owner),
    renewers: data.renewers.map(parseKafkaPrincipal),
    issueTimestamp: data.issueTimestamp,
    maxTimestamp: data.maxTimestamp,
    expiryTimestamp: data.expiryTimestamp,
  };
}
