import * as fs from 'node:fs';
import { ErrorCode } from '../common/error-codes';
import { KafkaError } from '../common/kafka-error';
import { parseProperties } from '../common/config/properties';
import { SYSTEM_CLOCK } from '../common/time';
import { authorizationError } from '../client/authorization-error';
import { formatMetrics } from '../client/client-metrics';
import { NetworkClient } from '../client/network-client';
import { ConsumedBatch, PartitionConsumer } from '../client/partition-consumer';
import { recordPayloadSizes } from '../records';
import { javaExceptionName } from './admin-client-config';
import { CliError } from './cli';
import { CONSUMER_PERF_DETAILED_HEADER, ConsumerPerfProgress } from './consumer-perf-progress';
import { intOption, parseBrokerList } from './tool-properties';
import { toolClientConnection } from './tool-client-connection';

export interface ConsumerPerformanceOptions {
  bootstrapServer?: string;
  brokerList?: string;
  topic: string;
  messages: string;
  fetchSize: string;
  fromLatest?: boolean;
  timeout: string;
  threads?: string;
  hideHeader?: boolean;
  group?: string;
  /** --print-metrics: the consumer's fetch metrics after the run, as Kafka's ToolsUtils.printMetrics. */
  printMetrics?: boolean;
  /** --show-detailed-stats: a row per --reporting-interval instead of the one summary line, as Kafka's. */
  showDetailedStats?: boolean;
  /** --reporting-interval: ms between detailed rows (default 5000). */
  reportingInterval?: string;
  /** --consumer.config: a properties file; client.id, fetch.max.bytes and fetch.max.wait.ms are read from it. */
  consumerConfig?: string;
}

/** The consumer properties this tool honours; any other key in --consumer.config is refused, not ignored. */
const CONSUMER_KEYS = new Set(['client.id', 'fetch.max.bytes', 'fetch.max.wait.ms', 'bootstrap.servers', 'group.id']);

function consumerProperties(file: string | undefined): Map<string, string> {
  if (file === undefined) return new Map();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError(`Cannot read --consumer.config ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  const props = new Map(parseProperties(text));
  for (const key of props.keys()) if (!CONSUMER_KEYS.has(key)) throw new CliError(`Unsupported consumer property ${key} in ${file}; supported: ${[...CONSUMER_KEYS].join(', ')}`);
  return props;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, '0');
}

/** Kafka's default --date-format, `yyyy-MM-dd HH:mm:ss:SSS`. */
function formatDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}:${pad(d.getMilliseconds(), 3)}`;
}

export const CONSUMER_PERF_HEADER = 'start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';

/**
 * Kafka's ConsumerPerformance: reads --messages records of every partition of the topic from the start (or the
 * end with --from-latest) and prints Kafka's CSV line. Partitions are assigned directly, so the "rebalance" time
 * is the time to find the partitions and their start offsets. With --show-detailed-stats it prints a row per
 * reporting interval instead (consumer-perf-progress.ts).
 */
export async function runConsumerPerformance(o: ConsumerPerformanceOptions, out: (line: string) => void, err: (line: string) => void): Promise<{ mbPerSec: number; recordsPerSec: number }> {
  const props = consumerProperties(o.consumerConfig);
  const servers = o.bootstrapServer ?? o.brokerList ?? props.get('bootstrap.servers');
  if (servers === undefined) throw new CliError('Missing required argument "[bootstrap-server]"');
  const messages = intOption(o.messages, '--messages', 0);
  if (messages <= 0) throw new CliError(`Invalid --messages ${o.messages}: must be positive`);
  const timeoutMs = intOption(o.timeout, '--timeout', 10000);
  const reportingIntervalMs = intOption(o.reportingInterval, '--reporting-interval', 5000);
  if (reportingIntervalMs <= 0) throw new CliError(`Invalid --reporting-interval ${String(o.reportingInterval)}: must be positive`);
  const client = new NetworkClient({ bootstrapServers: parseBrokerList(servers, '--bootstrap-server'), clientId: props.get('client.id') ?? 'consumer-performance', ...toolClientConnection(props, '--consumer.config') });
  const start = SYSTEM_CLOCK.nowMs();
  try {
    const md = await client.ensureMetadata([o.topic]);
    const info = md.topics.get(o.topic);
    if (info?.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED.code) throw authorizationError(info.errorCode, { topics: [o.topic] });
    if (info === undefined || info.errorCode !== ErrorCode.NONE.code) throw new CliError(`Topic ${o.topic} does not exist`);
    const consumer = new PartitionConsumer(client, {
      partitionMaxBytes: intOption(o.fetchSize, '--fetch-size', 1048576),
      maxBytes: intOption(props.get('fetch.max.bytes'), 'fetch.max.bytes', 52428800),
      maxWaitMs: intOption(props.get('fetch.max.wait.ms'), 'fetch.max.wait.ms', 500),
    });
    await consumer.assign(info.partitions.map((p) => ({ topic: o.topic, partition: p.partition })), o.fromLatest ? 'latest' : 'earliest');
    const fetchStart = SYSTEM_CLOCK.nowMs();
    // Kafka prints the header before consuming; the detailed rows follow it as the intervals pass.
    if (!o.hideHeader) out(o.showDetailedStats ? CONSUMER_PERF_DETAILED_HEADER : CONSUMER_PERF_HEADER);
    const progress = o.showDetailedStats ? new ConsumerPerfProgress(start, reportingIntervalMs, formatDate, fetchStart - start) : undefined;
    let count = 0;
    let bytes = 0;
    let lastProgress = SYSTEM_CLOCK.nowMs();
    // The next fetch goes out before this one's batches are counted (Kafka's consumer prefetches likewise).
    let next: Promise<ConsumedBatch[]> = consumer.pollBatches();
    while (count < messages) {
      const batches = await next;
      next = consumer.pollBatches();
      next.catch(() => undefined);
      const before = count;
      for (const b of batches) {
        const sizes = recordPayloadSizes(b.batch, b.fromOffset);
        count += sizes.count;
        bytes += sizes.bytes;
      }
      // Kafka checks the interval as each record is counted: a poll that brought none prints no row.
      if (progress !== undefined && count > before) {
        const row = progress.maybeReport(SYSTEM_CLOCK.nowMs(), bytes, count);
        if (row !== undefined) out(row);
      }
      if (count > before) lastProgress = SYSTEM_CLOCK.nowMs();
      else if (SYSTEM_CLOCK.nowMs() - lastProgress > timeoutMs) {
        err(`WARNING: Exiting before consuming the expected number of messages: timeout (${timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.`);
        break;
      }
    }
    const end = SYSTEM_CLOCK.nowMs();
    const mb = bytes / (1024 * 1024);
    const total = Math.max(1, end - start) / 1000;
    const fetchMs = Math.max(1, end - fetchStart);
    // With --show-detailed-stats Kafka prints only the interval rows, no summary line.
    if (progress === undefined) {
      out(
        `${formatDate(start)}, ${formatDate(end)}, ${mb.toFixed(4)}, ${(mb / total).toFixed(4)}, ${count}, ${(count / total).toFixed(4)}, ${fetchStart - start}, ${fetchMs}, ${((mb * 1000) / fetchMs).toFixed(4)}, ${((count * 1000) / fetchMs).toFixed(4)}`,
      );
    }
    if (o.printMetrics) for (const line of formatMetrics(consumer.metrics.snapshot())) out(line);
    return { mbPerSec: (mb * 1000) / fetchMs, recordsPerSec: (count * 1000) / fetchMs };
  } catch (e) {
    // Kafka's ConsumerPerformance lets the consumer's exception out of main: the JVM prints it, exit status 1.
    if (e instanceof KafkaError) throw new CliError(`Exception in thread "main" ${javaExceptionName(e.errorName)}: ${e.message}`);
    throw e;
  } finally {
    client.close();
  }
}
