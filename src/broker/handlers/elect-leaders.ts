import { ErrorCode } from '../../common/error-codes';
import { KafkaError } from '../../common/kafka-error';
import { TopicPartition, tpString } from '../../common/topic-partition';
import { ElectionType, ElectLeadersReplicaElectionResult, ElectLeadersRequest, ElectLeadersResponse } from '../../protocol/apis/elect-leaders';
import { ApiHandler } from '../network/api-handler';
import { authorizeCluster } from './auth-helper';
import { HandlerContext } from './handler-context';

interface PartitionAnswer {
  tp: TopicPartition;
  errorCode: number;
  errorMessage: string | null;
}

/**
 * ElectLeaders (Kafka's handleElectReplicaLeader with ReplicaManager.electLeaders and DelayedElectLeader): the
 * controller's event queue elects (any other broker's controller answers NOT_CONTROLLER for every partition);
 * a partition that got a new leader is answered once this broker's metadata names that leader, or
 * REQUEST_TIMED_OUT when timeoutMs (counted from the request's arrival) runs out first. Asked for all partitions
 * (topicPartitions null), the answer leaves out those that needed no election, as Kafka's does.
 */
export function createElectLeadersHandler(ctx: HandlerContext): ApiHandler<ElectLeadersRequest, ElectLeadersResponse> {
  return async (request, context) => {
    const deadline = ctx.clock.nowMs() + request.timeoutMs;
    // v0 has no election type: it is always a preferred election.
    const typeCode = context.header.apiVersion === 0 ? ElectionType.PREFERRED : request.electionType;
    // Kafka's ElectionType.valueOf throws IllegalArgumentException, which the request answers as UNKNOWN_SERVER_ERROR.
    if (typeCode !== ElectionType.PREFERRED && typeCode !== ElectionType.UNCLEAN) {
      throw new KafkaError('UNKNOWN_SERVER_ERROR', `Value ${typeCode} must be one of PREFERRED, UNCLEAN`);
    }
    const electionType = typeCode === ElectionType.PREFERRED ? 'PREFERRED' : 'UNCLEAN';
    // Kafka's handleElectReplicaLeader: Alter on the cluster, else the error at the top and in every partition.
    if (!authorizeCluster(ctx, context, 'ALTER')) {
      const code = ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code;
      const refused = (request.topicPartitions ?? []).flatMap((t) => t.partitions.map((partition) => ({ tp: { topic: t.topic, partition }, errorCode: code, errorMessage: null })));
      return { throttleTimeMs: 0, errorCode: code, replicaElectionResults: byTopic(refused) };
    }
    const answers: PartitionAnswer[] = [];
    let partitions: TopicPartition[];
    if (request.topicPartitions === null) {
      partitions = ctx.metadataCache.allPartitions();
    } else {
      // A partition named twice cannot have one answer per request entry: all its entries are refused.
      const named = new Map<string, { tp: TopicPartition; count: number }>();
      for (const t of request.topicPartitions) {
        for (const partition of t.partitions) {
          const tp = { topic: t.topic, partition };
          const entry = named.get(tpString(tp));
          if (entry === undefined) named.set(tpString(tp), { tp, count: 1 });
          else entry.count++;
        }
      }
      partitions = [];
      for (const [key, { tp, count }] of named) {
        if (count > 1) answers.push({ tp, errorCode: ErrorCode.INVALID_REQUEST.code, errorMessage: `Partition ${key} is named more than once in the request` });
        else partitions.push(tp);
      }
    }
    const outcomes = partitions.length === 0 ? [] : await ctx.controller.electLeaders(partitions, electionType);
    const expected = outcomes.filter((o) => o.errorCode === ErrorCode.NONE.code);
    for (const o of outcomes) if (o.errorCode !== ErrorCode.NONE.code) answers.push({ tp: o.tp, errorCode: o.errorCode, errorMessage: o.errorMessage });
    if (expected.length > 0) {
      const cache = ctx.metadataCache;
      const elected = (o: (typeof expected)[number]): boolean => cache.partitionState(o.tp)?.leader === o.leader;
      await cache.topicWatchers.waitUntil(() => expected.every(elected), [...new Set(expected.map((o) => o.tp.topic))], Math.max(0, deadline - ctx.clock.nowMs()));
      for (const o of expected) answers.push({ tp: o.tp, errorCode: elected(o) ? ErrorCode.NONE.code : ErrorCode.REQUEST_TIMED_OUT.code, errorMessage: null });
    }
    const shown = request.topicPartitions === null ? answers.filter((a) => a.errorCode !== ErrorCode.ELECTION_NOT_NEEDED.code) : answers;
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE.code, replicaElectionResults: byTopic(shown) };
  };
}

function byTopic(answers: readonly PartitionAnswer[]): ElectLeadersReplicaElectionResult[] {
  const topics = new Map<string, ElectLeadersReplicaElectionResult>();
  for (const a of [...answers].sort((x, y) => (x.tp.topic === y.tp.topic ? x.tp.partition - y.tp.partition : x.tp.topic < y.tp.topic ? -1 : 1))) {
    let t = topics.get(a.tp.topic);
    if (!t) topics.set(a.tp.topic, (t = { topic: a.tp.topic, partitionResult: [] }));
    t.partitionResult.push({ partitionId: a.tp.partition, errorCode: a.errorCode, errorMessage: a.errorMessage });
  }
  return [...topics.values()];
}
