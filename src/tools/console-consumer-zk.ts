import { randomInt } from 'node:crypto';
import { connectToolZk } from './tool-zk-client';
import { oldConsumerConfigError } from '../rebalance/group-id';
import { ZookeeperConsumer } from '../rebalance/zookeeper-consumer';
import { validateZkConnectString } from '../zk/zk-connect-string';
import { ZkPaths } from '../zk/zk-paths';
import { CliError } from './cli';
import type { ConsoleConsumerOptions } from './console-consumer-options';
import { consoleLimits, consumeLoop, isolationLevelOf } from './console-consumer-loop';
import { intOption } from './tool-properties';

const DEPRECATION =
  'Using the ConsoleConsumer with old consumer is deprecated and will be removed in a future major release. Consider using the new consumer by passing [bootstrap-server] instead of [zookeeper].';

/**
 * kafka-console-consumer --zookeeper (0.8 - 1.x): the ZooKeeper-based consumer subscribed by filter (one stream,
 * registration pattern white_list) in --group or a generated `console-consumer-<n>` group, which is deleted
 * from ZooKeeper at exit. --from-beginning means auto.offset.reset=smallest and refuses a group that already
 * has offsets unless --delete-consumer-offsets.
 */
export async function runZkConsoleConsumer(
  o: ConsoleConsumerOptions,
  out: (text: string) => Promise<void>,
  err: (line: string) => void,
  stopSignal: { stopped: boolean },
): Promise<number> {
  const connect = o.zookeeper as string;
  const bad = validateZkConnectString(connect);
  if (bad !== undefined) throw new CliError(`Invalid --zookeeper ${connect}: ${bad}`);
  if (o.partition !== undefined || o.offset !== undefined) throw new CliError('Options partition and offset need --bootstrap-server.');
  const limits = consoleLimits(o);
  const props = limits.consumerProps;
  const isolationLevel = isolationLevelOf(props);
  err(DEPRECATION);
  const givenGroup = o.group ?? props.get('group.id');
  const group = givenGroup ?? `console-consumer-${randomInt(100000)}`;
  // Kafka's old ConsumerConfig.validate, before anything touches ZooKeeper: the group and consumer ids become znode names.
  for (const [prop, value] of [['group.id', group], ['consumer.id', props.get('consumer.id')], ['client.id', props.get('client.id')]] as const) {
    const invalid = value === undefined ? undefined : oldConsumerConfigError(prop, value);
    if (invalid !== undefined) throw new CliError(`kafka.common.InvalidConfigException: ${invalid}`);
  }

  const zk = await connectToolZk(connect, 'console consumer');
  try {
    if (((await zk.getChildren(ZkPaths.brokerIds)) ?? []).length === 0) throw new CliError('No brokers found in ZK.');
    const offsetsPath = ZkPaths.consumerOffsetsRoot(group);
    if (o.fromBeginning && (await zk.exists(offsetsPath)) !== null) {
      if (!o.deleteConsumerOffsets) throw new CliError(`Found previous offset information for this group ${group}. Please use --delete-consumer-offsets to delete previous offsets metadata`);
      await zk.deleteRecursive(ZkPaths.consumerGroup(group));
    } else if (o.deleteConsumerOffsets) {
      await zk.deleteRecursive(ZkPaths.consumerGroup(group));
    }
  } catch (e) {
    zk.close();
    throw e;
  }

  const reset = props.get('auto.offset.reset') ?? (o.fromBeginning ? 'smallest' : 'largest');
  if (reset !== 'smallest' && reset !== 'largest') throw new CliError(`Wrong value ${reset} of auto.offset.reset in ConsumerConfig; Valid values are smallest and largest`);
  const strategy = props.get('partition.assignment.strategy') ?? 'range';
  if (strategy !== 'range' && strategy !== 'roundrobin') throw new CliError(`Wrong value ${strategy} of partition.assignment.strategy; valid values are range and roundrobin`);
  const consumerTimeout = intOption(props.get('consumer.timeout.ms'), 'consumer.timeout.ms', -1);
  const consumer = new ZookeeperConsumer({
    zkConnect: connect,
    groupId: group,
    ...(props.has('consumer.id') ? { consumerId: props.get('consumer.id') } : {}),
    whitelist: o.topic ?? (o.whitelist as string),
    autoOffsetReset: reset,
    autoCommitEnable: (props.get('auto.commit.enable') ?? 'true') === 'true',
    autoCommitIntervalMs: intOption(props.get('auto.commit.interval.ms'), 'auto.commit.interval.ms', 60000),
    rebalanceMaxRetries: intOption(props.get('rebalance.max.retries'), 'rebalance.max.retries', 4),
    rebalanceBackoffMs: intOption(props.get('rebalance.backoff.ms'), 'rebalance.backoff.ms', 2000),
    zkSessionTimeoutMs: intOption(props.get('zookeeper.session.timeout.ms'), 'zookeeper.session.timeout.ms', 6000),
    partitionAssignmentStrategy: strategy,
    isolationLevel,
  });
  let processed = 0;
  try {
    await consumer.start();
    processed = await consumeLoop(
      consumer,
      { ...limits, timeoutMs: limits.timeoutMs >= 0 ? limits.timeoutMs : consumerTimeout },
      out,
      err,
      stopSignal,
      'kafka.consumer.ConsumerTimeoutException',
    );
  } finally {
    await consumer.close();
    // A generated group is the tool's own: leave nothing behind (Kafka deletes /consumers/<random group>).
    if (givenGroup === undefined) await zk.deleteRecursive(ZkPaths.consumerGroup(group)).catch(() => undefined);
    zk.close();
    err(`Processed a total of ${processed} messages`);
  }
  return 0;
}
