import { compareTp, TopicPartition } from '../../common/topic-partition';
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  ReassignableTopicResponse,
} from '../../protocol/apis/alter-partition-reassignments';
import { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, OngoingTopicReassignment } from '../../protocol/apis/list-partition-reassignments';
import { ApiHandler } from '../network/api-handler';
import { requireClusterOperation } from './auth-helper';
import { HandlerContext } from './handler-context';

function groupByTopic<T extends { tp: TopicPartition }, P>(items: readonly T[], partition: (item: T) => P): Map<string, P[]> {
  const topics = new Map<string, P[]>();
  for (const item of [...items].sort((a, b) => compareTp(a.tp, b.tp))) {
    let list = topics.get(item.tp.topic);
    if (!list) topics.set(item.tp.topic, (list = []));
    list.push(partition(item));
  }
  return topics;
}

/**
 * AlterPartitionReassignments (Kafka's handleAlterPartitionReassignmentsRequest): the controller's event queue
 * validates and starts, replaces or cancels each partition's reassignment. A partition named twice is taken
 * once, with its last entry (Kafka's request becomes a Map). Off the controller the answer is a top-level
 * NOT_CONTROLLER with no partitions, as Kafka's `Right(ApiError)`.
 */
export function createAlterPartitionReassignmentsHandler(ctx: HandlerContext): ApiHandler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> {
  return async (request, context) => {
    requireClusterOperation(ctx, context, 'ALTER');
    const byTp = new Map<string, { tp: TopicPartition; replicas: number[] | null }>();
    for (const t of request.topics) {
      for (const p of t.partitions) {
        const tp = { topic: t.name, partition: p.partitionIndex };
        byTp.set(`${t.name}\u0000${p.partitionIndex}`, { tp, replicas: p.replicas });
      }
    }
    const result = await ctx.controller.alterPartitionReassignments([...byTp.values()]);
    if (result.errorCode !== 0) return { throttleTimeMs: 0, errorCode: result.errorCode, errorMessage: null, responses: [] };
    const grouped = groupByTopic(result.partitions, (r) => ({ partitionIndex: r.tp.partition, errorCode: r.errorCode, errorMessage: r.errorMessage }));
    const responses: ReassignableTopicResponse[] = [...grouped].map(([name, partitions]) => ({ name, partitions }));
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, responses };
  };
}

/**
 * ListPartitionReassignments (Kafka's handleListPartitionReassignmentsRequest): the named partitions (topics null:
 * all) that the controller is reassigning, with their full replica set and the replicas being added and removed.
 */
export function createListPartitionReassignmentsHandler(ctx: HandlerContext): ApiHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> {
  return async (request, context) => {
    requireClusterOperation(ctx, context, 'DESCRIBE');
    const partitions = request.topics === null ? null : request.topics.flatMap((t) => [...new Set(t.partitionIndexes)].map((partition) => ({ topic: t.name, partition })));
    const result = await ctx.controller.listPartitionReassignments(partitions);
    if (result.errorCode !== 0) return { throttleTimeMs: 0, errorCode: result.errorCode, errorMessage: null, topics: [] };
    const grouped = groupByTopic(result.reassignments, (r) => ({ partitionIndex: r.tp.partition, replicas: r.replicas, addingReplicas: r.addingReplicas, removingReplicas: r.removingReplicas }));
    const topics: OngoingTopicReassignment[] = [...grouped].map(([name, ps]) => ({ name, partitions: ps }));
    return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics };
  };
}
