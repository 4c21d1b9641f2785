import { ErrorCode, ErrorName } from '../../common/error-codes';
import { GROUP_METADATA_TOPIC_NAME, isInternalTopic } from '../../common/topic';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '../../protocol/apis/add-offsets-to-txn';
import { AddPartitionsToTxnRequest, AddPartitionsToTxnResponse } from '../../protocol/apis/add-partitions-to-txn';
import { EndTxnRequest, EndTxnResponse } from '../../protocol/apis/end-txn';
import { TxnOffsetCommitRequest, TxnOffsetCommitResponse } from '../../protocol/apis/txn-offset-commit';
import { ApiHandler } from '../network/api-handler';
import { authorize, filterByAuthorized } from './auth-helper';
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
 * AddPartitionsToTxn (Kafka 2.8's handleAddPartitionToTxnRequest): without Write on the transactional id every
 * partition gets TRANSACTIONAL_ID_AUTHORIZATION_FAILED. Then any partition of a topic not writable (internal
 * topics never are: they join a transaction only through AddOffsetsToTxn) or not known fails the whole request
 * (TOPIC_AUTHORIZATION_FAILED / UNKNOWN_TOPIC_OR_PARTITION for it, OPERATION_NOT_ATTEMPTED for the others);
 * otherwise every partition gets the coordinator's answer. v2+ may answer PRODUCER_FENCED.
 */
export function createAddPartitionsToTxnHandler(ctx: HandlerContext): ApiHandler<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse> {
  return async (request, context) => {
    const version = context.header.apiVersion;
    const all = request.topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.name, partition })));
    let errorFor: (tp: { topic: string; partition: number }) => number;
    if (!authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId)) {
      errorFor = () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code;
    } else {
      const authorized = filterByAuthorized(ctx, context, 'WRITE', 'TOPIC', all.filter((tp) => !isInternalTopic(tp.topic)).map((tp) => tp.topic));
      const failures = new Map<string, number>();
      for (const tp of all) {
        if (!authorized.has(tp.topic)) failures.set(`${tp.topic}-${tp.partition}`, ErrorCode.TOPIC_AUTHORIZATION_FAILED.code);
        else if (ctx.metadataCache.partitionState(tp) === undefined) failures.set(`${tp.topic}-${tp.partition}`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code);
      }
      if (failures.size > 0) {
        errorFor = (tp) => failures.get(`${tp.topic}-${tp.partition}`) ?? ErrorCode.OPERATION_NOT_ATTEMPTED.code;
      } else {
        const error = await ctx.transactionCoordinator.handleAddPartitionsToTransaction(request.transactionalId, request.producerId, request.producerEpoch, all);
        const code = fencingError(error, version, 2);
        errorFor = () => code;
      }
    }
    return {
      throttleTimeMs: 0,
      results: request.topics.map((t) => ({ name: t.name, results: t.partitions.map((p) => ({ partitionIndex: p, errorCode: errorFor({ topic: t.name, partition: p }) })) })),
    };
  };
}

/**
 * AddOffsetsToTxn: the group's `__consumer_offsets` partition joins the transaction (where its markers go).
 * Kafka checks Write on the transactional id, then Read on the group.
 */
export function createAddOffsetsToTxnHandler(ctx: HandlerContext): ApiHandler<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse> {
  return async (request, context) => {
    if (!authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code };
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED.code };
    const offsetsPartition = { topic: GROUP_METADATA_TOPIC_NAME, partition: ctx.groupCoordinator.partitionFor(request.groupId) };
    const error = await ctx.transactionCoordinator.handleAddPartitionsToTransaction(request.transactionalId, request.producerId, request.producerEpoch, [offsetsPartition]);
    return { throttleTimeMs: 0, errorCode: fencingError(error, context.header.apiVersion, 2) };
  };
}

/** EndTxn: Write on the transactional id, then the coordinator's commit or abort. */
export function createEndTxnHandler(ctx: HandlerContext): ApiHandler<EndTxnRequest, EndTxnResponse> {
  return async (request, context) => {
    if (!authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code };
    const error = await ctx.transactionCoordinator.handleEndTransaction(request.transactionalId, request.producerId, request.producerEpoch, request.committed ? 'COMMIT' : 'ABORT');
    return { throttleTimeMs: 0, errorCode: fencingError(error, context.header.apiVersion, 2) };
  };
}

/**
 * TxnOffsetCommit (Kafka 2.8's handleTxnOffsetCommitRequest): Write on the transactional id, then Read on the
 * group, else every partition gets TRANSACTIONAL_ID_ / GROUP_AUTHORIZATION_FAILED; partitions of topics not
 * readable get TOPIC_AUTHORIZATION_FAILED, of unknown topics UNKNOWN_TOPIC_OR_PARTITION; the rest are held by
 * the group coordinator (appended to the group's `__consumer_offsets` partition as a transactional batch of the
 * producer) until the transaction's marker reaches that partition.
 */
export function createTxnOffsetCommitHandler(ctx: HandlerContext): ApiHandler<TxnOffsetCommitRequest, TxnOffsetCommitResponse> {
  return async (request, context) => {
    const every = (errorCode: number): TxnOffsetCommitResponse => ({
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })) })),
    });
    if (!authorize(ctx, context, 'WRITE', 'TRANSACTIONAL_ID', request.transactionalId)) return every(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code);
    if (!authorize(ctx, context, 'READ', 'GROUP', request.groupId)) return every(ErrorCode.GROUP_AUTHORIZATION_FAILED.code);
    const readable = filterByAuthorized(ctx, context, 'READ', 'TOPIC', request.topics.map((t) => t.name));
    const known = request.topics
      .filter((t) => readable.has(t.name))
      .flatMap((t) =>
        t.partitions
          .filter((p) => ctx.metadataCache.partitionState({ topic: t.name, partition: p.partitionIndex }) !== undefined)
          .map((p) => ({ topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.committedMetadata, leaderEpoch: p.committedLeaderEpoch })),
      );
    const errors = await ctx.groupCoordinator.txnCommitOffsets(request.groupId, request.producerId, request.producerEpoch, request.generationId, request.memberId, request.groupInstanceId, known);
    const byKey = new Map(known.map((o, i) => [`${o.topic}-${o.partition}`, errors[i]!]));
    const missing = (topic: string): number => (readable.has(topic) ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.code : ErrorCode.TOPIC_AUTHORIZATION_FAILED.code);
    return {
      throttleTimeMs: 0,
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: byKey.get(`${t.name}-${p.partitionIndex}`) ?? missing(t.name) })),
      })),
    };
  };
}
