import { Clock } from '../common/time';
import { TRANSACTION_STATE_TOPIC_NAME } from '../common/topic';
import { ErrorName } from '../common/error-codes';
import { TransactionLogAccess } from '../transaction/transaction-state-manager';
import { coordinatorAppend } from './coordinator-append';
import { ReplicaManager } from './replica-manager';

/** The transaction coordinator's view of its `__transaction_state` partitions through the local replica manager. */
export function transactionLogAccess(replicaManager: ReplicaManager, clock: Clock): TransactionLogAccess {
  const tp = (partition: number): { topic: string; partition: number } => ({ topic: TRANSACTION_STATE_TOPIC_NAME, partition });
  return {
    append: (partition: number, records: Buffer, timeoutMs: number): Promise<ErrorName | undefined> => coordinatorAppend(replicaManager, clock, tp(partition), records, timeoutMs),
    bounds: (partition) => {
      const log = replicaManager.getPartition(tp(partition))?.log;
      return log === undefined ? undefined : { logStartOffset: log.logStartOffset, logEndOffset: log.logEndOffset };
    },
    read: (partition, fromOffset, maxBytes) => {
      const log = replicaManager.getPartition(tp(partition))?.log;
      return log === undefined ? Buffer.alloc(0) : log.read(fromOffset, maxBytes).records;
    },
  };
}
