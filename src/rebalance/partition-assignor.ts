import { TopicPartition } from '../common/topic-partition';
import { Subscriptions } from './consumer-threads';
import { rangeAssign } from './range-assignor';
import { roundRobinAssign } from './round-robin-assignor';

/** Which partitions each consumer thread owns; every member computes the same answer from the same inputs. */
export type PartitionAssignor = (subscriptions: Subscriptions, partitions: ReadonlyMap<string, readonly number[]>) => Map<string, TopicPartition[]>;

/** partition.assignment.strategy: range (default) or roundrobin. */
export function assignorFor(strategy: string): PartitionAssignor {
  if (strategy === 'range') return rangeAssign;
  if (strategy === 'roundrobin') return roundRobinAssign;
  throw new Error(`Wrong value ${strategy} of partition.assignment.strategy; valid values are range and roundrobin`);
}
