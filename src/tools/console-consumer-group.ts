import { NetworkClient } from '../client/network-client';
import { GroupConsumer } from '../rebalance/group-consumer';
import { CliError } from './cli';
import { toolClientConnection } from './tool-client-connection';
import type { ConsoleConsumerOptions } from './console-consumer-options';
import { consoleLimits, consumeLoop, isolationLevelOf, reportConsumerFailure } from './console-consumer-loop';
import { intOption, parseBrokerList } from './tool-properties';

/**
 * kafka-console-consumer --bootstrap-server --group: a member of the group through its coordinator, committing
 * what it printed (auto commit, and at exit). --from-beginning applies only where the group has no offset.
 */
export async function runGroupConsoleConsumer(
  o: ConsoleConsumerOptions,
  out: (text: string) => Promise<void>,
  err: (line: string) => void,
  stopSignal: { stopped: boolean },
): Promise<number> {
  if (o.offset !== undefined) throw new CliError('Options group and offset cannot be specified together.');
  const limits = consoleLimits(o);
  const props = limits.consumerProps;
  let pattern: RegExp | undefined;
  if (o.whitelist !== undefined) {
    try {
      pattern = new RegExp(`^(?:${o.whitelist.replace(/,/g, '|')})$`);
    } catch {
      throw new CliError(`Invalid --whitelist ${o.whitelist}: not a valid regular expression`);
    }
  }
  const reset = props.get('auto.offset.reset') ?? (o.fromBeginning ? 'earliest' : 'latest');
  if (reset !== 'earliest' && reset !== 'latest') throw new CliError(`Invalid value ${reset} for configuration auto.offset.reset: String must be one of: latest, earliest, none`);
  const isolationLevel = isolationLevelOf(props);
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(o.bootstrapServer as string, '--bootstrap-server'), clientId: props.get('client.id') ?? 'console-consumer', ...toolClientConnection(props, '--consumer.config / --consumer-property') });
  const consumer = new GroupConsumer(client, {
    groupId: o.group as string,
    ...(pattern !== undefined ? { pattern } : { topics: [o.topic as string] }),
    autoOffsetReset: reset,
    sessionTimeoutMs: intOption(props.get('session.timeout.ms'), 'session.timeout.ms', 10000),
    heartbeatIntervalMs: intOption(props.get('heartbeat.interval.ms'), 'heartbeat.interval.ms', 3000),
    enableAutoCommit: (props.get('enable.auto.commit') ?? 'true') === 'true',
    autoCommitIntervalMs: intOption(props.get('auto.commit.interval.ms'), 'auto.commit.interval.ms', 5000),
    isolationLevel,
  });
  let processed = 0;
  try {
    await consumer.start();
    processed = await consumeLoop(consumer, limits, out, err, stopSignal);
  } catch (e) {
    reportConsumerFailure(e, err);
  } finally {
    await consumer.close().catch(() => undefined);
    client.close();
    err(`Processed a total of ${processed} messages`);
  }
  return 0;
}
