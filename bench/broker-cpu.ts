/*
 * `npm run bench:broker-cpu`: what the brokers themselves spend per record, for one or more checkouts, in
 * alternating rounds. Wall-clock rates on this shared 2-core machine move by ±30 % with the load of the hour;
 * the brokers' own CPU time (utime + stime from /proc) for the same records moves much less, so comparing trees
 * on it finds a few per cent where records/s cannot. The load generator is this tree's perf tool for every tree,
 * so only the broker differs.
 *
 * BENCH_TREES: comma-separated checkouts to run brokers from (default: this one); each needs its node_modules.
 * BENCH_CASES: produce,consume,rf3 (default all). BENCH_RECORDS (default 2000000), BENCH_ROUNDS (default 3).
 * BENCH_LOGS_TO=<dir> keeps each broker's log directory (server.log, stdout.txt: where --trace-gc goes) there.
 * KAFKA_NODE_OPTS reaches the brokers (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof").
 * Prints one `broker-cpu <case> tree=<dir> ...` line per run and the medians at the end.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BrokerProcess } from '../test/helpers/broker-process';
import { spawnChild } from '../test/helpers/child-processes';
import { startZkStandalone, uniqueChroot } from '../test/helpers/zk-ensemble';
import type { ZkEnsemble } from '../test/helpers/zk-ensemble';
import { runProducerPerformance } from '../src/tools/producer-performance';
import { runConsumerPerformance } from '../src/tools/consumer-performance';

const HERE = path.resolve(__dirname, '..');
const TREES = (process.env['BENCH_TREES'] ?? HERE).split(',').map((t) => path.resolve(t.trim()));
const CASES = new Set((process.env['BENCH_CASES'] ?? 'produce,consume,rf3').split(',').map((c) => c.trim()));
const RECORDS = Number(process.env['BENCH_RECORDS'] ?? 2000000);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
const CLOCK_TICKS = 100;

interface Run {
  kase: string;
  tree: string;
  recordsPerS: number;
  brokerCpuS: number;
  clientCpuS: number;
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command name, which is in parentheses and may contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

async function createTopic(tree: string, connect: string, topic: string, rf: number): Promise<void> {
  const child = spawnChild(path.join(tree, 'bin', 'kafka-topics.ts'), ['--zookeeper', connect, '--create', '--topic', topic, '--partitions', '6', '--replication-factor', String(rf)]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`kafka-topics in ${tree} failed:\n${child.tail()}`);
}

async function measure(brokers: BrokerProcess[], work: () => Promise<number>): Promise<Omit<Run, 'kase' | 'tree'>> {
  const cpuBefore = brokers.map((b) => cpuSeconds(b.pid));
  const clientBefore = process.cpuUsage();
  const recordsPerS = await work();
  const client = process.cpuUsage(clientBefore);
  const brokerCpuS = brokers.reduce((sum, b, i) => sum + cpuSeconds(b.pid) - (cpuBefore[i] as number), 0);
  return { recordsPerS: Math.round(recordsPerS), brokerCpuS, clientCpuS: (client.user + client.system) / 1e6 };
}

function produce(bootstrap: string, topic: string, acks: string): () => Promise<number> {
  return async () => {
    const r = await runProducerPerformance(
      { topic, numRecords: String(RECORDS), recordSize: '100', payloadDelimiter: '\n', throughput: '-1', producerProps: [`bootstrap.servers=${bootstrap}`, `acks=${acks}`, 'batch.size=65536', 'linger.ms=5'] },
      () => undefined,
    );
    return r.recordsPerSec;
  };
}

function report(run: Run): void {
  process.stdout.write(
    `broker-cpu ${run.kase} tree=${run.tree} records_per_s=${run.recordsPerS} broker_cpu_s=${run.brokerCpuS.toFixed(2)} broker_us_per_record=${((run.brokerCpuS / RECORDS) * 1e6).toFixed(3)} client_cpu_s=${run.clientCpuS.toFixed(2)}\n`,
  );
}

async function roundFor(zk: ZkEnsemble, tree: string, runs: Run[]): Promise<void> {
  const name = path.basename(tree);
  if (CASES.has('produce') || CASES.has('consume')) {
    const connect = zk.connectStringWithChroot(uniqueChroot('cpu-one'));
    const broker = await BrokerProcess.start({ tree, brokerId: 0, zkConnect: connect, props: { 'log.segment.bytes': '1073741824' } });
    try {
      const bootstrap = `127.0.0.1:${broker.port}`;
      await createTopic(tree, connect, 'perf', 1);
      const produced = { kase: 'produce', tree: name, ...(await measure([broker], produce(bootstrap, 'perf', '1'))) };
      if (CASES.has('produce')) {
        runs.push(produced);
        report(produced);
      }
      if (CASES.has('consume')) {
        const consumed = await measure([broker], async () => {
          const r = await runConsumerPerformance({ bootstrapServer: bootstrap, topic: 'perf', messages: String(RECORDS), fetchSize: '1048576', timeout: '10000' }, () => undefined, () => undefined);
          return r.recordsPerSec;
        });
        const run = { kase: 'consume', tree: name, ...consumed };
        runs.push(run);
        report(run);
      }
    } finally {
      await stopAll([broker], `${name}-one`);
    }
  }
  if (CASES.has('rf3')) {
    const connect = zk.connectStringWithChroot(uniqueChroot('cpu-three'));
    const three = await Promise.all([0, 1, 2].map((id) => BrokerProcess.start({ tree, brokerId: id, zkConnect: connect, props: { 'min.insync.replicas': '2' } })));
    try {
      await createTopic(tree, connect, 'rf3', 3);
      const run = { kase: 'rf3', tree: name, ...(await measure(three, produce(three.map((b) => `127.0.0.1:${b.port}`).join(','), 'rf3', 'all'))) };
      runs.push(run);
      report(run);
    } finally {
      await stopAll(three, `${name}-rf3`);
    }
  }
}

let kept = 0;

async function stopAll(brokers: BrokerProcess[], label: string): Promise<void> {
  await Promise.all(brokers.map((b) => b.child.stop()));
  const to = process.env['BENCH_LOGS_TO'];
  if (to === undefined) return;
  for (const b of brokers) fs.cpSync(b.logDir, path.join(to, `${String(++kept).padStart(2, '0')}-${label}-broker-${b.brokerId}`), { recursive: true });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function main(): Promise<void> {
  const zk = await startZkStandalone();
  const runs: Run[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order so that no tree always runs on a machine the other has just warmed or loaded.
      const order = round % 2 === 0 ? TREES : [...TREES].reverse();
      for (const tree of order) await roundFor(zk, tree, runs);
    }
  } finally {
    await zk.close();
  }
  for (const kase of ['produce', 'consume', 'rf3']) {
    for (const tree of TREES.map((t) => path.basename(t))) {
      const mine = runs.filter((r) => r.kase === kase && r.tree === tree);
      if (mine.length === 0) continue;
      process.stdout.write(
        `broker-cpu median ${kase} tree=${tree} records_per_s=${median(mine.map((r) => r.recordsPerS))} broker_us_per_record=${((median(mine.map((r) => r.brokerCpuS)) / RECORDS) * 1e6).toFixed(3)} runs=${mine.length}\n`,
      );
    }
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`broker-cpu: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
