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

  it('refuse bad arguments with one line and exit 1', async () => {
    const both = await runTool('kafka-producer-perf-test', ['--topic', 't', '--num-records', '1', '--throughput', '-1', '--producer-props', 'bootstrap.servers=127.0.0.1:1']);
    expect(both).toEqual({ code: 1, output: 'Either --record-size or --payload-file must be specified but not both.' });
    const missing = await runTool('kafka-consumer-perf-test', ['--topic', 't']);
    expect(missing.code).toBe(1);
    expect(missing.output.trim().split('\n')).toHaveLength(1);
  });
});
