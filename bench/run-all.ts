/*
 * `npm run bench`: every throughput and latency case of docs/benchmarks.md in one process tree on this machine,
 * next to the physical limit (plain file appends of the same bytes). Starts what it needs: a real ZooKeeper,
 * broker processes, kcat. Prints one `bench <case> <metric>=<n> ...` line per case and rewrites the
 * "Cluster" section of docs/benchmarks.md. Sizes come from environment variables so a quick run is possible:
 * BENCH_RECORDS (default 2000000), BENCH_SUSTAIN_S (default 300), BENCH_BIG_LOG_GB (default 20); BENCH_CASES
 * picks cases for a partial run, which does not touch the docs.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerProcess, BIN } from '../test/helpers/broker-process';
import { spawnChild } from '../test/helpers/child-processes';
import { startZkStandalone, ZkEnsemble, uniqueChroot } from '../test/helpers/zk-ensemble';
import { tmpDir } from '../test/helpers/tmp-dir';
import { landedRecords } from '../test/helpers/cluster-state';
import { runProducerPerformance } from '../src/tools/producer-performance';
import { runConsumerPerformance } from '../src/tools/consumer-performance';
import { freePort } from '../test/helpers/free-port';

import { loopbackRates } from './loopback-anchor';
import { natsJetStream, redisStreams } from './peers';
import { transactionalProduce } from './transactional-produce';

const RECORDS = Number(process.env['BENCH_RECORDS'] ?? 2000000);
const SUSTAIN_S = Number(process.env['BENCH_SUSTAIN_S'] ?? 300);
const BIG_LOG_GB = Number(process.env['BENCH_BIG_LOG_GB'] ?? 20);
const RECORD_SIZE = 100;
/** BENCH_CASES=produce,idempotent,transactional,consume,kcat,kafkajs,e2e,biglog,sustain,rf3,metrics,peers runs only those (default: all). */
const CASES = new Set((process.env['BENCH_CASES'] ?? 'raw,produce,idempotent,transactional,consume,kcat,kafkajs,e2e,biglog,sustain,rf3,large,fsync,rf3large,metrics,peers').split(',').map((c) => c.trim()));
/** Issue 13's large-record cases: BENCH_LARGE_RECORDS records of 1 KiB (default 500000: 488 MiB). */
const LARGE_RECORDS = Number(process.env['BENCH_LARGE_RECORDS'] ?? 500000);
const LARGE_SIZE = 1024;
/** The flush.messages=1 case: fewer records, each produce request waits for an fsync. */
const DURABLE_RECORDS = Number(process.env['BENCH_DURABLE_RECORDS'] ?? 100000);
const want = (c: string): boolean => CASES.has(c);

interface Result {
  name: string;
  metrics: Record<string, number>;
  note?: string;
}

const results: Result[] = [];

function report(name: string, metrics: Record<string, number>, note?: string): void {
  results.push({ name, metrics, ...(note ? { note } : {}) });
  const fields = Object.entries(metrics).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(k === 'ratio' || k === 'goal' ? 3 : k.endsWith('ms') ? 2 : 1)}`);
  process.stdout.write(`bench ${name} ${fields.join(' ')}\n`);
}

function quiet(): (line: string) => void {
  return () => undefined;
}

async function topics(zkConnect: string, ...args: string[]): Promise<void> {
  const child = spawnChild(BIN('kafka-topics'), ['--zookeeper', zkConnect, ...args]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`kafka-topics ${args.join(' ')} failed:\n${child.tail()}`);
}

/** The physical limit for produce: the same bytes appended sequentially to one file, 64 KiB at a time. */
function rawAppend(dir: string): void {
  const file = path.join(dir, 'raw.bin');
  const chunk = Buffer.alloc(64 * 1024, 65);
  const total = RECORDS * (RECORD_SIZE + 20);
  const fd = fs.openSync(file, 'w');
  const start = process.hrtime.bigint();
  for (let written = 0; written < total; written += chunk.length) fs.writeSync(fd, chunk);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  fs.closeSync(fd);
  fs.rmSync(file);
  report('raw_append', { records_per_s: Math.round(RECORDS / seconds), mb_per_s: total / seconds / 1048576 });
}

/**
 * Records that landed in `topic` (ListOffsets, every partition's leader): every produce figure is followed by
 * it, so that a rate is never reported for records the broker did not keep.
 */
function landed(bootstrap: string, topic: string): Promise<number> {
  const ports = bootstrap.split(',').map((hp) => Number(hp.slice(hp.lastIndexOf(':') + 1)));
  // Brokers are started with ids 0..n-1 in bootstrap order.
  return landedRecords(topic, ports[0] as number, (id) => ports[id] as number);
}

async function producePerf(name: string, bootstrap: string, topic: string, props: string[], records = RECORDS, throughput = -1, size = RECORD_SIZE): Promise<Record<string, number>> {
  const before = await landed(bootstrap, topic);
  const r = await runProducerPerformance(
    { topic, numRecords: String(records), recordSize: String(size), payloadDelimiter: '\n', throughput: String(throughput), producerProps: [`bootstrap.servers=${bootstrap}`, ...props] },
    quiet(),
  );
  const got = (await landed(bootstrap, topic)) - before;
  const command = `kafka-producer-perf-test --topic ${topic} --num-records ${records} --record-size ${size} --throughput ${throughput} --producer-props ${props.join(' ')}`;
  const metrics = { records_per_s: Math.round(r.recordsPerSec), mb_per_s: r.mbPerSec, landed: got };
  report(name, metrics, `${command}; ${got === records ? 'all landed' : `ONLY ${got} of ${records} landed`}`);
  return metrics;
}

/**
 * The machine's rates for the same bytes as a large-record case, measured in the same run: sequential 64 KiB
 * appends to one file (page cache, no fsync) and sequential 1 MiB reads of it back (page cache).
 */
function rawPageCache(dir: string, bytes: number): { appendMbS: number; readMbS: number } {
  const file = path.join(dir, 'raw-large.bin');
  const chunk = Buffer.alloc(64 * 1024, 66);
  const fd = fs.openSync(file, 'w+');
  try {
    let start = process.hrtime.bigint();
    for (let written = 0; written < bytes; written += chunk.length) fs.writeSync(fd, chunk);
    const appendS = Number(process.hrtime.bigint() - start) / 1e9;
    const buf = Buffer.alloc(1024 * 1024);
    start = process.hrtime.bigint();
    for (let pos = 0; pos < bytes; pos += buf.length) fs.readSync(fd, buf, 0, buf.length, pos);
    const readS = Number(process.hrtime.bigint() - start) / 1e9;
    return { appendMbS: bytes / appendS / 1048576, readMbS: bytes / readS / 1048576 };
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

/** A raw write+fdatasync loop of `chunkBytes` writes: the disk's rate for acknowledging after every fsync. */
function rawFsync(dir: string, chunkBytes: number, chunks: number): number {
  const file = path.join(dir, 'raw-fsync.bin');
  const chunk = Buffer.alloc(chunkBytes, 67);
  const fd = fs.openSync(file, 'w');
  try {
    const start = process.hrtime.bigint();
    for (let i = 0; i < chunks; i++) {
      fs.writeSync(fd, chunk);
      fs.fdatasyncSync(fd);
    }
    return chunks / (Number(process.hrtime.bigint() - start) / 1e9);
  } finally {
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
  }
}

function ratioReport(name: string, value: number, anchor: number, goal: number, what: string): void {
  const ratio = value / anchor;
  report(name, { value: Number(value.toFixed(1)), anchor: Number(anchor.toFixed(1)), ratio: Number(ratio.toFixed(3)), goal }, `${what}; goal ratio ≥ ${goal}: ${ratio >= goal ? 'met' : 'missed'}`);
}

async function kcatProduce(bootstrap: string, topic: string, dir: string): Promise<void> {
  const file = path.join(dir, 'kcat-input.txt');
  const line = 'x'.repeat(RECORD_SIZE) + '\n';
  const n = Math.min(RECORDS, 2000000);
  fs.writeFileSync(file, line.repeat(n));
  const args = ['-b', bootstrap, '-P', '-t', topic, '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-l', file];
  const before = await landed(bootstrap, topic);
  const start = Date.now();
  execFileSync('kcat', args, { stdio: 'ignore' });
  const seconds = (Date.now() - start) / 1000;
  const got = (await landed(bootstrap, topic)) - before;
  const version = execFileSync('kcat', ['-V'], { encoding: 'utf8' }).split('\n')[0]?.trim() ?? 'kcat';
  report('produce_kcat', { records_per_s: Math.round(n / seconds), mb_per_s: (n * RECORD_SIZE) / seconds / 1048576, landed: got }, `${version}: kcat ${args.join(' ').replace(file, '<file of ' + n + ' lines>')}; wall time of the whole process (start, metadata, produce, flush at exit); ${got === n ? 'all landed' : `ONLY ${got} of ${n} landed`}`);
}

async function kafkajsProduce(bootstrap: string, topic: string): Promise<void> {
  const kafka = new Kafka({ brokers: bootstrap.split(','), clientId: 'bench', logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  await producer.connect();
  const n = Math.min(RECORDS, 500000);
  const value = Buffer.alloc(RECORD_SIZE, 120);
  const batch = Array.from({ length: 1000 }, () => ({ value }));
  const start = Date.now();
  const inFlight: Promise<unknown>[] = [];
  for (let i = 0; i < n; i += 1000) {
    inFlight.push(producer.send({ topic, acks: 1, messages: batch }));
    if (inFlight.length >= 20) await inFlight.shift();
  }
  await Promise.all(inFlight);
  const seconds = (Date.now() - start) / 1000;
  await producer.disconnect();
  const got = await landed(bootstrap, topic);
  report('produce_kafkajs', { records_per_s: Math.round(n / seconds), mb_per_s: (n * RECORD_SIZE) / seconds / 1048576, landed: got }, `kafkajs producer.send of 1,000-record batches, acks=1, 20 in flight; ${got === n ? 'all landed' : `ONLY ${got} of ${n} landed`}`);
}

/**
 * The end-to-end case in a fresh process (bench/e2e-latency-main.ts), away from this harness's heap, with a
 * fixed-size heap as Kafka gives its JVMs (-Xms): with V8's default old-generation limit for a small heap, the
 * objects that survive two scavenges filled it every ~300 ms, and those full collections (5-9 ms) were the p99.
 * E2E_NODE_OPTS replaces the flags.
 */
function e2eLatencyInChild(bootstrap: string, topic: string, rate: number, seconds: number): Record<string, number> {
  const flags = (process.env['E2E_NODE_OPTS'] ?? '--initial-old-space-size=256').split(' ').filter(Boolean);
  const out = execFileSync(process.execPath, [...flags, '--import', 'tsx', path.join(__dirname, 'e2e-latency-main.ts'), bootstrap, topic, String(rate), String(seconds)], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<string, number>;
}

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function sustained(broker: BrokerProcess, bootstrap: string, topic: string): Promise<void> {
  const samples: number[] = [];
  const timer = setInterval(() => samples.push(rssMb(broker.pid)), 5000);
  const rate = 100000;
  await producePerf('sustained_produce', bootstrap, topic, ['acks=1', 'batch.size=65536', 'linger.ms=5'], rate * SUSTAIN_S, rate);
  clearInterval(timer);
  const first = samples.slice(0, Math.max(1, Math.floor(samples.length / 4)));
  const last = samples.slice(-Math.max(1, Math.floor(samples.length / 4)));
  const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  report('broker_rss', { max_mb: Math.max(...samples, 0), first_quarter_mb: avg(first), last_quarter_mb: avg(last), seconds: SUSTAIN_S });
}

/** Three brokers (min.insync.replicas=2) in a fresh chroot with `topic` (6 partitions, RF 3), stopped after `run`. */
async function onThreeBrokers(zk: ZkEnsemble, topic: string, run: (bootstrap: string) => Promise<unknown>): Promise<void> {
  const connect = zk.connectStringWithChroot(uniqueChroot(`bench-${topic}`));
  const three = await Promise.all([0, 1, 2].map((id) => BrokerProcess.start({ brokerId: id, zkConnect: connect, props: { 'min.insync.replicas': '2' } })));
  try {
    await topics(connect, '--create', '--topic', topic, '--partitions', '6', '--replication-factor', '3');
    await run(three.map((b) => `127.0.0.1:${b.port}`).join(','));
  } finally {
    await Promise.all(three.map((b) => b.child.stop()));
  }
}

/**
 * Issue 17's cost of metrics: the same produce and consume on a fresh broker without and with kafka.metrics.port
 * (scraped every second meanwhile, as a Prometheus with a short interval would), each in its own chroot. Goal:
 * metrics on within 3 % of off. The modes run in the order off, on, on, off (BENCH_METRICS_ROUNDS pairs,
 * default 2) so that neither gains from going second, and each mode's figure is the mean of its runs.
 * BENCH_METRICS_RECORDS sizes each run (default BENCH_RECORDS).
 */
async function metricsCost(zk: ZkEnsemble): Promise<void> {
  const records = Number(process.env['BENCH_METRICS_RECORDS'] ?? RECORDS);
  const rounds = Number(process.env['BENCH_METRICS_ROUNDS'] ?? 2);
  const runs: Record<'off' | 'on', { produce: number[]; consume: number[] }> = { off: { produce: [], consume: [] }, on: { produce: [], consume: [] } };
  const order = Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const))).flat();
  for (const [i, mode] of order.entries()) {
    const connect = zk.connectStringWithChroot(uniqueChroot(`bench-metrics-${mode}-${i}`));
    const metricsPort = mode === 'on' ? await freePort() : 0;
    const broker = await BrokerProcess.start({ brokerId: 0, zkConnect: connect, props: { 'num.partitions': '6', 'kafka.metrics.port': String(metricsPort) } });
    // A separate process, as Prometheus is: a scrape parsed in this one would take time from the measured clients.
    const scraper = mode === 'on' ? spawnChild(process.execPath, ['-e', `setInterval(() => fetch('http://127.0.0.1:${metricsPort}/metrics').then((r) => r.text()).catch(() => undefined), 1000)`], { name: 'scraper' }) : undefined;
    try {
      const bootstrap = `127.0.0.1:${broker.port}`;
      await topics(connect, '--create', '--topic', 'perf-metrics', '--partitions', '6', '--replication-factor', '1');
      const produced = await producePerf(`produce_metrics_${mode}`, bootstrap, 'perf-metrics', ['acks=1', 'batch.size=65536', 'linger.ms=5'], records);
      runs[mode].produce.push(produced['records_per_s'] as number);
      const consumed = await runConsumerPerformance({ bootstrapServer: bootstrap, topic: 'perf-metrics', messages: String(records), fetchSize: '1048576', timeout: '10000' }, quiet(), quiet());
      runs[mode].consume.push(Math.round(consumed.recordsPerSec));
      report(`consume_metrics_${mode}`, { records_per_s: Math.round(consumed.recordsPerSec), mb_per_s: consumed.mbPerSec });
    } finally {
      await scraper?.stop();
      await broker.child.stop();
    }
  }
  const mean = (xs: number[]): number => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  ratioReport('produce_metrics_on_vs_off', mean(runs.on.produce), mean(runs.off.produce), 0.97, 'records/s produced with kafka.metrics.port set (scraped each second) against without');
  ratioReport('consume_metrics_on_vs_off', mean(runs.on.consume), mean(runs.off.consume), 0.97, 'records/s consumed with kafka.metrics.port set (scraped each second) against without');
}

async function main(): Promise<void> {
  execFileSync('bash', [path.join(__dirname, '..', 'scripts', 'ensure-system-packages.sh'), 'zookeeper', 'kcat', 'redis-server', 'nats-server'], { stdio: 'inherit' });
  const dir = tmpDir('bench-');
  if (want('raw')) rawAppend(dir);
  const zk: ZkEnsemble = await startZkStandalone();
  try {
    const connect = zk.connectStringWithChroot(uniqueChroot('bench'));
    // One broker: __transaction_state (the transactional case) cannot have Kafka's default 3 replicas here.
    const props = { 'num.partitions': '6', 'log.segment.bytes': '1073741824', 'log.retention.bytes': '-1', 'transaction.state.log.replication.factor': '1', 'transaction.state.log.min.isr': '1' };
    const broker = await BrokerProcess.start({ brokerId: 0, zkConnect: connect, props });
    const bootstrap = `127.0.0.1:${broker.port}`;
    for (const t of ['perf', 'perf-idempotent', 'perf-transactional', 'kcat', 'kafkajs', 'e2e', 'sustain', 'empty', 'big']) await topics(connect, '--create', '--topic', t, '--partitions', '6', '--replication-factor', '1');
    const plain = want('produce') || want('consume') ? await producePerf('produce_1broker', bootstrap, 'perf', ['acks=1', 'batch.size=65536', 'linger.ms=5']) : undefined;
    if (want('idempotent')) {
      // The same case with enable.idempotence (acks=all, which one broker answers as acks=1 does): producer ids,
      // sequences and the broker's duplicate check per batch. Goal: within 10 % of plain.
      const idem = await producePerf('produce_1broker_idempotent', bootstrap, 'perf-idempotent', ['acks=all', 'enable.idempotence=true', 'batch.size=65536', 'linger.ms=5']);
      if (plain !== undefined) ratioReport('produce_idempotent_vs_plain', idem['records_per_s'] as number, plain['records_per_s'] as number, 0.9, 'records/s of the idempotent producer against the plain produce case');
    }
    if (want('transactional')) {
      // The same records in transactions of 1,000 (begin, send, commit): a coordinator round trip and a COMMIT
      // marker per partition per transaction on top of the idempotent producer's work.
      const before = await landed(bootstrap, 'perf-transactional');
      const t = await transactionalProduce(bootstrap, 'perf-transactional', RECORDS, RECORD_SIZE, 1000);
      const got = (await landed(bootstrap, 'perf-transactional')) - before;
      // Offsets also count the markers: one per partition per transaction (keyless records reach all 6).
      const expected = RECORDS + t.transactions * 6;
      const metrics = { records_per_s: Math.round(t.recordsPerSec), mb_per_s: t.mbPerSec, transactions: t.transactions, landed_offsets: got, ...(plain === undefined ? {} : { ratio: t.recordsPerSec / (plain['records_per_s'] as number) }) };
      report('produce_1broker_transactional', metrics, `transactional.id producer, ${RECORDS} records of ${RECORD_SIZE} B in transactions of 1000, batch.size=65536 linger.ms=5; ${got === expected ? 'all landed (records + markers)' : `${got} offsets landed, expected ${expected} (records + markers)`}`);
    }
    if (want('consume')) {
      const consumed = await runConsumerPerformance({ bootstrapServer: bootstrap, topic: 'perf', messages: String(RECORDS), fetchSize: '1048576', timeout: '10000' }, quiet(), quiet());
      report('consume_1broker', { records_per_s: Math.round(consumed.recordsPerSec), mb_per_s: consumed.mbPerSec });
    }
    if (want('kcat')) await kcatProduce(bootstrap, 'kcat', dir);
    if (want('kafkajs')) await kafkajsProduce(bootstrap, 'kafkajs');
    if (want('e2e')) report('e2e_latency_50k', e2eLatencyInChild(bootstrap, 'e2e', 50000, 20));
    if (want('biglog')) {
      await producePerf('produce_empty_log', bootstrap, 'empty', ['acks=1', 'batch.size=65536', 'linger.ms=5']);
      const bigRecords = Math.round((BIG_LOG_GB * 1024 * 1024 * 1024) / 1000);
      const fill = await runProducerPerformance({ topic: 'big', numRecords: String(bigRecords), recordSize: '1000', payloadDelimiter: '\n', throughput: '-1', producerProps: [`bootstrap.servers=${bootstrap}`, 'acks=1', 'batch.size=900000', 'linger.ms=10'] }, quiet());
      report('fill_big_log', { gb: BIG_LOG_GB, mb_per_s: fill.mbPerSec });
      // Let the kernel write back the fill first: the question is whether the log's size costs anything, not
      // whether 20 GB of dirty page cache still being flushed does.
      execFileSync('sync');
      await producePerf('produce_big_log', bootstrap, 'big', ['acks=1', 'batch.size=65536', 'linger.ms=5']);
    }
    if (want('sustain')) await sustained(broker, bootstrap, 'sustain');
    if (want('metrics')) await metricsCost(zk);
    if (want('large')) {
      // 1 KiB records, acks=1, one broker: produce and consume MB/s against the raw page-cache rates of the same bytes.
      await topics(connect, '--create', '--topic', 'large', '--partitions', '6', '--replication-factor', '1');
      const raw = rawPageCache(dir, LARGE_RECORDS * LARGE_SIZE);
      const produced = await producePerf('produce_1kib', bootstrap, 'large', ['acks=1', 'batch.size=262144', 'linger.ms=5'], LARGE_RECORDS, -1, LARGE_SIZE);
      const consumed = await runConsumerPerformance({ bootstrapServer: bootstrap, topic: 'large', messages: String(LARGE_RECORDS), fetchSize: '4194304', timeout: '10000' }, quiet(), quiet());
      report('consume_1kib', { records_per_s: Math.round(consumed.recordsPerSec), mb_per_s: consumed.mbPerSec });
      ratioReport('produce_1kib_vs_raw_append', produced['mb_per_s'] as number, raw.appendMbS, 0.6, 'MB/s of 1 KiB records against sequential 64 KiB page-cache appends of as many bytes');
      ratioReport('consume_1kib_vs_raw_read', consumed.mbPerSec, raw.readMbS, 0.7, 'MB/s against sequential 1 MiB page-cache reads of as many bytes');
      // What bounds the two above: the same bytes between two processes over loopback TCP, with no protocol at all.
      const loop = await loopbackRates(dir, LARGE_RECORDS * LARGE_SIZE);
      report('raw_loopback', { discard_mb_per_s: loop.discardMbS, append_mb_per_s: loop.appendMbS, file_read_mb_per_s: loop.readMbS }, 'one socket between two processes, 256 KiB writes: into a receiver that drops the bytes, into one that appends them to a file, and from a sender that reads them from a file');
      report('produce_1kib_vs_raw_loopback_append', { value: produced['mb_per_s'] as number, anchor: Number(loop.appendMbS.toFixed(1)), ratio: Number(((produced['mb_per_s'] as number) / loop.appendMbS).toFixed(3)) }, 'the produce figure against loopback TCP into a file, the most any broker on this machine could take');
      report('consume_1kib_vs_raw_loopback_read', { value: consumed.mbPerSec, anchor: Number(loop.readMbS.toFixed(1)), ratio: Number((consumed.mbPerSec / loop.readMbS).toFixed(3)) }, 'the consume figure against a file read out over loopback TCP, the most any broker on this machine could serve');
    }
    if (want('fsync')) {
      // flush.messages=1: every append is fsynced before it is acknowledged; group commit shares one fsync among
      // the appends that arrive during the previous one.
      await topics(connect, '--create', '--topic', 'durable', '--partitions', '6', '--replication-factor', '1', '--config', 'flush.messages=1');
      const batch = 16384;
      const durable = await producePerf('produce_flush_messages_1', bootstrap, 'durable', ['acks=1', `batch.size=${batch}`, 'linger.ms=0'], DURABLE_RECORDS, -1, LARGE_SIZE);
      const rawPerS = rawFsync(dir, batch, 2000);
      // The raw loop's records/s: a 16 KiB batch holds 16 records of 1 KiB.
      ratioReport('produce_flush_messages_1_vs_raw_fsync', durable['records_per_s'] as number, rawPerS * (batch / LARGE_SIZE), 0.7, `records/s with flush.messages=1 against a write+fdatasync loop of ${batch}-byte writes (the producer's batch.size), in records of 1 KiB`);
    }
    await broker.child.stop();
    if (want('rf3')) {
      await onThreeBrokers(zk, 'rf3', (bootstrap3) => producePerf('produce_rf3_acks_all', bootstrap3, 'rf3', ['acks=all', 'batch.size=65536', 'linger.ms=5']));
    }
    if (want('rf3large')) {
      await onThreeBrokers(zk, 'rf3large', async (bootstrap3) => {
        const raw = rawPageCache(dir, LARGE_RECORDS * LARGE_SIZE);
        const produced = await producePerf('produce_rf3_acks_all_1kib', bootstrap3, 'rf3large', ['acks=all', 'batch.size=262144', 'linger.ms=5'], LARGE_RECORDS, -1, LARGE_SIZE);
        ratioReport('produce_rf3_1kib_vs_raw_append', produced['mb_per_s'] as number, raw.appendMbS, 0.4, 'MB/s of 1 KiB records, RF 3 acks=all, against sequential page-cache appends of as many bytes (one copy)');
      });
    }
  } finally {
    await zk.close();
  }
  if (want('peers')) {
    const peerRecords = Math.min(RECORDS, 1000000);
    const redis = await redisStreams(peerRecords, RECORD_SIZE);
    if (redis) report('peer_redis_streams', { ...redis });
    else report('peer_redis_streams', {}, 'redis-server not installed (scripts/ensure-system-packages.sh redis-server)');
    const nats = await natsJetStream(Math.min(peerRecords, 300000), RECORD_SIZE);
    if (nats) report('peer_nats_jetstream', { ...nats });
    else report('peer_nats_jetstream', {}, 'nats-server not installed (scripts/ensure-system-packages.sh nats-server)');
  }
  // A partial run (BENCH_CASES) prints its lines but leaves the recorded full run in docs/benchmarks.md alone.
  if (process.env['BENCH_CASES'] === undefined) writeDoc();
}

function metric(name: string, key: string): number | undefined {
  return results.find((r) => r.name === name)?.metrics[key];
}

function fmt(n: number | undefined, digits = 0): string {
  return n === undefined ? 'n/a' : n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** One row per target of issue 8, judged from this run's figures only. */
function targetRows(): string[] {
  const state = (ok: boolean | undefined): string => (ok === undefined ? 'not measured' : ok ? 'met' : 'missed');
  const atLeast = (label: string, name: string, key: string, target: number): string => {
    const v = metric(name, key);
    return `| ${label} | ${fmt(v)} | ${state(v === undefined ? undefined : v >= target)} |`;
  };
  const produce = metric('produce_1broker', 'records_per_s');
  const empty = metric('produce_empty_log', 'records_per_s');
  const big = metric('produce_big_log', 'records_per_s');
  const p99 = metric('e2e_latency_50k', 'p99_ms');
  const rssMax = metric('broker_rss', 'max_mb');
  const rssFirst = metric('broker_rss', 'first_quarter_mb');
  const rssLast = metric('broker_rss', 'last_quarter_mb');
  const redis = metric('peer_redis_streams', 'records_per_s');
  const nats = metric('peer_nats_jetstream', 'records_per_s');
  const ratio = (peer: number | undefined): number | undefined => (produce === undefined || peer === undefined ? undefined : produce / peer);
  const drop = empty === undefined || big === undefined ? undefined : Math.abs(empty - big) / empty;
  const rssFlat = rssFirst === undefined || rssLast === undefined ? undefined : rssLast <= rssFirst * 1.1;
  return [
    atLeast('produce, 1 broker, perf tool ≥ 1,000,000 records/s', 'produce_1broker', 'records_per_s', 1000000),
    atLeast('produce through kcat ≥ 500,000 records/s', 'produce_kcat', 'records_per_s', 500000),
    atLeast('consume ≥ 2,000,000 records/s', 'consume_1broker', 'records_per_s', 2000000),
    atLeast('RF=3 acks=all ≥ 300,000 records/s', 'produce_rf3_acks_all', 'records_per_s', 300000),
    `| end-to-end p99 ≤ 5 ms at 50,000 records/s | p50 ${fmt(metric('e2e_latency_50k', 'p50_ms'), 2)} ms, p99 ${fmt(p99, 2)} ms, p99.9 ${fmt(metric('e2e_latency_50k', 'p999_ms'), 2)} ms | ${state(p99 === undefined ? undefined : p99 <= 5)} |`,
    `| produce within 15 % between an empty and a ${BIG_LOG_GB} GB log | ${fmt(empty)} vs ${fmt(big)} (${drop === undefined ? 'n/a' : `${(drop * 100).toFixed(1)} %`}) | ${state(drop === undefined ? undefined : drop <= 0.15 && BIG_LOG_GB >= 20)}${BIG_LOG_GB < 20 ? ' (log smaller than 20 GB)' : ''} |`,
    `| broker RSS ≤ 300 MB and flat over ${SUSTAIN_S} s | max ${fmt(rssMax, 1)} MB, first quarter ${fmt(rssFirst, 1)} MB, last quarter ${fmt(rssLast, 1)} MB | ${state(rssMax === undefined ? undefined : rssMax <= 300 && rssFlat === true && SUSTAIN_S >= 300)}${SUSTAIN_S < 300 ? ' (shorter than 5 minutes)' : ''} |`,
    `| ≥ 3× Redis Streams | ${fmt(produce)} / ${fmt(redis)} = ${fmt(ratio(redis), 2)}× | ${state(ratio(redis) === undefined ? undefined : (ratio(redis) as number) >= 3)} |`,
    `| ≥ 30× NATS JetStream | ${fmt(produce)} / ${fmt(nats)} = ${fmt(ratio(nats), 1)}× | ${state(ratio(nats) === undefined ? undefined : (ratio(nats) as number) >= 30)} |`,
  ];
}

function writeDoc(): void {
  const file = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const existing = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = existing.indexOf('## Cluster (npm run bench)');
  const before = start < 0 ? existing.trimEnd() + '\n\n' : existing.slice(0, start);
  const afterStart = start < 0 ? -1 : existing.indexOf('\n## ', start + 5);
  const after = afterStart < 0 ? '' : existing.slice(afterStart + 1);
  const rows = results.map((r) => `| ${r.name} | ${Object.entries(r.metrics).map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(2)}`).join(', ')} | ${r.note ?? ''} |`);
  const section = [
    '## Cluster (npm run bench)',
    '',
    `Run ${new Date().toISOString()} on ${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown CPU'}), ${RECORD_SIZE}-byte records, ${RECORDS} records per case` +
      ` (BENCH_RECORDS=${RECORDS} BENCH_SUSTAIN_S=${SUSTAIN_S} BENCH_BIG_LOG_GB=${BIG_LOG_GB}), load generators on the same machine.`,
    '',
    '| case | figures | note |',
    '|---|---|---|',
    ...rows,
    '',
    '| target (issue 8) | this run | state |',
    '|---|---|---|',
    ...targetRows(),
    '',
  ].join('\n');
  fs.writeFileSync(file, before + section + (after ? `\n${after}` : ''));
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
