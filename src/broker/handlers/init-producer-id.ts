import { ErrorCode, ErrorName, errorNameOf } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { getLogger } from '../../common/logging/logging';
import { InitProducerIdRequest, InitProducerIdResponse } from '../../protocol/apis/init-producer-id';
import { ApiHandler } from '../network/api-handler';
import { authorize, authorizeByResourceType, authorizeCluster } from './auth-helper';
import { HandlerContext, InitProducerIdResult } from './handler-context';

const log = getLogger('kafka.server.KafkaApis');

/** RecordBatch.NO_PRODUCER_ID / NO_PRODUCER_EPOCH. */
const NO_PRODUCER_ID = -1;
const NO_PRODUCER_EPOCH = -1;

/**
 * InitProducerId (Kafka 2.8's KafkaApis.handleInitProducerIdRequest and TransactionCoordinator.handleInitProducerId):
 * an idempotent producer (null transactional id) always gets a fresh producer id with epoch 0 from the
 * ProducerIdManager; a transactional one is the transaction coordinator's to answer. A producer id without an
 * epoch (or the reverse) in v3+ is INVALID_REQUEST; PRODUCER_FENCED reaches v4+ clients only, older ones get
 * INVALID_PRODUCER_EPOCH, which they handle the same way.
 */
export function createInitProducerIdHandler(ctx: HandlerContext): ApiHandler<InitProducerIdRequest, InitProducerIdResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const producerId = request.producerId ?? NO_PRODUCER_ID;
    const producerEpoch = request.producerEpoch ?? NO_PRODUCER_EPOCH;
    // Kafka 2.8's checks come first: Write on the transactional id, or for an idempotent producer IdempotentWrite
    // on the cluster or (KIP-679) Write on at least one topic.
    const transactionalId = request.transactionalId;
    if (transactionalId !== null) {
      if (!authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', transactionalId)) return failed('TRANSACTIONAL_ID_AUTHORIZATION_FAILED');
    } else if (!authorizeCluster(ctx, context, 'IDEMPOTENT_WRITE', { logIfDenied: false }) && !authorizeByResourceType(ctx, context, 'WRITE', 'TOPIC')) {
      return failed('CLUSTER_AUTHORIZATION_FAILED');
    }
    if ((producerId === NO_PRODUCER_ID) !== (producerEpoch === NO_PRODUCER_EPOCH)) return failed('INVALID_REQUEST');
    const expected = producerId === NO_PRODUCER_ID ? undefined : { producerId, producerEpoch };
    let result: InitProducerIdResult;
    try {
      result = await initProducerId(ctx, request, expected);
    } catch (err) {
      if (!(err instanceof KafkaError)) log.error(`Error when handling InitProducerId for transactional id ${String(request.transactionalId)}`, err);
      return { throttleTimeMs: 0, errorCode: err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR.code, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
    }
    const error = version < 4 && result.error === 'PRODUCER_FENCED' ? 'INVALID_PRODUCER_EPOCH' : result.error;
    return { throttleTimeMs: 0, errorCode: ErrorCode[error].code, producerId: result.producerId, producerEpoch: result.producerEpoch };
  };
}

async function initProducerId(ctx: HandlerContext, request: InitProducerIdRequest, expected: { producerId: number; producerEpoch: number } | undefined): Promise<InitProducerIdResult> {
  const transactionalId = request.transactionalId;
  // "If the transactional id is null, then always blindly accept the request and return a new producerId."
  if (transactionalId === null) return { error: 'NONE', producerId: await ctx.producerIdManager.generateProducerId(), producerEpoch: 0 };
  if (transactionalId === '') return failedResult('INVALID_REQUEST');
  const r = await ctx.transactionCoordinator.handleInitProducerId(transactionalId, request.transactionTimeoutMs, expected);
  return { error: errorNameOf(r.errorCode) ?? 'UNKNOWN_SERVER_ERROR', producerId: r.producerId, producerEpoch: r.producerEpoch };
}

function failedResult(error: ErrorName): InitProducerIdResult {
  return { error, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}

function failed(error: ErrorName): InitProducerIdResponse {
  return { throttleTimeMs: 0, errorCode: ErrorCode[error].code, producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
}
