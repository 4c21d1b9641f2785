import { NetworkClient } from '../client/network-client';
import { KafkaError } from '../common/kafka-error';
import { DescribeLogDirsApi, DescribeLogDirsResult } from '../protocol/apis/describe-log-dirs';
import { adminClientOptions } from './admin-client-config';
import { CliError } from './cli';
import { exceptionClassFor, javaStringHash, scalaHashMapOrder, topicPartitionHash } from './java-rendering';

export interface LogDirsOptions {
  bootstrapServer?: string;
  commandConfig?: string;
  describe?: boolean;
  topicList?: string;
  brokerList?: string;
}

/** One broker's answer: its log dirs as DescribeLogDirs returned them. */
export interface BrokerLogDirs {
  broker: number;
  logDirs: readonly DescribeLogDirsResult[];
}

/** Kafka's CommandLineUtils.checkRequiredArgs for LogDirsCommand (--bootstrap-server, then --describe). */
export function checkLogDirsArgs(o: LogDirsOptions): void {
  if (o.bootstrapServer === undefined) throw new CliError('Missing required argument "[bootstrap-server]"');
  if (!o.describe) throw new CliError('Missing required argument "[describe]"');
}

/** `--broker-list 0,1,2` as Kafka reads it (`split(',').filter(_.nonEmpty).map(_.toInt).toSet`). */
export function parseLogDirsBrokerList(text: string): number[] {
  const ids: number[] = [];
  for (const s of text.split(',').filter((x) => x !== '')) {
    if (!/^[+-]?\d+$/.test(s) || Math.abs(Number(s)) > 2147483647) throw new CliError(`Exception in thread "main" java.lang.NumberFormatException: For input string: "${s}"`);
    const id = Number(s);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * LogDirsCommand.formatAsJson: {"version":1,"brokers":[{"broker":..,"logDirs":[{"logDir":..,"error":..,
 * "partitions":[{"partition":"t-0","size":..,"offsetLag":..,"isFuture":..}]}]}]}, restricted to `topics` (empty:
 * all), in the order Kafka's hash maps give (brokers by id, log dirs and partitions by their hash codes).
 */
export function formatLogDirsJson(brokers: readonly BrokerLogDirs[], topics: ReadonlySet<string>): string {
  const out = scalaHashMapOrder(brokers, (b) => b.broker).map((b) => {
    const dirs = scalaHashMapOrder(dedupeBy(b.logDirs, (d) => d.logDir), (d) => javaStringHash(d.logDir));
    return {
      broker: b.broker,
      logDirs: dirs.map((d) => {
        const replicas = d.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, ...p })));
        const wanted = dedupeBy(replicas, (r) => `${r.topic}-${r.partitionIndex}`).filter((r) => topics.size === 0 || topics.has(r.topic));
        return {
          logDir: d.logDir,
          error: d.errorCode === 0 ? null : exceptionClassFor(d.errorCode),
          partitions: scalaHashMapOrder(wanted, (r) => topicPartitionHash(r.topic, r.partitionIndex)).map((r) => ({
            partition: `${r.topic}-${r.partitionIndex}`,
            size: r.partitionSize,
            offsetLag: r.offsetLag,
            isFuture: r.isFutureKey,
          })),
        };
      }),
    };
  });
  return JSON.stringify({ version: 1, brokers: out });
}

/** Later entries with the same key replace earlier ones in place, as a Java HashMap's put does. */
function dedupeBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) byKey.set(key(item), item);
  return [...byKey.values()];
}

/**
 * Kafka's LogDirsCommand (`kafka-log-dirs --describe`): every broker of the cluster, or those of --broker-list,
 * asked for all its log dirs (DescribeLogDirs with topics null), printed as one JSON line.
 */
export async function runLogDirsCommand(o: LogDirsOptions, out: (line: string) => void): Promise<number> {
  checkLogDirsArgs(o);
  const topics = new Set((o.topicList ?? '').split(',').filter((t) => t !== ''));
  const requested = o.brokerList === undefined ? undefined : parseLogDirsBrokerList(o.brokerList);
  const client = new NetworkClient(adminClientOptions(o.bootstrapServer as string, o.commandConfig, '--command-config', { clientId: 'log-dirs-tool' }));
  try {
    // Admin.describeCluster: the brokers the metadata names.
    await client.refreshMetadata().catch((err: unknown) => {
      throw new CliError(`Exception in thread "main" java.util.concurrent.ExecutionException: ${exceptionClassFor(err instanceof KafkaError ? err.code : -1)}: ${(err as Error).message}`);
    });
    const clusterBrokers = [...client.metadata.brokers.keys()];
    const existing = requested === undefined ? clusterBrokers : requested.filter((id) => clusterBrokers.includes(id));
    const missing = requested === undefined ? [] : requested.filter((id) => !clusterBrokers.includes(id));
    if (missing.length > 0) {
      // Kafka prints this on stdout and exits 0.
      out(`ERROR: The given brokers do not exist from --broker-list: ${missing.join(',')}. Current existent brokers: ${clusterBrokers.join(',')}`);
      return 0;
    }
    out('Querying brokers for log directories information');
    const answers = await Promise.all(existing.map(async (broker) => ({ broker, logDirs: (await client.request(broker, DescribeLogDirsApi, { topics: null })).results }))).catch((err: unknown) => {
      // Kafka's allDescriptions.get() fails the tool with the cause of the first broker that did not answer.
      const code = err instanceof KafkaError ? err.code : -1;
      throw new CliError(`Exception in thread "main" java.util.concurrent.ExecutionException: ${exceptionClassFor(code)}: ${(err as Error).message}`);
    });
    out(`Received log directory information from brokers ${existing.join(',')}`);
    out(formatLogDirsJson(answers, topics));
    return 0;
  } finally {
    client.close();
  }
}
