/*
 * `npm run bench:scale`: what the cluster costs at scale, on 3 brokers and a 3-node ZooKeeper ensemble on this
 * machine (issue 13). A script, not a test: it takes minutes. Each figure is printed with its goal and the ratio
 * to it, `scale <case> <metric>=<n> goal=<g> ratio=<r>`, and the table is written into docs/benchmarks.md
 * (section "Scale") unless SCALE_NO_DOCS is set.
 *
 * Sizes: SCALE_TOPICS (100) topics of SCALE_PARTITIONS (100) partitions, RF 3; SCALE_CONNECTIONS (2000) idle and
 * Metadata-sending connections; SCALE_RECORDS (1000000) records for the kcat cases. The brokers run with Kafka's
 * defaults but for zookeeper.session.timeout.ms (SCALE_SESSION_MS, 6000: the test ensemble's tickTime of 500 ms
 * caps sessions at 10 s), which the failover figure is measured beyond.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { BrokerConnection } from '../src/client/broker-connection';
import { ApiKey } from '../src/protocol/api-keys';
import { MetadataApi } from '../src/protocol/apis/metadata';
import { ZkClient } from '../src/zk/zk-client';
import { BIN } from '../test/helpers/broker-process';
import { spawnChild } from '../test/helpers/child-processes';
import { fullCount, landedRecords, metadataPartitions, openDescriptors, PartitionView, rssBytes, segmentCount, zkPartitionStates } from '../test/helpers/cluster-state';
import { requestFrame } from '../test/helpers/raw-connection';
import { TestCluster } from '../test/helpers/test-cluster';
import { tmpDir } from '../test/helpers/tmp-dir';
import { waitUntil } from '../test/helpers/wait-until';

const TOPICS = Number(process.env['SCALE_TOPICS'] ?? 100);
const PARTITIONS = Number(process.env['SCALE_PARTITIONS'] ?? 100);
const CONNECTIONS = Number(process.env['SCALE_CONNECTIONS'] ?? 2000);
const RECORDS = Number(process.env['SCALE_RECORDS'] ?? 1000000);
const SESSION_MS = Number(process.env['SCALE_SESSION_MS'] ?? 6000);
const RF = 3;
const TOTAL = TOPICS * PARTITIONS;
const MB = 1024 * 1024;

interface Row {
  name: string;
  value: number;
  unit: string;
  goal: number;
  /** 'max': the value should be at most the goal; 'min': at least. */
  kind: 'max' | 'min';
  note?: string;
}
const rows: Row[] = [];
/** Conditional setData/s of the ensemble, measured at the start of the run (the anchor of the controller's figures). */
let anchorZkRate = 0;

function report(row: Row): void {
  rows.push(row);
  const ratio = row.value / row.goal;
  process.stdout.write(`scale ${row.name} ${row.unit}=${row.value.toFixed(row.value < 10 ? 2 : 1)} goal=${row.kind === 'max' ? '<=' : '>='}${row.goal} ratio=${ratio.toFixed(2)}${row.note ? ` (${row.note})` : ''}\n`);
}

function info(line: string): void {
  process.stdout.write(`  ${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

const seconds = (fromMs: number): number => (Date.now() - fromMs) / 1000;

function allPartitions(): { topic: string; partition: number }[] {
  const out: { topic: string; partition: number }[] = [];
  for (let t = 0; t < TOPICS; t++) for (let p = 0; p < PARTITIONS; p++) out.push({ topic: topicName(t), partition: p });
  return out;
}

function topicName(t: number): string {
  return `scale-${String(t).padStart(3, '0')}`;
}

async function main(): Promise<void> {
  execFileSync('bash', [path.join(__dirname, '..', 'scripts', 'ensure-system-packages.sh'), 'zookeeper', 'kcat'], { stdio: 'inherit' });
  info(`starting a 3-node ensemble and 3 brokers; ${TOPICS} x ${PARTITIONS} partitions, RF ${RF}`);
  const cluster = await TestCluster.start({ brokers: 3, props: { 'zookeeper.session.timeout.ms': String(SESSION_MS), 'offsets.topic.replication.factor': '3' } });
  const zk = await ZkClient.connect({ connectString: cluster.ensemble.connectString, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, maxInFlightRequests: 64 });
  const ids = [0, 1, 2];
  const partitions = allPartitions();
  try {
    const before = new Map(ids.map((id) => [id, { rss: rssBytes(cluster.broker(id).pid), fds: openDescriptors(cluster.broker(id).pid) }]));

    // ---- the anchor: what this ensemble takes -----------------------------------------------------------------
    const zkRate = await zkSetDataRate(cluster.ensemble.connectString);
    anchorZkRate = zkRate;
    info(`ZooKeeper anchor: ${zkRate.toFixed(0)} conditional setData/s with 10 in flight (zookeeper.max.in.flight.requests' default), 3,000 znodes`);

    // ---- creation --------------------------------------------------------------------------------------------
    const kafka = new Kafka({ clientId: 'bench-scale', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, requestTimeout: 120000 });
    const admin = kafka.admin();
    await admin.connect();
    const createStart = Date.now();
    try {
      await admin.createTopics({ waitForLeaders: false, timeout: 1000, topics: Array.from({ length: TOPICS }, (_, t) => ({ topic: topicName(t), numPartitions: PARTITIONS, replicationFactor: RF })) });
    } catch (err) {
      // REQUEST_TIMED_OUT: created, with leaders still to come by the request's timeout, as Kafka answers.
      const errors = (err as { errors?: { type?: string }[] }).errors ?? [];
      if (errors.length === 0 || errors.some((e) => e.type !== 'REQUEST_TIMED_OUT')) throw err;
    }
    await admin.disconnect();
    info(`CreateTopics answered after ${seconds(createStart).toFixed(1)} s`);
    await waitForFull(cluster, zk, partitions, ids, 900_000, 'creation');
    report({ name: 'create_10k_partitions', value: seconds(createStart), unit: 's', goal: 60, kind: 'max', note: `${TOTAL} partitions, ${TOTAL * RF} replicas, leader and full ISR in ZooKeeper and every broker's Metadata` });

    if (process.env['SCALE_STOP_AFTER'] === 'create') return;

    // ---- idle cost per partition -----------------------------------------------------------------------------
    await settle();
    for (const id of ids) {
      const b = cluster.broker(id);
      const rss = rssBytes(b.pid);
      const fds = openDescriptors(b.pid);
      const segments = segmentCount(b.logDirs);
      const base = before.get(id) as { rss: number; fds: number };
      const replicas = TOTAL; // RF 3 on 3 brokers: every broker holds every partition
      info(`broker ${id}: rss ${(rss / MB).toFixed(0)} MiB (${(((rss - base.rss) / replicas) / 1024).toFixed(1)} KiB per replica), ${fds} fds for ${segments} segments (${fds - base.fds} more than before)`);
      if (id === 0) {
        report({ name: 'idle_rss_10k_partitions', value: rss / MB, unit: 'MiB', goal: 800, kind: 'max', note: `broker 0, ${replicas} replicas; ${(((rss - base.rss) / replicas) / 1024).toFixed(1)} KiB per replica` });
        report({ name: 'fds_per_segment', value: (fds - base.fds) / segments, unit: 'fds', goal: 1, kind: 'max', note: `broker 0: ${fds - base.fds} more descriptors for ${segments} segments` });
      }
    }

    // ---- idle connections ------------------------------------------------------------------------------------
    await idleConnections(cluster);

    // ---- kcat over 1,000 partitions against 6 -----------------------------------------------------------------
    await kcatPartitions(cluster);

    // ---- Metadata storm under a producer ---------------------------------------------------------------------
    await metadataStorm(cluster);

    // ---- SIGKILL of the controller ---------------------------------------------------------------------------
    const controller = await cluster.waitForController();
    const led = (await zkPartitionStates(zk, cluster.chroot, partitions)).filter((v) => v.leader === controller);
    info(`controller is broker ${controller}, leading ${led.length} partitions; SIGKILL`);
    const killAt = Date.now();
    cluster.broker(controller).child.signal('SIGKILL');
    await cluster.broker(controller).child.exited;
    const live = ids.filter((id) => id !== controller);
    await waitUntil(
      async () => {
        const now = await zkPartitionStates(zk, cluster.chroot, led);
        const moved = now.filter((v) => v.leader >= 0 && v.leader !== controller).length;
        return moved === led.length;
      },
      { timeoutMs: 600_000, intervalMs: 250, message: 'every leadership of the killed controller to move' },
    );
    const failover = seconds(killAt) - SESSION_MS / 1000;
    // The new controller reads every state (TOTAL reads), removes the dead replica from every ISR (TOTAL writes)
    // and elects for what it led (led.length writes): the writes alone at the anchor's rate.
    const failoverBound = (TOTAL + led.length) / zkRate;
    report({ name: 'controller_kill_failover', value: failover, unit: 's', goal: 10, kind: 'max', note: `beyond the ${SESSION_MS / 1000} s session timeout; ${led.length} leaderships moved; its ZooKeeper writes alone take ${failoverBound.toFixed(1)} s at the anchor's rate` });
    await waitUntil(async () => (await Promise.all(live.map((id) => metadataPartitions(cluster.broker(id).port, null)))).every((m) => m.partitions.filter((p) => p.leader === controller).length === 0), {
      timeoutMs: 600_000,
      message: 'every live broker to see the new leaders',
    });
    info(`live brokers' Metadata shows the new leaders after ${seconds(killAt).toFixed(1)} s`);

    // ---- restart after the kill (unclean: recovery) ------------------------------------------------------------
    await restart(cluster, zk, controller, partitions, 'restart_after_kill');

    // ---- controlled shutdown of a broker leading a third ------------------------------------------------------
    await preferredElection(cluster, zk, partitions);
    const currentController = await cluster.waitForController();
    const target = ids.find((id) => id !== currentController) as number;
    const targetLed = (await zkPartitionStates(zk, cluster.chroot, partitions)).filter((v) => v.leader === target);
    info(`SIGTERM to broker ${target} (not the controller), leading ${targetLed.length} partitions`);
    const termAt = Date.now();
    cluster.broker(target).child.signal('SIGTERM');
    await cluster.broker(target).child.exited;
    const shutdownSeconds = seconds(termAt);
    const stillLed = (await zkPartitionStates(zk, cluster.chroot, targetLed)).filter((v) => v.leader === target).length;
    // Kafka's doControlledShutdown: an election per partition it leads, an ISR removal per partition it follows.
    const shutdownBound = TOTAL / zkRate;
    report({ name: 'controlled_shutdown', value: shutdownSeconds, unit: 's', goal: 5, kind: 'max', note: `${targetLed.length} leaderships, ${targetLed.length - stillLed} moved before exit; its ${TOTAL} ZooKeeper writes alone take ${shutdownBound.toFixed(1)} s at the anchor's rate` });

    // ---- clean restart with everything on disk ----------------------------------------------------------------
    await restart(cluster, zk, target, partitions, 'restart_clean');
  } finally {
    zk.close();
    await cluster.close();
    const keep = process.env['SCALE_KEEP_LOGS'];
    if (keep !== undefined) for (const id of ids) fs.cpSync(cluster.broker(id).logDir, path.join(keep, `broker-${id}`), { recursive: true });
  }
  if (!process.env['SCALE_NO_DOCS']) writeDocs();
}

/** Conditional setData calls per second on this ensemble, 10 in flight, as the controller issues them. */
async function zkSetDataRate(connectString: string): Promise<number> {
  const zk = await ZkClient.connect({ connectString, sessionTimeoutMs: 30000, connectionTimeoutMs: 30000, maxInFlightRequests: 10 });
  try {
    const n = 3000;
    const root = `/bench-scale-anchor-${process.pid}`;
    await zk.ensurePath(root);
    await Promise.all(Array.from({ length: n }, (_, i) => zk.create(`${root}/n${i}`, Buffer.from('{"leader":0}'))));
    const start = Date.now();
    await Promise.all(Array.from({ length: n }, (_, i) => zk.setData(`${root}/n${i}`, Buffer.from('{"leader":1}'), 0)));
    const rate = n / seconds(start);
    await zk.deleteRecursive(root);
    return rate;
  } finally {
    zk.close();
  }
}

/** Waits until every partition has a leader and a full ISR in ZooKeeper and in every broker's Metadata. */
async function waitForFull(cluster: TestCluster, zk: ZkClient, partitions: readonly { topic: string; partition: number }[], brokers: readonly number[], timeoutMs: number, what: string): Promise<void> {
  const topics = [...new Set(partitions.map((p) => p.topic))];
  let last = '';
  const started = Date.now();
  let lastPrint = 0;
  await waitUntil(
    async () => {
      const mds = await Promise.all(brokers.map((id) => metadataPartitions(cluster.broker(id).port, topics)));
      const counts = mds.map((m) => fullCount(m.partitions, RF));
      last = `Metadata full ${counts.join('/')} of ${partitions.length}`;
      if (counts.some((c) => c < partitions.length)) {
        if (Date.now() - lastPrint > 15000) {
          info(`${what}: ${last} after ${seconds(started).toFixed(0)} s`);
          lastPrint = Date.now();
        }
        return false;
      }
      const views: PartitionView[] = await zkPartitionStates(zk, cluster.chroot, partitions);
      const z = fullCount(views, RF);
      last += `, ZooKeeper full ${z}`;
      return z === partitions.length;
    },
    { timeoutMs, intervalMs: 500, message: () => `${what}: every partition with a leader and a full ISR (${last})` },
  );
}

/** Lets the brokers finish what the last phase started (GC, fetch sessions) before memory is read. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 5000));
}

async function idleConnections(cluster: TestCluster): Promise<void> {
  const b = cluster.broker(0);
  const rss0 = rssBytes(b.pid);
  const fds0 = openDescriptors(b.pid);
  const sockets: net.Socket[] = [];
  const body = requestFrame(ApiKey.API_VERSIONS, 0, 1, Buffer.alloc(0), 'idle');
  const apiVersions = Buffer.concat([Buffer.alloc(4), body]);
  apiVersions.writeInt32BE(body.length, 0);
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      const s = net.connect(b.port, '127.0.0.1');
      sockets.push(s);
      await new Promise<void>((resolve, reject) => {
        s.once('error', reject);
        s.once('data', () => resolve());
        s.once('connect', () => s.write(apiVersions));
      });
    }),
  );
  await settle();
  const rss = rssBytes(b.pid);
  const fds = openDescriptors(b.pid);
  report({ name: 'idle_connections_rss', value: (rss - rss0) / MB, unit: 'MiB', goal: 100, kind: 'max', note: `${CONNECTIONS} connections after ApiVersions, ${fds - fds0} descriptors` });
  for (const s of sockets) s.destroy();
  await waitUntil(() => openDescriptors(b.pid) <= fds0 + 10, { timeoutMs: 30000, message: 'the idle connections to close' });
}

async function createTopic(cluster: TestCluster, topic: string, partitions: number, rf: number): Promise<void> {
  const child = spawnChild(BIN('kafka-topics'), ['--zookeeper', cluster.zkConnect, '--create', '--topic', topic, '--partitions', String(partitions), '--replication-factor', String(rf)]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`kafka-topics --create ${topic} failed:\n${child.tail()}`);
  await cluster.waitForLeaders(topic, partitions, 120000);
}

async function kcatRun(cluster: TestCluster, topic: string, file: string): Promise<number> {
  const start = Date.now();
  execFileSync('kcat', ['-b', cluster.bootstrap, '-P', '-t', topic, '-X', 'linger.ms=5', '-X', 'batch.num.messages=10000', '-l', file], { stdio: 'ignore' });
  const s = seconds(start);
  const n = await landedRecords(topic, cluster.broker(0).port, (id) => cluster.broker(id).port);
  if (n !== RECORDS) throw new Error(`kcat to ${topic}: ${n} records landed of ${RECORDS}`);
  return RECORDS / s;
}

async function kcatPartitions(cluster: TestCluster): Promise<void> {
  const dir = tmpDir('bench-scale-kcat-');
  const file = path.join(dir, 'input.txt');
  fs.writeFileSync(file, `${'x'.repeat(100)}\n`.repeat(RECORDS));
  await createTopic(cluster, 'kcat-6', 6, 1);
  await createTopic(cluster, 'kcat-1000', 1000, 1);
  const six = await kcatRun(cluster, 'kcat-6', file);
  const thousand = await kcatRun(cluster, 'kcat-1000', file);
  info(`kcat -P -X linger.ms=5 -X batch.num.messages=10000, ${RECORDS} records of 100 bytes: 6 partitions ${six.toFixed(0)}/s, 1000 partitions ${thousand.toFixed(0)}/s (counts checked by ListOffsets)`);
  report({ name: 'kcat_1000_partitions', value: thousand / six, unit: 'of_6_partitions', goal: 0.8, kind: 'min', note: `${thousand.toFixed(0)} against ${six.toFixed(0)} records/s` });
  fs.rmSync(dir, { recursive: true, force: true });
}

async function producerRate(cluster: TestCluster, topic: string, records: number): Promise<number> {
  const child = spawnChild(BIN('kafka-producer-perf-test'), ['--topic', topic, '--num-records', String(records), '--record-size', '100', '--throughput', '-1', '--producer-props', `bootstrap.servers=${cluster.bootstrap}`, 'acks=1', 'linger.ms=5', 'batch.size=65536']);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`producer perf failed:\n${child.tail()}`);
  const m = /records sent, ([0-9.]+) records\/sec/.exec(child.output().split('\n').filter((l) => l.includes('records sent')).pop() ?? '');
  return Number(m?.[1] ?? 0);
}

/** CPU seconds (user + system) the brokers' processes have used so far, from /proc/<pid>/stat. */
function brokersCpuSeconds(cluster: TestCluster): number {
  let ticks = 0;
  for (const id of [0, 1, 2]) {
    const stat = fs.readFileSync(`/proc/${cluster.broker(id).child.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks / 100;
}

async function metadataStorm(cluster: TestCluster): Promise<void> {
  const topic = 'storm-produce';
  await createTopic(cluster, topic, 6, 1);
  const quietStart = Date.now();
  const quietCpu = brokersCpuSeconds(cluster);
  const quiet = await producerRate(cluster, topic, RECORDS);
  const quietBrokerShare = (brokersCpuSeconds(cluster) - quietCpu) / seconds(quietStart);
  // Each connection asks for the producer's topic once a second, as many clients refreshing at once would.
  const conns = await Promise.all(
    Array.from({ length: CONNECTIONS }, async (_, i) => {
      const c = new BrokerConnection({ host: '127.0.0.1', port: cluster.broker(i % 3).port, clientId: `storm-${i}`, requestTimeoutMs: 120000 });
      await c.connect();
      return c;
    }),
  );
  let stop = false;
  let sent = 0;
  const loops = conns.map(async (c, i) => {
    await new Promise((r) => setTimeout(r, (i * 1000) / CONNECTIONS));
    while (!stop) {
      const at = Date.now();
      await c.send(MetadataApi, { topics: [{ name: topic }], allowAutoTopicCreation: false }, { version: 1 });
      sent++;
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - at))));
    }
  });
  const stormStart = Date.now();
  const stormCpu = brokersCpuSeconds(cluster);
  const clientsCpu = process.cpuUsage();
  const loaded = await producerRate(cluster, topic, RECORDS);
  const rate = sent / seconds(stormStart);
  // Where the producer's share went: the storm's clients (this process) and the brokers' CPU, in cores.
  const used = process.cpuUsage(clientsCpu);
  const clientsShare = (used.user + used.system) / 1e6 / seconds(stormStart);
  const stormBrokerShare = (brokersCpuSeconds(cluster) - stormCpu) / seconds(stormStart);
  info(`CPU in cores (of 2): brokers ${quietBrokerShare.toFixed(2)} quiet, ${stormBrokerShare.toFixed(2)} in the storm; the storm's ${CONNECTIONS} clients ${clientsShare.toFixed(2)}`);
  stop = true;
  await Promise.all(loops);
  for (const c of conns) c.close();
  info(`producer (acks=1, 6 partitions) alone ${quiet.toFixed(0)} records/s; with ${CONNECTIONS} connections sending ${rate.toFixed(0)} Metadata/s: ${loaded.toFixed(0)} records/s`);
  report({ name: 'metadata_storm_producer', value: loaded / quiet, unit: 'of_quiet', goal: 0.8, kind: 'min', note: `${loaded.toFixed(0)} against ${quiet.toFixed(0)} records/s, ${rate.toFixed(0)} Metadata requests/s; the storm's clients took ${clientsShare.toFixed(2)} of the 2 cores` });
}

async function restart(cluster: TestCluster, zk: ZkClient, id: number, partitions: readonly { topic: string; partition: number }[], name: string): Promise<void> {
  const at = Date.now();
  // startBroker resolves once the broker logs "started" (within 60 s); the figures come from ZooKeeper.
  const started = cluster.startBroker(id);
  started.catch(() => undefined);
  await waitUntil(async () => (await zk.exists(`${cluster.chroot}/brokers/ids/${id}`)) !== null, { timeoutMs: 600_000, intervalMs: 100, message: `broker ${id} to register` });
  const registered = seconds(at);
  await waitUntil(
    async () => {
      const views = await zkPartitionStates(zk, cluster.chroot, partitions);
      return views.every((v) => v.isr.includes(id));
    },
    { timeoutMs: 900_000, intervalMs: 500, message: `broker ${id}'s replicas back in every ISR` },
  );
  const inIsr = seconds(at);
  await started;
  report({ name, value: inIsr, unit: 's', goal: 30, kind: 'max', note: `registered after ${registered.toFixed(1)} s; ${partitions.length} replicas back in ISR` });
}

async function preferredElection(cluster: TestCluster, zk: ZkClient, partitions: readonly { topic: string; partition: number }[]): Promise<void> {
  const child = spawnChild(BIN('kafka-preferred-replica-election'), ['--zookeeper', cluster.zkConnect]);
  const exit = await child.exited;
  if (exit.code !== 0) throw new Error(`preferred replica election failed:\n${child.tail()}`);
  await waitUntil(
    async () => {
      const views = await zkPartitionStates(zk, cluster.chroot, partitions);
      const counts = [0, 0, 0];
      for (const v of views) if (v.leader >= 0) counts[v.leader] = (counts[v.leader] ?? 0) + 1;
      return counts.every((c) => c >= partitions.length / 3 - PARTITIONS);
    },
    { timeoutMs: 600_000, message: 'leaderships balanced by the preferred replica election' },
  );
  // The election is over when the controller has deleted its znode and every broker serves the leaders ZooKeeper
  // has: a measurement that starts earlier also times the tail of the election (the controller's queue was still
  // sending UpdateMetadata when the shutdown request arrived, 0.6 s of one run's controlled shutdown).
  await waitUntil(async () => (await zk.exists(`${cluster.chroot}/admin/preferred_replica_election`)) === null, { timeoutMs: 600_000, intervalMs: 100, message: 'the controller to finish the preferred replica election' });
  const leaders = new Map((await zkPartitionStates(zk, cluster.chroot, partitions)).map((v) => [`${v.topic}-${v.partition}`, v.leader]));
  await waitUntil(
    async () => {
      const views = await Promise.all([0, 1, 2].map((id) => metadataPartitions(cluster.broker(id).port, null)));
      return views.every((m) => m.partitions.every((p) => !leaders.has(`${p.topic}-${p.partition}`) || leaders.get(`${p.topic}-${p.partition}`) === p.leader));
    },
    { timeoutMs: 600_000, intervalMs: 250, message: "every broker to serve the preferred election's leaders" },
  );
}

function writeDocs(): void {
  const file = path.join(__dirname, '..', 'docs', 'benchmarks.md');
  const doc = fs.readFileSync(file, 'utf8');
  const begin = '<!-- scale:begin -->';
  const end = '<!-- scale:end -->';
  const table = [
    begin,
    `Last \`npm run bench:scale\`: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${TOPICS} x ${PARTITIONS} partitions, RF ${RF}, ${CONNECTIONS} connections, session timeout ${SESSION_MS} ms; the ensemble took ${anchorZkRate.toFixed(0)} conditional setData/s with 10 in flight in the same run.`,
    '',
    '| case | figure | goal | ratio to goal | notes |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.name} | ${r.value.toFixed(r.value < 10 ? 2 : 1)} ${r.unit} | ${r.kind === 'max' ? '≤' : '≥'} ${r.goal} | ${(r.value / r.goal).toFixed(2)} | ${r.note ?? ''} |`),
    end,
  ].join('\n');
  const next = doc.includes(begin) ? doc.slice(0, doc.indexOf(begin)) + table + doc.slice(doc.indexOf(end) + end.length) : `${doc.trimEnd()}\n\n## Scale (issue 13)\n\n${table}\n`;
  fs.writeFileSync(file, next);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:scale failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
