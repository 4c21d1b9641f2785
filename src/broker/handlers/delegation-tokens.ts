import { ErrorCode } from '../../common/error-codes';
import { CreateDelegationTokenRequest, CreateDelegationTokenResponse } from '../../protocol/apis/create-delegation-token';
import { DescribeDelegationTokenRequest, DescribeDelegationTokenResponse } from '../../protocol/apis/describe-delegation-token';
import { ExpireDelegationTokenRequest, ExpireDelegationTokenResponse } from '../../protocol/apis/expire-delegation-token';
import { RenewDelegationTokenRequest, RenewDelegationTokenResponse } from '../../protocol/apis/renew-delegation-token';
import { DelegationToken, ownerOrRenewer, TokenInformation } from '../../security/delegation-token';
import { ERROR_TIMESTAMP } from '../../security/delegation-token-manager';
import { ANONYMOUS, KafkaPrincipal, principalEquals, USER_TYPE } from '../../security/kafka-principal';
import { ConnectionContext, RequestContext } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/** Whether the requester may Describe the token (Kafka's authorize(DESCRIBE, DELEGATION_TOKEN, tokenId)). */
export type AuthorizeToken = (context: RequestContext, tokenId: string) => boolean;

/**
 * Kafka's KafkaApis.allowTokenRequests: never over PLAINTEXT, one-way TLS (an ANONYMOUS principal on SSL) or a
 * connection that itself authenticated with a token (a token cannot beget tokens).
 */
export function allowTokenRequests(connection: ConnectionContext): boolean {
  const protocol = connection.securityProtocol;
  if (connection.principal.tokenAuthenticated === true) return false;
  if (protocol === 'PLAINTEXT') return false;
  return !(protocol === 'SSL' && principalEquals(connection.principal, ANONYMOUS));
}

/** DelegationTokenManager.filterToken: the owners asked for, then the requester's own tokens, then Describe ACLs. */
export function filterToken(requester: KafkaPrincipal, owners: readonly KafkaPrincipal[] | null, token: TokenInformation, authorizeToken: (tokenId: string) => boolean): boolean {
  if (owners !== null && !owners.some((owner) => ownerOrRenewer(token, owner))) return false;
  if (ownerOrRenewer(token, requester)) return true;
  return authorizeToken(token.tokenId);
}

/** Always an answer (never NO_RESPONSE): typed so, and assignable to ApiHandler. */
export interface DelegationTokenHandlers {
  create(request: CreateDelegationTokenRequest, context: RequestContext): Promise<CreateDelegationTokenResponse>;
  renew(request: RenewDelegationTokenRequest, context: RequestContext): Promise<RenewDelegationTokenResponse>;
  expire(request: ExpireDelegationTokenRequest, context: RequestContext): Promise<ExpireDelegationTokenResponse>;
  describe(request: DescribeDelegationTokenRequest, context: RequestContext): DescribeDelegationTokenResponse;
}

/** With no authorizer Kafka's authorize answers true: every token is visible to every allowed requester. */
const ALLOW_ALL: AuthorizeToken = () => true;

/**
 * CreateDelegationToken, RenewDelegationToken, ExpireDelegationToken and DescribeDelegationToken (KafkaApis'
 * handleCreateTokenRequest and the three after it) over the broker's DelegationTokenManager. `authorizeToken` is
 * the authorizer's Describe check on DELEGATION_TOKEN resources, for tokens the requester neither owns nor renews.
 */
export function createDelegationTokenHandlers(ctx: HandlerContext, authorizeToken: AuthorizeToken = ALLOW_ALL): DelegationTokenHandlers {
  const manager = ctx.tokenManager;
  return {
    create: async (request, context) => {
      const owner = context.connection.principal;
      const answer = (errorCode: number): CreateDelegationTokenResponse => ({
        errorCode,
        principalType: owner.principalType,
        principalName: owner.name,
        issueTimestampMs: ERROR_TIMESTAMP,
        expiryTimestampMs: ERROR_TIMESTAMP,
        maxTimestampMs: ERROR_TIMESTAMP,
        tokenId: '',
        hmac: Buffer.alloc(0),
        throttleTimeMs: 0,
      });
      if (!allowTokenRequests(context.connection)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code);
      const renewers = request.renewers.map((r) => ({ principalType: r.principalType, name: r.principalName }));
      if (renewers.some((r) => r.principalType !== USER_TYPE)) return answer(ErrorCode.INVALID_PRINCIPAL_TYPE.code);
      const result = await manager.createToken(owner, renewers, request.maxLifetimeMs);
      if (result.errorCode !== ErrorCode.NONE.code) return answer(result.errorCode);
      return {
        ...answer(ErrorCode.NONE.code),
        issueTimestampMs: result.issueTimestamp,
        expiryTimestampMs: result.expiryTimestamp,
        maxTimestampMs: result.maxTimestamp,
        tokenId: result.tokenId,
        hmac: result.hmac,
      };
    },
    renew: async (request, context) => {
      if (!allowTokenRequests(context.connection)) return { errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code, expiryTimestampMs: ERROR_TIMESTAMP, throttleTimeMs: 0 };
      const result = await manager.renewToken(context.connection.principal, request.hmac, request.renewPeriodMs);
      return { errorCode: result.errorCode, expiryTimestampMs: result.expiryTimestamp, throttleTimeMs: 0 };
    },
    expire: async (request, context) => {
      if (!allowTokenRequests(context.connection)) return { errorCode: ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code, expiryTimestampMs: ERROR_TIMESTAMP, throttleTimeMs: 0 };
      const result = await manager.expireToken(context.connection.principal, request.hmac, request.expiryTimePeriodMs);
      return { errorCode: result.errorCode, expiryTimestampMs: result.expiryTimestamp, throttleTimeMs: 0 };
    },
    describe: (request, context) => {
      const answer = (errorCode: number, tokens: DelegationToken[] = []): DescribeDelegationTokenResponse => ({ errorCode, tokens: tokens.map(describedToken), throttleTimeMs: 0 });
      if (!allowTokenRequests(context.connection)) return answer(ErrorCode.DELEGATION_TOKEN_REQUEST_NOT_ALLOWED.code);
      if (!manager.tokenAuthEnabled) return answer(ErrorCode.DELEGATION_TOKEN_AUTH_DISABLED.code);
      if (request.owners !== null && request.owners.length === 0) return answer(ErrorCode.NONE.code);
      const owners = request.owners === null ? null : request.owners.map((o) => ({ principalType: o.principalType, name: o.principalName }));
      const requester = context.connection.principal;
      return answer(
        ErrorCode.NONE.code,
        manager.getTokens((token) => filterToken(requester, owners, token, (tokenId) => authorizeToken(context, tokenId))),
      );
    },
  };
}

function describedToken(token: DelegationToken): DescribeDelegationTokenResponse['tokens'][number] {
  const info = token.tokenInfo;
  return {
    principalType: info.owner.principalType,
    principalName: info.owner.name,
    issueTimestamp: info.issueTimestamp,
    expiryTimestamp: info.expiryTimestamp,
    maxTimestamp: info.maxTimestamp,
    tokenId: info.tokenId,
    hmac: token.hmac,
    renewers: info.renewers.map((r) => ({ principalType: r.principalType, principalName: r.name })),
  };
}
