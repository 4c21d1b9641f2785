import { TopicPartition, tpString } from '../common/topic-partition';
import { ControllerZk, LeaderIsrWithVersion } from '../zk/controller-zk';
import { ControllerContext } from './controller-context';

/**
 * The leader and ISR a state change starts from. On a first attempt the controller's cached state (with the
 * zkVersion it was read or written at) stands in for a ZooKeeper read: every write that follows is conditional
 * on that zkVersion, so a stale entry (a leader changed the ISR since) only costs a BADVERSION and a real read on
 * the retry, while a fresh one saves a round trip per partition: half of the ZooKeeper work of a failover at
 * thousands of partitions. Partitions the context has no state for are read, all together.
 */
export async function partitionStatesFor(
  zk: Pick<ControllerZk, 'getPartitionStates'>,
  context: ControllerContext,
  partitions: readonly TopicPartition[],
  useCache: boolean,
): Promise<PromiseSettledResult<LeaderIsrWithVersion | null>[]> {
  const cached = partitions.map((tp) => (useCache ? context.leadership.get(tpString(tp)) : undefined));
  const missing = partitions.filter((_, i) => cached[i] === undefined);
  const read = missing.length > 0 ? await zk.getPartitionStates(missing) : [];
  let next = 0;
  return cached.map((c) => (c !== undefined ? { status: 'fulfilled', value: { state: c.state, zkVersion: c.zkVersion } } : (read[next++] as PromiseSettledResult<LeaderIsrWithVersion | null>)));
}
