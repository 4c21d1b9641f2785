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

/** What a producer reported back: for each acknowledged message, its key and where it was written. */
interface Acked {
  key: string;
  partition: number;
  offset: number;
}

/** Per partition, how many of the COUNT messages (keys key-0..key-99, equally often) the Java partitioner sends there. */
function expectedCounts(expected: ReadonlyMap<string, number>): number[] {
  const counts = new Array<number>(PARTITIONS).fill(0);
  for (const p of expected.values()) counts[p] = (counts[p] ?? 0) + COUNT / expected.size;
  return counts;
}

/** Every message acknowledged once, on its key's partition, at offsets 0..n-1 of that partition. */
function checkAcked(acked: Acked[], expected: ReadonlyMap<string, number>): void {
  expect(acked).toHaveLength(COUNT);
  const byPartition = new Map<number, number[]>();
  for (const a of acked) {
    expect(a.partition).toBe(expected.get(a.key));
    byPartition.set(a.partition, [...(byPartition.get(a.partition) ?? []), a.offset]);
  }
  for (const [p, offsets] of byPartition) {
    offsets.sort((a, b) => a - b);
    expect(offsets).toEqual(Array.from({ length: expectedCounts(expected)[p] ?? 0 }, (_, i) => i));
  }
}

/** The end offset (high watermark) of each partition of `topic`, in partition order. */
async function endOffsets(bootstrap: string, topic: string): Promise<number[]> {
  const admin = new Kafka({ brokers: bootstrap.split(','), clientId: 'interop-admin', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.sort((a, b) => a.partition - b.partition).map((o) => Number(o.high));
  } finally {
    await admin.disconnect();
  }
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

  /**
   * The three ways of reading back what `producer` wrote. Each producer's describe produces in its own
   * beforeAll, so any one case runs alone (`-t 'kcat consumes what python produced'`).
   */
  function consumeCases(producer: string): void {
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

  describe('kafkajs', () => {
    const acked: Acked[] = [];

    beforeAll(async () => {
      const kafka = new Kafka({ brokers: cluster.bootstrap.split(','), clientId: 'interop', logLevel: logLevel.NOTHING });
      const producer = kafka.producer();
      await producer.connect();
      try {
        for (let i = 0; i < COUNT; i += 500) {
          const messages = Array.from({ length: 500 }, (_, j) => ({ key: `key-${(i + j) % 100}`, value: `kafkajs-${i + j}` }));
          const metadata = await producer.send({ topic: 'interop-kafkajs', acks: -1, messages });
          // One entry per partition written: its base offset; the batch's messages for that partition follow it in order.
          for (const m of metadata) {
            expect(m.errorCode).toBe(0);
            const keys = messages.map((msg) => msg.key).filter((k) => expected.get(k) === m.partition);
            keys.forEach((key, n) => acked.push({ key, partition: m.partition, offset: Number(m.baseOffset ?? m.offset) + n }));
          }
        }
      } finally {
        await producer.disconnect();
      }
    }, 120000);

    it('kafkajs produces with its default (Java-compatible) partitioner', async () => {
      checkAcked(acked, expected);
      expect(await endOffsets(cluster.bootstrap, 'interop-kafkajs')).toEqual(expectedCounts(expected));
    });

    consumeCases('kafkajs');
  });

  describe('kcat', () => {
    beforeAll(async () => {
      const lines = Array.from({ length: COUNT }, (_, i) => `key-${i % 100}:kcat-${i}`).join('\n') + '\n';
      await run('kcat', ['-b', cluster.bootstrap, '-P', '-t', 'interop-kcat', '-K', ':', '-X', 'partitioner=murmur2_random', '-X', 'linger.ms=5'], lines);
    }, 120000);

    it('kcat produces with the murmur2 partitioner', async () => {
      // kcat reports no offsets: each partition must end exactly where the Java partitioner's share of the keys puts it.
      expect(await endOffsets(cluster.bootstrap, 'interop-kcat')).toEqual(expectedCounts(expected));
    });

    consumeCases('kcat');
  });

  describe('kafka-python', () => {
    let acked: Acked[] = [];

    beforeAll(async () => {
      const script = [
        'from kafka import KafkaProducer',
        `p = KafkaProducer(bootstrap_servers='${cluster.bootstrap}', acks='all', linger_ms=5)`,
        `futures = [p.send('interop-python', key=('key-%d' % (i % 100)).encode(), value=('python-%d' % i).encode()) for i in range(${COUNT})]`,
        'p.flush()',
        'for i, f in enumerate(futures):',
        '    md = f.get(timeout=60)',
        "    print('key-%d' % (i % 100), md.partition, md.offset)",
      ].join('\n');
      const out = await run('/usr/bin/python3', ['-c', script]);
      acked = out.trim().split('\n').map((l) => {
        const [key, p, o] = l.split(' ');
        return { key: key as string, partition: Number(p), offset: Number(o) };
      });
    }, 120000);

    it('kafka-python produces with its default partitioner', async () => {
      checkAcked(acked, expected);
      expect(await endOffsets(cluster.bootstrap, 'interop-python')).toEqual(expectedCounts(expected));
    });

    consumeCases('python');
  });
});
