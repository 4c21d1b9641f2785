/*
 * `npm run fuzz`: structure-aware fuzzing of a real 3-broker cluster (issue 12; docs/reliability.md).
 *
 *   FUZZ_FRAMES   frames to send (default 1000000)
 *   FUZZ_SEED     the seed; every frame is a function of (seed, k) alone (default 20261129)
 *   FUZZ_FIRST    first k (default 0), to resume or replay a range
 *   FUZZ_CONNS    concurrent connections per broker (default 12)
 *   FUZZ_TIMEOUT_MS  how long a silent connection is waited for after a frame (default 1500)
 *   FUZZ_APIS     comma-separated API keys to restrict the seeds to (default: all)
 *   FUZZ_PRINT=k1,k2,...  print those frames (source, mutations, hex) and exit without a cluster
 *   FUZZ_FIND=regex       print the first 20 single-mutation frames whose source/API/mutation matches, and exit
 *   FUZZ_REPLAY=k1,k2,... send those frames to every broker of a fresh cluster and watch the brokers for 20 s
 *                         (FUZZ_REPLAY_TOPICS=a,b creates more topics first)
 *   FUZZ_KEEP_LOGS=dir    copy the brokers' log directories there before the cluster is removed
 *   ABUSE_PENDING=1       also send the frames of known, unfixed findings (test/helpers/known-findings.ts)
 *
 * Starts a 3-node ZooKeeper ensemble and brokers 0-2, creates the topics the seeds name plus a health topic,
 * produces to the health topic (acks=-1) before and during the run, sends the frames, then checks that every
 * broker is alive and that everything acknowledged is consumed back. Prints one summary line
 * (`fuzz seed=... frames=... deaths=...`) and exits non-zero on any finding or lost record.
 */
import fs from 'node:fs';
import path from 'node:path';
import { AckLedger, BackgroundProducer, RawConnection, RssSampler, assertHealthy, brokerRss, createTopic, kafka, logProblems, mib, probeBroker, sendFrames, startAbuseCluster, removeAllClientQuotas } from '../test/helpers/abuse';
import { perApiLines, runFuzz, summaryLine } from '../test/helpers/fuzz-runner';
import { FUZZ_TOPICS, StructuredFuzzer, clusterSafeOptions } from '../test/helpers/structured-fuzz';

const FRAMES = Number(process.env['FUZZ_FRAMES'] ?? 1_000_000);
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261129);
const FIRST = Number(process.env['FUZZ_FIRST'] ?? 0);
const CONNS = Number(process.env['FUZZ_CONNS'] ?? 12);
const TIMEOUT_MS = Number(process.env['FUZZ_TIMEOUT_MS'] ?? 1500);
const APIS = process.env['FUZZ_APIS'] ? new Set(process.env['FUZZ_APIS'].split(',').map(Number)) : undefined;
const HEALTH_TOPIC = 'abuse-health';

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const fuzzer = new StructuredFuzzer(clusterSafeOptions(SEED, APIS));
  log(`fuzzer: seed=${SEED} seeds=${fuzzer.walks.length} single mutations=${fuzzer.singles} (frames 0..${2 * fuzzer.singles - 1} cover each once) built in ${Date.now() - t0} ms`);
  if (process.env['FUZZ_PRINT']) {
    for (const k of process.env['FUZZ_PRINT'].split(',').map(Number)) log(fuzzer.describe(fuzzer.frame(k)));
    return 0;
  }
  if (process.env['FUZZ_FIND']) {
    // The even frames k = 2i whose single mutation matches: `FUZZ_FIND='CREATE_TOPICS.*numPartitions=2147483647'`.
    const re = new RegExp(process.env['FUZZ_FIND']);
    let found = 0;
    for (let i = 0; i < fuzzer.singles && found < 20; i++) {
      const m = fuzzer.frame(2 * i);
      if (re.test(`${m.seed.source} ${m.seed.api.name} ${m.desc.join('; ')}`)) {
        log(fuzzer.describe(m));
        found++;
      }
    }
    return 0;
  }
  if (process.env['FUZZ_REPLAY']) return replay(fuzzer, process.env['FUZZ_REPLAY'].split(',').map(Number));
  const cluster = await startAbuseCluster();
  try {
    log(`cluster up in ${Date.now() - t0} ms: brokers ${[...cluster.brokers.values()].map((b) => `${b.brokerId}@${b.port} pid ${b.pid}`).join(', ')}`);
    await createTopic(cluster, HEALTH_TOPIC, 3);
    for (const t of FUZZ_TOPICS) await createTopic(cluster, t, 3, { 'min.insync.replicas': '1' });
    const ledger = new AckLedger();
    const producer = kafka(cluster, 'abuse-before').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    for (let i = 0; i < 10; i++) await ledger.send(producer, HEALTH_TOPIC, Array.from({ length: 100 }, (_, j) => `before-${i}-${j}`));
    await producer.disconnect();
    log(`produced ${ledger.ackedOn(HEALTH_TOPIC).size} records (acks=-1) to ${HEALTH_TOPIC} before fuzzing`);
    const background = new BackgroundProducer(cluster, HEALTH_TOPIC, ledger, 200, 10);
    await background.start();
    const result = await runFuzz({
      cluster,
      fuzzer,
      frames: FRAMES,
      firstFrame: FIRST,
      connectionsPerBroker: CONNS,
      responseTimeoutMs: TIMEOUT_MS,
      checkEveryFrames: 20000,
      progress: (r) => {
        if (Math.round(r.elapsedMs / 1000) % 10 === 0) log(`progress ${summaryLine(r)}`);
      },
    });
    await background.stop();
    log(`background producer: ${background.batches} batches, ${background.failedBatches} not acknowledged`);
    for (const f of result.findings) {
      log(`FINDING ${f.kind} broker ${f.brokerId} after ${f.atFrame} frames: ${f.detail}`);
      for (const line of f.recent) log(`  recent: ${line}`);
    }
    for (const t of result.timeoutExamples) log(`  silent after: ${t}`);
    for (const line of perApiLines(result)) log(`  ${line}`);
    let healthy = false;
    try {
      // Mutated AlterClientQuotas frames may leave quotas that throttle the health check's clients.
      await removeAllClientQuotas(cluster);
      const h = await assertHealthy(cluster, HEALTH_TOPIC, ledger, 200);
      healthy = true;
      log(`health: every broker answered (${[...h.probes.values()].map((p) => `${p.ms} ms`).join(', ')}); ${h.acked} acknowledged records all consumed back (${h.consumed} read) in ${h.ms} ms`);
    } catch (e) {
      log(`HEALTH CHECK FAILED: ${(e as Error).message}`);
    }
    for (const b of cluster.brokers.values()) {
      const problems = logProblems(b, 25);
      log(`broker ${b.brokerId}: ${problems.reduce((n, p) => n + p.count, 0)} ERROR/WARN lines (top ${problems.length} kinds)`);
      for (const p of problems) log(`  ${String(p.count).padStart(7)}  ${p.line}`);
    }
    const topics = (await cluster.zk.getChildren(`${cluster.chroot}/brokers/topics`)) ?? [];
    log(`topics in the cluster at the end: ${topics.length}`);
    log(`rss first: ${[...result.firstRss.entries()].map(([id, v]) => `${id}=${mib(v)}`).join(' ')}`);
    if (process.env['FUZZ_KEEP_LOGS']) {
      for (const b of cluster.brokers.values()) fs.cpSync(b.logDir, path.join(process.env['FUZZ_KEEP_LOGS'], `broker-${b.brokerId}`), { recursive: true });
      log(`broker logs copied to ${process.env['FUZZ_KEEP_LOGS']}`);
    }
    log(summaryLine(result));
    return result.findings.length === 0 && result.brokerDeaths === 0 && healthy && !result.stoppedEarly ? 0 : 1;
  } finally {
    await cluster.close();
  }
}

/** Sends frames k1,k2,... to every broker of a fresh cluster, then watches the brokers for 20 s. */
async function replay(fuzzer: StructuredFuzzer, ks: number[]): Promise<number> {
  const cluster = await startAbuseCluster();
  try {
    const extra = (process.env['FUZZ_REPLAY_TOPICS'] ?? '').split(',').filter(Boolean);
    for (const t of [...FUZZ_TOPICS, ...extra]) await createTopic(cluster, t, 3, { 'min.insync.replicas': '1' });
    const sampler = new RssSampler(() => cluster.brokers.values(), 200).start();
    const conns: RawConnection[] = [];
    for (const k of ks) {
      const m = fuzzer.frame(k);
      log(`replaying ${fuzzer.describe(m)}`);
      for (const b of cluster.brokers.values()) conns.push(await sendFrames(b, [m.frame]));
    }
    for (let s = 0; s < 20; s++) {
      await new Promise((r) => setTimeout(r, 1000));
      sampler.sample();
      log(`t=${s + 1}s rss ${[...cluster.brokers.values()].map((b) => `${b.brokerId}=${b.child.isRunning() ? mib(brokerRss(b)) : 'DEAD'}`).join(' ')}`);
    }
    for (const c of conns) c.close();
    let dead = 0;
    for (const b of cluster.brokers.values()) {
      const p = await probeBroker(b);
      if (!p.alive) {
        dead++;
        log(`broker ${b.brokerId}: ${p.error}\n${b.child.tail(40)}`);
      }
    }
    log(`replay: ${dead} brokers dead or unresponsive; max rss ${sampler.describeMax()}`);
    return dead === 0 ? 0 : 1;
  } finally {
    await cluster.close();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`${(e as Error).stack ?? String(e)}\n`);
    process.exit(2);
  },
);
