import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';


describe('perf tools (a smoke test: benchmarks live in npm run bench)', () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1 });
  }, 120000);
  afterAll(async () => cluster?.close());

  it("kafka-producer-perf-test prints Kafka's summary line", async () => {
    const r = await runTool('kafka-producer-perf-test', ['--topic', 'perf', '--num-records', '2000', '--record-size', '100', '--throughput', '-1', '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'linger.ms=5']);
    expect(r.code).toBe(0);
    expect(r.output.split('\n').pop()).toMatch(
      /^2000 records sent, \d+\.\d{6} records\/sec \(\d+\.\d{2} MB\/sec\), \d+\.\d{2} ms avg latency, \d+\.\d{2} ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.$/,
    );
  });

  it("kafka-consumer-perf-test prints Kafka's CSV header and result line", async () => {
    const r = await runTool('kafka-consumer-perf-test', ['--bootstrap-server', cluster.bootstrap, '--topic', 'perf', '--messages', '2000']);
    expect(r.code).toBe(0);
    const [header, line] = r.output.split('\n');
    expect(header).toBe('start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec');
    expect(line).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0\.1907, [\d.]+, 2000, [\d.]+, \d+, \d+, [\d.]+, [\d.]+$/);
  });

  it('kafka-consumer-perf-test --show-detailed-stats prints a row per reporting interval and no summary', async () => {
    const r = await runTool('kafka-consumer-perf-test', ['--bootstrap-server', cluster.bootstrap, '--topic', 'perf', '--messages', '2000', '--show-detailed-stats', '--reporting-interval', '1']);
    expect(r.code).toBe(0);
    const [header, ...rows] = r.output.trim().split('\n');
    expect(header).toBe('time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec');
    // Finding the partitions takes more than 1 ms, so at least the first fetched batch gets a row.
    expect(rows.length).toBeGreaterThanOrEqual(1);
    let previous = 0;
    for (const row of rows) {
      const m = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}, 0, ([\d.]+), [\d.]+, (\d+), [\d.]+, (\d+), (-?\d+), [\d.]+, [\d.]+$/.exec(row);
      expect(m).not.toBeNull();
      const consumed = Number((m as RegExpExecArray)[2]);
      expect(consumed).toBeGreaterThan(previous);
      expect(consumed).toBeLessThanOrEqual(2000);
      previous = consumed;
    }
    // Only the first interval holds the time spent finding the partitions.
    expect(rows.slice(1).every((row) => row.split(', ')[6] === '0')).toBe(true);
  });

  it('refuse bad arguments with one line and exit 1', async () => {
    const both = await runTool('kafka-producer-perf-test', ['--topic', 't', '--num-records', '1', '--throughput', '-1', '--producer-props', 'bootstrap.servers=127.0.0.1:1']);
    expect(both).toEqual({ code: 1, output: 'Either --record-size or --payload-file must be specified but not both.' });
    const missing = await runTool('kafka-consumer-perf-test', ['--topic', 't']);
    expect(missing.code).toBe(1);
    expect(missing.output.trim().split('\n')).toHaveLength(1);
  });
});
