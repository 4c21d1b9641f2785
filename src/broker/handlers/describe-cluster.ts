import { ErrorCode } from '../../common/error-codes';
import { AUTHORIZED_OPERATIONS_OMITTED, DescribeClusterRequest, DescribeClusterResponse } from '../../protocol/apis/describe-cluster';
import { ApiHandler } from '../network/api-handler';
import { CLUSTER_NAME } from '../../security/acl-binding';
import { authorizeCluster, authorizedOperations } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * Kafka's AclOperation codes of the operations a CLUSTER resource supports (AclEntry.supportedOperations(CLUSTER)):
 * CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12.
 */
export const CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12] as const;

/** Kafka's Utils.to32BitField: bit `code` set for each operation. */
export function to32BitField(codes: readonly number[]): number {
  let field = 0;
  for (const c of codes) field |= 1 << c;
  return field;
}

/**
 * DescribeCluster (Kafka's KafkaApis.handleDescribeCluster): the live brokers on the request's listener, the
 * controller and the cluster id from the metadata cache. Asked for the authorized operations, it reports them
 * if the principal may describe the cluster, 0 if not (every CLUSTER operation without an authorizer).
 */
export function createDescribeClusterHandler(ctx: HandlerContext): ApiHandler<DescribeClusterRequest, DescribeClusterResponse> {
  return (request, context) => {
    const cache = ctx.metadataCache;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE.code,
      errorMessage: null,
      clusterId: ctx.clusterId,
      controllerId: cache.controllerId,
      brokers: cache.aliveBrokers(context.connection.listenerName).map((b) => ({ brokerId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
      clusterAuthorizedOperations: !request.includeClusterAuthorizedOperations
        ? AUTHORIZED_OPERATIONS_OMITTED
        : authorizeCluster(ctx, context, 'DESCRIBE')
          ? authorizedOperations(ctx, context, 'CLUSTER', CLUSTER_NAME)
          : 0,
    };
  };
}
