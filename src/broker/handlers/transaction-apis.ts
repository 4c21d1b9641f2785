import { ErrorCode, ErrorName } from '../../common/error-codes';
import { GROUP_METADATA_TOPIC_NAME } from '../../common/topic';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/apis/add-offsets-to-txn';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/apis/add-partitions-to-txn';
import { EndTxnRequest, EndTxnResponse } from '../../protocol/apis/end-txn';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/apis/txn-offset-commit';
import { ApiHandler } from '../network/api-handler';
import { HandlerContext } from './handler-context';

/*
 * The producer's transaction APIs in front of the TransactionCoordinator (Kafka's KafkaApis handlers):
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, and TxnOffsetCommit in front of the group coordinator.
 */

/** KIP-588: versions before `fencedFrom` know PRODUCER_FENCED as INVALID_PRODUCER_EPOCH. */
export function fencingError(error: ErrorName, version: number, fencedFrom: number): number {
  return error === 'PRODUCER_FENCED' && version < fencedFrom ? ErrorCode.INVALID_PRODUCER_EPOCH.code : ErrorCode[error].code;
}

/**
 * AddPartitionsToTxn: a partition the broker does not know fails the whole request (UNKNOWN_TOPIC_OR_PARTITION
 * for it, OPERATION_NOT_ATTEMPTED for the others), as in Kafka; otherwise every partition gets the coordinator's
 * answer. v2+ may answer PRODUCER_FENCED.
 */
export function createAddPartitionsToTxnHandler(ctx: HandlerContext): ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const all = request.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    const unknown = all.filter((tp) => ctx.metadataCache.partitionState(tp) === undefined);
    let errorFor: (tp: { topic: string; partition: number }) => number;
    if (unknown.length > 0) {
      const missing = new Set(unknown.map((tp) => `${tp.topic}-${tp.partition}`));
      errorFor = (tp) => (missing.has(`${tp.topic}-${tp.partition}`) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code : ErrorCode.OPERATION_NOT_ATTEMPTED.code);
    } else {
      const error = await ctx.transactionCoordinator.handleAddPartitionsToTransaction(request.transactionalId, request.producerId, request.producerEpoch, all);
      const code = fencingError(error, version, 2);
      errorFor = () => code;
    }
    return {
      throttleTimeMs: 0,
      results: request.topics.map((t) => ({ name: t.name, results: t.partitions.map((p) => ({ partitionIndex: p, errorCode: errorFor({ topic: t.name, partition: p }) })) })),
    };
  };
}

/** AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction (where its markers go). */
export function createAddOffsetsToTxnHandler(ctx: HandlerContext): ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> {
  return async (request, context) => {
    const offsetsPartition = { topic: GROUP_METADATA_TOPIC_NAME, partition: ctx.groupCoordinator.partitionFor(request.groupId) };
    const error = await ctx.transactionCoordinator.handleAddPartitionsToTransaction(request.transactionalId, request.producerId, request.producerEpoch, [offsetsPartition]);
    return { throttleTimeMs: 0, errorCode: fencingError(error, context.header.apiVersion, 2) };
  };
}

export function createEndTxnHandler(ctx: HandlerContext): ApiHandler<EndTxnRequest, EndTxnResponse> {
  return async (request, context) => {
    const error = await ctx.transactionCoordinator.handleEndTransaction(request.transactionalId, request.producerId, request.producerEpoch, request.committed ? 'COMMIT' : 'ABORT');
    return { throttleTimeMs: 0, errorCode: fencingError(error, context.header.apiVersion, 2) };
  };
}

/**
 * TxnOffsetCommit: partitions of unknown topics get UNKNOWN_TOPIC_OR_PARTITION; the rest are held by the group
 * coordinator until the transaction's marker reaches the group's offsets partition.
 */
export function createTxnOffsetCommitHandler(ctx: HandlerContext): ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> {
  return (request) => {
    const known = request.topics.flatMap((t) =>
      t.partitions
        .filter((p) => ctx.metadataCache.partitionState({ topic: t.name, partition: p.partitionIndex }) !== undefined)
        .map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.committedMetadata })),
    );
    const errors = ctx.groupCoordinator.txnCommitOffsets(request.groupId, request.producerId, request.generationId, request.memberId, request.groupInstanceId, known);
    const byKey = new Map(known.map((o, i) => [`${o.topic}-${o.partition}`, errors[i]!]));
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: byKey.get(`${t.name}-${p.partitionIndex}`) ?? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code })),
      })),
    };
  };
}
