import { ApiDefinition } from '../api-definition';
import { ApiKey } from '../api-keys';
import { f, s } from '../schema/field';

/*
 * DescribeCluster (key 60, KIP-700), v0: Kafka 2.8's whole window, and flexible from its first version. The
 * response carries the cluster id, the controller and the live brokers (as Metadata does, without topics), and
 * the cluster's authorized operations as a bit field, Int.MinValue (-2147483648) when not asked for.
 */
export interface DescribeClusterRequest {
  includeClusterAuthorizedOperations: boolean;
}

export interface DescribeClusterBroker {
  brokerId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface DescribeClusterResponse {
  throttleTimeMs: number;
  errorCode: number;
  errorMessage: string | null;
  clusterId: string;
  controllerId: number;
  brokers: DescribeClusterBroker[];
  clusterAuthorizedOperations: number;
}

/** Kafka's MessageUtil / Int.MinValue: "authorized operations not requested". */
export const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

export const DescribeClusterApi = new ApiDefinition<DescribeClusterRequest, DescribeClusterResponse>({
  key: ApiKey.DESCRIBE_CLUSTER,
  minVersion: 0,
  maxVersion: 0,
  flexibleFrom: 0,
  request: [f('includeClusterAuthorizedOperations', 'bool', '0+')],
  response: [
    f('throttleTimeMs', 'int32', '0+'),
    f('errorCode', 'int16', '0+'),
    f('errorMessage', 'string', '0+', { nullable: '0+', default: null }),
    f('clusterId', 'string', '0+'),
    f('controllerId', 'int32', '0+', { default: -1 }),
    s('brokers', '0+', [
      f('brokerId', 'int32', '0+'),
      f('host', 'string', '0+'),
      f('port', 'int32', '0+'),
      f('rack', 'string', '0+', { nullable: '0+', default: null }),
    ]),
    f('clusterAuthorizedOperations', 'int32', '0+', { default: AUTHORIZED_OPERATIONS_OMITTED }),
  ],
});
