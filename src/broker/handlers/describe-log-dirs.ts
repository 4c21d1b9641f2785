import { tpKey } from '../../common/topic-partition';
import { DescribeLogDirsRequest, DescribeLogDirsResponse } from '../../protocol/apis/describe-log-dirs';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

/**
 * DescribeLogDirs (Kafka's handleDescribeLogDirsRequest): this broker's log.dirs, each with its error and the
 * sizes and offset lags of the requested partitions it holds (topics null: every partition it holds).
 */
export function createDescribeLogDirsHandler(ctx: HandlerContext): ApiHandler<DescribeLogDirsRequest, DescribeLogDirsResponse> {
  return (request, context) => {
    // Kafka 2.8: without Describe on the cluster the answer is empty.
    if (!authorizeCluster(ctx, context, 'DESCRIBE')) return { throttleTimeMs: 0, results: [] };
    const partitions = request.topics === null ? null : new Set(request.topics.flatMap((t) => t.partitionIndex.map((p) => tpKey(t.topic, p))));
    return { throttleTimeMs: 0, results: ctx.replicaManager.describeLogDirs(ctx.config.logDirs, partitions) };
  };
}
