import { CONSUMER_PERF_DETAILED_HEADER, ConsumerPerfProgress } from '../../../src/tools/consumer-perf-progress';

const MB = 1024 * 1024;

/** A row split into Kafka's ten columns. */
function columns(row: string | undefined): string[] {
  expect(row).toBeDefined();
  const cols = (row as string).split(', ');
  expect(cols).toHaveLength(CONSUMER_PERF_DETAILED_HEADER.split(', ').length);
  return cols;
}

describe('ConsumerPerfProgress (--show-detailed-stats)', () => {
  it('has Kafka 2.8\'s detailed header', () => {
    expect(CONSUMER_PERF_DETAILED_HEADER).toBe('time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec');
  });

  it('prints a row once per interval, with totals so far and the interval\'s rates', () => {
    const p = new ConsumerPerfProgress(1000, 5000, (ms) => `t${ms}`, 1000);
    expect(p.maybeReport(5999, MB, 100)).toBeUndefined();
    // First interval: 5 s, of which 1 s finding partitions and offsets (the rebalance), so 4 s of fetching.
    expect(columns(p.maybeReport(6000, 2 * MB, 1000))).toEqual(['t6000', '0', '2.0000', '0.4000', '1000', '200.0000', '1000', '4000', '0.5000', '250.0000']);
    expect(p.maybeReport(10999, 3 * MB, 1500)).toBeUndefined();
    // Second interval: rates over the interval's own bytes and records; no rebalance any more.
    expect(columns(p.maybeReport(11000, 4.5 * MB, 3000))).toEqual(['t11000', '0', '4.5000', '0.5000', '3000', '400.0000', '0', '5000', '0.5000', '400.0000']);
  });

  it('reports zero fetch rates when the rebalance took the whole interval, as Kafka does', () => {
    const p = new ConsumerPerfProgress(0, 10, String, 10);
    expect(columns(p.maybeReport(10, 0, 0)).slice(6)).toEqual(['10', '0', '0.0000', '0.0000']);
  });
});
