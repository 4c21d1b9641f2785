import { ErrorCode } from '../../common/error-codes';
import { ControlledShutdownRequest, ControlledShutdownResponse } from '../../protocol/apis/controlled-shutdown';
import { LeaderAndIsrRequest, LeaderAndIsrResponse } from '../../protocol/apis/leader-and-isr';
import { StopReplicaRequest, StopReplicaResponse } from '../../protocol/apis/stop-replica';
import { UpdateMetadataRequest, UpdateMetadataResponse } from '../../protocol/apis/update-metadata';
import { getLogger } from '../../common/logging/logging';
import { GROUP_METADATA_TOPIC_NAME, TRANSACTION_STATE_TOPIC_NAME } from '../../common/topic';
import { ApiHandler } from '../network/api-handler';
import { requireClusterOperation } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * The controller's requests (LeaderAndIsr, UpdateMetadata, StopReplica) and the broker's ControlledShutdown
 * request to the controller. A request from an older controller epoch, or for an older broker epoch of this
 * broker, is refused as Kafka refuses it.
 */
const txnLog = getLogger('kafka.coordinator.transaction.TransactionCoordinator');
const groupLog = getLogger('kafka.coordinator.group.GroupMetadataManager');

export function createLeaderAndIsrHandler(ctx: HandlerContext): ApiHandler<LeaderAndIsrRequest, LeaderAndIsrResponse> {
  return async (request, context) => {
    requireClusterOperation(ctx, context, 'CLUSTER_ACTION');
    if (staleBrokerEpoch(ctx, request.brokerEpoch)) return { errorCode: ErrorCode.STALE_BROKER_EPOCH.code, partitionErrors: [] };
    const version = context.header.apiVersion;
    const response = await ctx.replicaManager.becomeLeaderOrFollower(context.header.correlationId, request, version, (leaders, followers) => {
      // KafkaApis.onLeadershipChange: the coordinator of a group is the leader of its offsets partition.
      for (const tp of leaders) {
        if (tp.topic === GROUP_METADATA_TOPIC_NAME) ctx.groupCoordinator.onElection(tp.partition).catch((err: unknown) => groupLog.error(`Failed to load offsets of ${GROUP_METADATA_TOPIC_NAME}-${tp.partition}`, err));
      }
      for (const tp of followers) if (tp.topic === GROUP_METADATA_TOPIC_NAME) ctx.groupCoordinator.onResignation(tp.partition);
      // The transaction coordinator likewise, at the partition's leader epoch (its coordinator epoch); loading
      // runs in the background, its ids answering COORDINATOR_LOAD_IN_PROGRESS meanwhile.
      for (const tp of leaders) {
        if (tp.topic !== TRANSACTION_STATE_TOPIC_NAME) continue;
        const epoch = ctx.replicaManager.getPartition(tp)?.leaderEpoch ?? 0;
        ctx.transactionCoordinator.onElection(tp.partition, epoch).catch((err: unknown) => txnLog.error(`Failed to load transaction state of ${TRANSACTION_STATE_TOPIC_NAME}-${tp.partition}`, err));
      }
      for (const tp of followers) if (tp.topic === TRANSACTION_STATE_TOPIC_NAME) ctx.transactionCoordinator.onResignation(tp.partition);
    });
    return version >= 5 ? byTopicId(request, response) : response;
  };
}

/** LeaderAndIsrResponse v5: the partition errors grouped under their topic's id, in the request's topic order. */
function byTopicId(request: LeaderAndIsrRequest, response: LeaderAndIsrResponse): LeaderAndIsrResponse {
  const errors = new Map<string, { partitionIndex: number; errorCode: number; topicName: string }[]>();
  for (const e of response.partitionErrors) {
    let list = errors.get(e.topicName);
    if (!list) errors.set(e.topicName, (list = []));
    list.push(e);
  }
  const topics = request.topicStates
    .filter((t) => errors.has(t.topicName))
    .map((t) => ({ topicId: t.topicId ?? Buffer.alloc(16), partitionErrors: errors.get(t.topicName) ?? [] }));
  return { errorCode: response.errorCode, partitionErrors: [], topics };
}

export function createUpdateMetadataHandler(ctx: HandlerContext): ApiHandler<UpdateMetadataRequest, UpdateMetadataResponse> {
  const stateChangeLog = getLogger('state.change.logger', `[Broker id=${ctx.brokerId}] `);
  return (request, context) => {
    requireClusterOperation(ctx, context, 'CLUSTER_ACTION');
    if (staleBrokerEpoch(ctx, request.brokerEpoch)) return { errorCode: ErrorCode.STALE_BROKER_EPOCH.code };
    if (request.controllerEpoch < ctx.replicaManager.controllerEpoch) {
      stateChangeLog.warn(
        `Received UpdateMetadata request with correlation id ${context.header.correlationId} from an old controller ${request.controllerId} with epoch ${request.controllerEpoch}. Latest known controller epoch is ${ctx.replicaManager.controllerEpoch}`,
      );
      return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH.code };
    }
    ctx.replicaManager.controllerEpoch = request.controllerEpoch;
    const deleted = ctx.metadataCache.updateMetadata(context.header.correlationId, request, context.header.apiVersion);
    ctx.replicaManager.forgetDeleted(deleted);
    return { errorCode: ErrorCode.NONE.code };
  };
}

export function createStopReplicaHandler(ctx: HandlerContext): ApiHandler<StopReplicaRequest, StopReplicaResponse> {
  return async (request, context) => {
    requireClusterOperation(ctx, context, 'CLUSTER_ACTION');
    if (staleBrokerEpoch(ctx, request.brokerEpoch)) return { errorCode: ErrorCode.STALE_BROKER_EPOCH.code, partitionErrors: [] };
    const response = await ctx.replicaManager.stopReplicas(context.header.correlationId, request, context.header.apiVersion);
    for (const p of response.partitionErrors) {
      if (p.topicName === GROUP_METADATA_TOPIC_NAME && p.errorCode === ErrorCode.NONE.code) ctx.groupCoordinator.onResignation(p.partitionIndex);
      if (p.topicName === TRANSACTION_STATE_TOPIC_NAME && p.errorCode === ErrorCode.NONE.code) ctx.transactionCoordinator.onResignation(p.partitionIndex);
    }
    return response;
  };
}

export function createControlledShutdownHandler(ctx: HandlerContext): ApiHandler<ControlledShutdownRequest, ControlledShutdownResponse> {
  return async (request, context) => {
    requireClusterOperation(ctx, context, 'CLUSTER_ACTION');
    if (!ctx.controller.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER.code, remainingPartitions: [] };
    const result = await ctx.controller.controlledShutdown(request.brokerId, request.brokerEpoch);
    return { errorCode: result.errorCode, remainingPartitions: result.remaining.map((tp) => ({ topicName: tp.topic, partitionIndex: tp.partition })) };
  };
}

/** A request meant for an earlier registration of this broker (KIP-380); -1 means the sender does not know. */
function staleBrokerEpoch(ctx: HandlerContext, requestEpoch: number): boolean {
  return requestEpoch !== -1 && requestEpoch < ctx.brokerEpoch();
}
