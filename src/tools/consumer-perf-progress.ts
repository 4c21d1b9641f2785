/** Kafka's header of ConsumerPerformance with --show-detailed-stats: one row per reporting interval. */
export const CONSUMER_PERF_DETAILED_HEADER = 'time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';

const MB = 1024 * 1024;

/**
 * ConsumerPerformance's periodic rows (--show-detailed-stats, every --reporting-interval ms): at the row's time,
 * thread id 0 (the tool consumes on one thread, as Kafka 2.x's does), the MB consumed so far and the interval's
 * MB/sec, the records so far and the interval's records/sec, then the interval's rebalance time, fetch time (the
 * interval minus the rebalance) and the rates over the fetch time, in Kafka's printConsumerProgress format. The
 * check runs once per fetched batch, not per record.
 */
export class ConsumerPerfProgress {
  private lastReportMs: number;
  private lastBytes = 0;
  private lastMessages = 0;

  constructor(
    startMs: number,
    private readonly intervalMs: number,
    private readonly formatTime: (ms: number) => string,
    /** Time spent finding partitions and offsets before fetching: the first interval's rebalance time. */
    private pendingRebalanceMs = 0,
  ) {
    this.lastReportMs = startMs;
  }

  /** Rebalance time to report in the next row (Kafka's joinTimeMsInSingleRound). */
  addRebalanceTime(ms: number): void {
    this.pendingRebalanceMs += ms;
  }

  /** The row to print when an interval has passed since the last one, with the totals consumed so far. */
  maybeReport(nowMs: number, bytes: number, messages: number): string | undefined {
    if (nowMs - this.lastReportMs < this.intervalMs) return undefined;
    const elapsedMs = nowMs - this.lastReportMs;
    const intervalMb = (bytes - this.lastBytes) / MB;
    const intervalMessages = messages - this.lastMessages;
    const fetchMs = elapsedMs - this.pendingRebalanceMs;
    const [fetchMbPerSec, fetchMessagesPerSec] = fetchMs <= 0 ? [0, 0] : [(1000 * intervalMb) / fetchMs, (1000 * intervalMessages) / fetchMs];
    const row = [
      this.formatTime(nowMs),
      '0',
      (bytes / MB).toFixed(4),
      ((1000 * intervalMb) / elapsedMs).toFixed(4),
      String(messages),
      ((intervalMessages / elapsedMs) * 1000).toFixed(4),
      String(this.pendingRebalanceMs),
      String(fetchMs),
      fetchMbPerSec.toFixed(4),
      fetchMessagesPerSec.toFixed(4),
    ].join(', ');
    this.pendingRebalanceMs = 0;
    this.lastReportMs = nowMs;
    this.lastBytes = bytes;
    this.lastMessages = messages;
    return row;
  }
}
