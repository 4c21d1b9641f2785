import { runTool as runToolWithArgs, ToolRun } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';

/** Small offsets topic, no initial delay, short sessions allowed: group tests run in seconds. */
export const GROUP_TEST_PROPS = { 'offsets.topic.num.partitions': '4', 'group.initial.rebalance.delay.ms': '0', 'group.min.session.timeout.ms': '1000' };

/** Creates a topic through ZooKeeper (kafka-topics) and waits until every partition has a leader. */
export async function createTopic(cluster: TestCluster, topic: string, partitions: number, replicationFactor = 1): Promise<void> {
  const r = await runToolWithArgs('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--partitions', String(partitions), '--replication-factor', String(replicationFactor)]);
  if (r.code !== 0) throw new Error(`kafka-topics failed: ${r.output}`);
  await cluster.waitForLeaders(topic, partitions);
}

/** Runs a bin/ tool to completion. */
export async function runTool(tool: string, ...args: string[]): Promise<ToolRun> {
  return runToolWithArgs(tool, args);
}
