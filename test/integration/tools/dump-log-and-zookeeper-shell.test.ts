import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { spawnChild } from '../../helpers/child-processes';
import { runTool } from '../../helpers/run-tool';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';

const TOPIC = 'dumped';
const ZK_CLI = '/usr/share/zookeeper/bin/zkCli.sh';

/** Debian's zkCli.sh (ZooKeeper's own CLI) one-shot, stdout only, when it is installed. */
async function zkCli(args: string[]): Promise<string | undefined> {
  if (!fs.existsSync(ZK_CLI)) return undefined;
  const child = spawnChild('/bin/sh', ['-c', '"$0" "$@" 2>/dev/null', ZK_CLI, ...args], { env: process.env });
  await child.exited;
  return child.output();
}

describe('kafka-dump-log on a real partition and zookeeper-shell on the cluster\'s ZooKeeper', () => {
  let cluster: TestCluster;
  let partitionDir: string;
  let zk: string;

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1 });
    zk = cluster.zkConnect;
    const kafka = new Kafka({ clientId: 'dump-log-test', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING });
    const admin = kafka.admin();
    await admin.connect();
    // Small segments and an index entry per batch: the first segment is rolled, so its indexes are on disk.
    await admin.createTopics({
      topics: [{ topic: TOPIC, numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'segment.bytes', value: '400' }, { name: 'index.interval.bytes', value: '1' }] }],
      waitForLeaders: true,
    });
    await admin.disconnect();
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < 8; i++) await producer.send({ topic: TOPIC, acks: -1, messages: [{ key: `k${i}`, value: `value-${i}`, timestamp: String(1_700_000_000_000 + i) }, { key: `k${i}b`, value: `value-${i}b`, timestamp: String(1_700_000_000_000 + i) }] });
    await producer.disconnect();
    partitionDir = path.join(cluster.broker(0).logDirs[0]!, `${TOPIC}-0`);
    await waitUntil(() => fs.readdirSync(partitionDir).filter((f) => f.endsWith('.log')).length >= 2, { message: 'a rolled segment' });
  }, 120000);

  afterAll(async () => {
    await cluster?.close();
  });

  const seg = (suffix: string): string => path.join(partitionDir, `00000000000000000000${suffix}`);

  it('dumps the first segment shallow, deep and with data', async () => {
    const shallow = await runTool('kafka-dump-log', ['--files', seg('.log')]);
    expect(shallow.code).toBe(0);
    const lines = shallow.output.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual([`Dumping ${seg('.log')}`, 'Starting offset: 0']);
    expect(lines[2]).toMatch(
      /^baseOffset: 0 lastOffset: 1 count: 2 baseSequence: -?\d+ lastSequence: -?\d+ producerId: -?\d+ producerEpoch: -?\d+ partitionLeaderEpoch: 0 isTransactional: false isControl: false position: 0 CreateTime: 1700000000000 size: \d+ magic: 2 compresscodec: NONE crc: \d+ isvalid: true$/,
    );
    expect(lines.every((l) => !l.startsWith('|'))).toBe(true);
    const deep = await runTool('kafka-dump-log', ['--files', seg('.log'), '--deep-iteration']);
    expect(deep.output).toMatch(/^\| offset: 1 CreateTime: 1700000000000 keySize: 3 valueSize: 8 sequence: -?\d+ headerKeys: \[\]$/m);
    const data = await runTool('kafka-dump-log', ['--files', seg('.log'), '--print-data-log']);
    expect(data.output).toMatch(/^\| offset: 0 CreateTime: 1700000000000 keySize: 2 valueSize: 7 sequence: -?\d+ headerKeys: \[\] key: k0 payload: value-0$/m);
  }, 60000);

  it('dumps and verifies the offset and time indexes', async () => {
    const run = await runTool('kafka-dump-log', ['--files', `${seg('.index')},${seg('.timeindex')}`]);
    expect(run.code).toBe(0);
    const lines = run.output.trim().split('\n');
    expect(lines[0]).toBe(`Dumping ${seg('.index')}`);
    expect(lines.filter((l) => /^offset: \d+ position: \d+$/.test(l)).length).toBeGreaterThan(0);
    expect(lines).toContain(`Dumping ${seg('.timeindex')}`);
    expect(lines.filter((l) => /^timestamp: \d+ offset: \d+$/.test(l)).length).toBeGreaterThan(0);
    expect(run.output).not.toMatch(/Mismatches|mismatch|not found/);
    const verify = await runTool('kafka-dump-log', ['--files', `${seg('.index')},${seg('.timeindex')}`, '--verify-index-only']);
    expect(verify.code).toBe(0);
    expect(verify.output.trim().split('\n')).toEqual([`Dumping ${seg('.index')}`, `Dumping ${seg('.timeindex')}`]);
    const sanity = await runTool('kafka-dump-log', ['--files', seg('.index'), '--index-sanity-check']);
    expect(sanity.output.trim().split('\n')).toEqual([`Dumping ${seg('.index')}`, `${seg('.index')} passed sanity check.`]);
  }, 60000);

  it('zookeeper-shell one-shot: ls /brokers/ids and get /brokers/ids/0, as zkCli.sh prints them', async () => {
    const ls = await runTool('zookeeper-shell', [zk, 'ls', '/brokers/ids']);
    expect(ls.code).toBe(0);
    expect(ls.output).toBe(`Connecting to ${zk}\n\nWATCHER::\n\nWatchedEvent state:SyncConnected type:None path:null\n[0]`);
    const get = await runTool('zookeeper-shell', [zk, 'get', '/brokers/ids/0']);
    expect(get.code).toBe(0);
    const registration = get.output.trim().split('\n').at(-1)!;
    expect(JSON.parse(registration)).toMatchObject({ port: cluster.broker(0).port, version: 5 });
    const theirs = await zkCli(['-server', zk, 'ls', '/brokers/ids']);
    if (theirs !== undefined) expect(theirs.trim().split('\n').slice(-4)).toEqual(ls.output.trim().split('\n').slice(-4));
    const missing = await runTool('zookeeper-shell', [zk, 'get', '/nope']);
    expect(missing.code).toBe(1);
    expect(missing.output.trim().split('\n').at(-1)).toBe('Node does not exist: /nope');
  }, 60000);

  it('zookeeper-shell interactive: commands from stdin', async () => {
    const input = ['create /shell hello', 'create /shell', 'ls /shell', 'create -s /shell/q x', 'ls -R /shell', 'set /shell world', 'get /shell', 'getAcl /shell', 'delete /shell', 'deleteall /shell', 'stat /shell', 'quit', ''].join('\n');
    const run = await runTool('zookeeper-shell', [zk], { input });
    expect(run.code).toBe(0);
    const lines = run.output.split('\n');
    expect(lines.slice(0, 7)).toEqual([`Connecting to ${zk}`, 'Welcome to ZooKeeper!', 'JLine support is disabled', '', 'WATCHER::', '', 'WatchedEvent state:SyncConnected type:None path:null']);
    for (const l of ['Created /shell', 'Node already exists: /shell', '[]', 'Created /shell/q0000000000', '/shell', '/shell/q0000000000', 'world', "'world,'anyone", ': cdrwa', 'Node not empty: /shell', 'Node does not exist: /shell']) {
      expect(lines).toContain(l);
    }
    expect(lines.slice(-4)).toEqual(['', 'WATCHER::', '', 'WatchedEvent state:Closed type:None path:null']);
  }, 60000);
});
