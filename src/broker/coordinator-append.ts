import { ErrorName, errorNameOf } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { getLogger } from '../common/logging/logging';
import { Clock } from '../common/time';
import { TopicPartition, tpString } from '../common/topic-partition';
import { ReplicaManager } from './replica-manager';

const log = getLogger('kafka.server.ReplicaManager');

/**
 * An append of the broker's own coordinators (Kafka's ReplicaManager.appendRecords with AppendOrigin.Coordinator,
 * internal topics allowed, acks=-1): the transaction coordinator's `__transaction_state` records and the control
 * batches of WriteTxnMarkers. Resolves once every ISR member has the batch (undefined) or with the partition's
 * error: not led here, too small an ISR, or REQUEST_TIMED_OUT after `timeoutMs`.
 */
export async function coordinatorAppend(replicaManager: ReplicaManager, clock: Clock, tp: TopicPartition, records: Buffer, timeoutMs: number): Promise<ErrorName | undefined> {
  let requiredOffset: number;
  try {
    const partition = replicaManager.leaderPartition(tp);
    const info = await partition.appendRecordsToLeader(records, -1, 'coordinator');
    requiredOffset = info.lastOffset + 1;
  } catch (err) {
    if (err instanceof KafkaError) return errorNameOf(err.code) ?? 'UNKNOWN_SERVER_ERROR';
    log.error(`Error processing append operation on partition ${tpString(tp)}`, err);
    return 'UNKNOWN_SERVER_ERROR';
  }
  replicaManager.watchers.notify(tp);
  const deadline = clock.nowMs() + timeoutMs;
  for (;;) {
    const partition = replicaManager.getPartition(tp);
    const check = partition === undefined ? ({ done: true, error: 'NOT_LEADER_OR_FOLLOWER' } as const) : partition.checkEnoughReplicasReachOffset(requiredOffset);
    if (check.done) return check.error;
    const remaining = deadline - clock.nowMs();
    if (remaining <= 0) return 'REQUEST_TIMED_OUT';
    await replicaManager.watchers.waitForChange([tp], remaining);
  }
}
