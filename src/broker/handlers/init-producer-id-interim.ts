import { ErrorCode } from '../../common/error-codes';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/apis/init-producer-id';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/**
 * A stand-in InitProducerId handler until the idempotent producer's own (init-producer-id.ts) is merged: every
 * request goes to the transaction coordinator, which gives a null transactional id a fresh producer id and runs
 * the transactional ones through its state machine. Before v4 PRODUCER_FENCED is INVALID_PRODUCER_EPOCH (KIP-588).
 */
export function createInterimInitProducerIdHandler(ctx: HandlerContext): ApiHandler<InitProducerIdRequest, InitProducerIdResponse> {
  return async (request, context) => {
    const r = await ctx.transactionCoordinator.handleInitProducerId(request.transactionalId, request.transactionTimeoutMs);
    const errorCode = r.errorCode === ErrorCode.PRODUCER_FENCED.code && context.header.apiVersion < 4 ? ErrorCode.INVALID_PRODUCER_EPOCH.code : r.errorCode;
    return { throttleTimeMs: 0, errorCode, producerId: r.producerId, producerEpoch: r.producerEpoch };
  };
}
