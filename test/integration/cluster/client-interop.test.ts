import fs from 'node:fs';
import path from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { BIN } from '../../helpers/broker-process';
import { spawnChild } from '../../helpers/child-processes';
import { TestCluster } from '../../helpers/test-cluster';
import { tmpDir } from '../../helpers/tmp-dir';
import { DefaultPartitioner } from '../../../src/client/default-partitioner';

const COUNT = 10000;
const PARTITIONS = 4;

interface Consumed {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

async function run(command: string, args: string[], input?: string): Promise<string> {
  const dir = tmpDir('interop-');
  const stdinFile = path.join(dir, 'stdin');
  if (input !== undefined) fs.writeFileSync(stdinFile, input);
  const child = spawnChild('/bin/sh', ['-c', `exec "$0" "$@" < ${input === undefined ? '/dev/null' : stdinFile}`, command, ...args]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`${command} failed (${JSON.stringify(exit)}):\n${child.tail()}`);
  return child.output();
}

/** Checks what the issue asks: nothing missing, per-partition order kept and offsets contiguous. */
function checkConsumed(records: Consumed[], producer: string): Map<string, number> {
  expect(records).toHaveLength(COUNT);
  const keyPartition = new Map<string, number>();
  const byPartition = new Map<number, Consumed[]>();
  for (const r of records) {
    const list = byPartition.get(r.partition) ?? [];
    list.push(r);
    byPartition.set(r.partition, list);
    const seen = keyPartition.get(r.key);
    if (seen !== undefined) expect(seen).toBe(r.partition);
    keyPartition.set(r.key, r.partition);
  }
  for (const list of byPartition.values()) {
    list.sort((a, b) => a.offset - b.offset);
    list.forEach((r, i) => expect(r.offset).toBe(i));
    const sequence = list.map((r) => Number(r.value.slice(producer.length + 1)));
    expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
  }
  expect(new Set(records.map((r) => r.value)).size).toBe(COUNT);
  return keyPartition;
}

describe('real clients produce 10,000 keyed messages each and read them back', () => {
  let cluster: TestCluster;
  const expected = new Map<string, number>();

  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 1 });
    const partitioner = new DefaultPartitioner();
    for (let k = 0; k < 100; k++) expected.set(`key-${k}`, partitioner.partition(Buffer.from(`key-${k}`), PARTITIONS));
    for (const client of ['kafkajs', 'kcat', 'python']) {
      const child = spawnChild(BIN('kafka-topics'), ['--zookeeper', cluster.zkConnect, '--create', '--topic', `interop-${client}`, '--partitions', String(PARTITIONS), '--replication-factor', '1']);
      expect((await child.exited).code).toBe(0);
      await cluster.waitForLeaders(`interop-${client}`, PARTITIONS);
    }
  }, 120000);

  afterAll(async () => cluster?.close());

  it('kafkajs produces with its default (Java-compatible) partitioner', async () => {
    const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'interop', logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    for (let i = 0; i < COUNT; i += 500) {
      const messages = Array.from({ length: 500 }, (_, j) => ({ key: `key-${(i + j) % 100}`, value: `kafkajs-${i + j}` }));
      await producer.send({ topic: 'interop-kafkajs', acks: -1, messages });
    }
    await producer.disconnect();
  });

  it('kcat produces with the murmur2 partitioner', async () => {
    const lines = Array.from({ length: COUNT }, (_, i) => `key-${i % 100}:kcat-${i}`).join('\n') + '\n';
    await run('kcat', ['-b', cluster.bootstrap, '-P', '-t', 'interop-kcat', '-K', ':', '-X', 'partitioner=murmur2_random', '-X', 'linger.ms=5'], lines);
  });

  it('kafka-python produces with its default partitioner', async () => {
    const script = [
      'from kafka import KafkaProducer',
      `p = KafkaProducer(bootstrap_servers='${cluster.bootstrap}', acks='all', linger_ms=5)`,
      `for i in range(${COUNT}):`,
      "    p.send('interop-python', key=('key-%d' % (i % 100)).encode(), value=('python-%d' % i).encode())",
      'p.flush()',
    ].join('\n');
    await run('/usr/bin/python3', ['-c', script]);
  });

  for (const producer of ['kafkajs', 'kcat', 'python']) {
    it(`kcat consumes what ${producer} produced`, async () => {
      const out = await run('kcat', ['-b', cluster.bootstrap, '-C', '-t', `interop-${producer}`, '-o', 'beginning', '-e', '-q', '-f', '%p %o %k %s\\n']);
      const records = out.trim().split('\n').map((l) => {
        const [p, o, k, v] = l.split(' ');
        return { partition: Number(p), offset: Number(o), key: k as string, value: v as string };
      });
      const keys = checkConsumed(records, producer);
      for (const [k, p] of keys) expect(p).toBe(expected.get(k));
    });

    it(`a kafkajs consumer group consumes what ${producer} produced`, async () => {
      const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'interop', logLevel: logLevel.NOTHING });
      const consumer = kafka.consumer({ groupId: `interop-${producer}`, sessionTimeout: 10000 });
      await consumer.connect();
      await consumer.subscribe({ topic: `interop-${producer}`, fromBeginning: true });
      const records: Consumed[] = [];
      let finish: () => void = () => undefined;
      const done = new Promise<void>((resolve) => (finish = resolve));
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          records.push({ partition, offset: Number(message.offset), key: message.key?.toString() ?? '', value: message.value?.toString() ?? '' });
          if (records.length === COUNT) finish();
        },
      });
      const timer = setTimeout(finish, 60000);
      await done;
      clearTimeout(timer);
      await consumer.disconnect();
      const keys = checkConsumed(records, producer);
      for (const [k, p] of keys) expect(p).toBe(expected.get(k));
    });

    it(`kafka-python consumes what ${producer} produced`, async () => {
      const script = [
        'from kafka import KafkaConsumer, TopicPartition',
        `c = KafkaConsumer(bootstrap_servers='${cluster.bootstrap}', consumer_timeout_ms=5000, enable_auto_commit=False)`,
        `tps = [TopicPartition('interop-${producer}', p) for p in range(${PARTITIONS})]`,
        'c.assign(tps)',
        'c.seek_to_beginning()',
        'n = 0',
        'for m in c:',
        "    print(m.partition, m.offset, m.key.decode(), m.value.decode())",
        '    n += 1',
        `    if n == ${COUNT}: break`,
      ].join('\n');
      const out = await run('/usr/bin/python3', ['-c', script]);
      const records = out.trim().split('\n').map((l) => {
        const [p, o, k, v] = l.split(' ');
        return { partition: Number(p), offset: Number(o), key: k as string, value: v as string };
      });
      const keys = checkConsumed(records, producer);
      for (const [k, p] of keys) expect(p).toBe(expected.get(k));
    });
  }
});
