import { runTool } from '../../helpers/run-tool';
import { freePort } from '../../helpers/free-port';
import { TestCluster } from '../../helpers/test-cluster';


const tool = (name: string, args: string[], input?: string): ReturnType<typeof runTool> => runTool(name, args, input === undefined ? {} : { input });

describe("the seed's quick start with the console tools", () => {
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1 });
  }, 120000);
  afterAll(async () => cluster?.close());

  it('creates test, produces two lines from stdin, consumes them from the beginning', async () => {
    const created = await tool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--create', '--topic', 'test', '--partitions', '1', '--replication-factor', '1']);
    expect(created).toEqual({ code: 0, output: 'Created topic test.' });
    expect((await tool('kafka-topics', ['--zookeeper', cluster.zkConnect, '--list'])).output).toBe('test');
    const produced = await tool('kafka-console-producer', ['--broker-list', cluster.bootstrap, '--topic', 'test'], 'This is a message\nThis is another message\n');
    expect(produced).toEqual({ code: 0, output: '' });
    const consumed = await tool('kafka-console-consumer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'test', '--from-beginning', '--max-messages', '2']);
    expect(consumed.code).toBe(0);
    const lines = consumed.output.split('\n');
    expect(lines.filter((l) => !l.startsWith('Processed a total'))).toEqual(['This is a message', 'This is another message']);
    expect(lines).toContain('Processed a total of 2 messages');
  });

  it('parses keys, compresses, and keeps data and offsets across a broker restart', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `k${i % 7}:v${i}`).join('\n') + '\n';
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd']) {
      const sent = await tool('kafka-console-producer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'keyed', '--property', 'parse.key=true', '--property', 'key.separator=:', '--compression-codec', codec, ...(codec === 'gzip' ? ['--sync'] : ['--request-required-acks', 'all'])], lines);
      expect(sent).toEqual({ code: 0, output: '' });
    }
    const before = await tool('kafka-console-consumer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'keyed', '--from-beginning', '--max-messages', '1200', '--property', 'print.key=true', '--property', 'print.offset=true']);
    const broker = cluster.broker(0);
    await broker.child.stop({ signal: 'SIGTERM', graceMs: 15000 });
    await cluster.startBroker(0);
    await cluster.waitForLeaders('keyed', 1);
    const after = await tool('kafka-console-consumer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'keyed', '--from-beginning', '--max-messages', '1200', '--property', 'print.key=true', '--property', 'print.offset=true']);
    // stdout and stderr arrive interleaved: compare the records, and the summary line on its own.
    const records = (text: string): string[] => text.split('\n').filter((l) => l !== '' && !l.startsWith('Processed a total'));
    expect(after.output).toContain('Processed a total of 1200 messages');
    expect(records(after.output)).toEqual(records(before.output));
    const rows = records(after.output);
    expect(rows).toHaveLength(1200);
    rows.forEach((row, i) => expect(row).toBe(`Offset:${i}\tk${(i % 300) % 7}\tv${i % 300}`));
    const more = await tool('kafka-console-producer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'keyed'], 'after-restart\n');
    expect(more.code).toBe(0);
    const last = await tool('kafka-console-consumer', ['--bootstrap-server', cluster.bootstrap, '--topic', 'keyed', '--partition', '0', '--offset', '1200', '--max-messages', '1', '--property', 'print.offset=true']);
    expect(last.output.split('\n')[0]).toBe('Offset:1200\tafter-restart');
  });

  it('exits non-zero with the error when sends fail, and refuses bad arguments with one line', async () => {
    const dead = await freePort();
    const failed = await tool('kafka-console-producer', ['--broker-list', `127.0.0.1:${dead}`, '--topic', 'x', '--producer-property', 'delivery.timeout.ms=2000'], 'lost\n');
    expect(failed.code).not.toBe(0);
    expect(failed.output).toMatch(/Error when sending message to topic x with key: null, value: 4 bytes with error:/);
    const noTopic = await tool('kafka-console-producer', ['--broker-list', cluster.bootstrap]);
    expect(noTopic.code).toBe(1);
    expect(noTopic.output.trim().split('\n')).toHaveLength(1);
    const badAcks = await tool('kafka-console-producer', ['--broker-list', cluster.bootstrap, '--topic', 't', '--request-required-acks', '2']);
    expect(badAcks).toEqual({ code: 1, output: 'Invalid --request-required-acks 2: expected 0, 1, -1 or all' });
    const badList = await tool('kafka-console-consumer', ['--bootstrap-server', 'nohost', '--topic', 't']);
    expect(badList).toEqual({ code: 1, output: 'Invalid --bootstrap-server nohost: expected host:port[,host:port...]' });
  });
});
