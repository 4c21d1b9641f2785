import { BIN } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';

/** Small offsets topic, no initial delay, short sessions allowed: group tests run in seconds. */
export const GROUP_TEST_PROPS = { 'offsets.topic.num.partitions': '4', 'group.initial.rebalance.delay.ms': '0', 'group.min.session.timeout.ms': '1000' };

/** Creates a topic through ZooKeeper (kafka-topics) and waits until every partition has a leader. */
export async function createTopic(cluster: TestCluster, topic: string, partitions: number, replicationFactor = 1): Promise<void> {
  const child = spawnChild(BIN('kafka-topics'), ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--partitions', String(partitions), '--replication-factor', String(replicationFactor)]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`kafka-topics failed: ${child.output()}`);
  await cluster.waitForLeaders(topic, partitions);
}

/** Runs a bin/ tool to completion. */
export async function runTool(tool: string, ...args: string[]): Promise<{ code: number | null; output: string }> {
  const child = spawnChild(BIN(tool), args);
  const exit = await child.exited;
  return { code: exit.code, output: child.output() };
}
