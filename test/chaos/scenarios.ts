import fs from 'node:fs';
import path from 'node:path';
import { waitUntil } from '../helpers/wait-until';
import { CLIENT } from './netns-network';
import type { Scenario, ScenarioContext } from './scenario-runner';
import { countErrors } from './workload';

/** A fault lasts this long: the length of the fault itself, not a wait for a condition. */
const hold = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** Broker zookeeper.session.timeout.ms in the chaos cluster (chaos-cluster.ts). */
const SESSION_MS = 6000;

async function leaderEpochs(ctx: ScenarioContext): Promise<string> {
  const states = await Promise.all(Array.from({ length: ctx.partitions }, (_, p) => ctx.partitionState(p)));
  return states.map((s) => `${s?.leader}/${s?.leader_epoch}`).join(' ');
}

/** The leader of a partition that is not the controller (so cutting it does not also move the controller). */
async function nonControllerLeader(ctx: ScenarioContext): Promise<{ partition: number; leader: number }> {
  const controller = await ctx.controller();
  for (let p = 0; p < ctx.partitions; p++) {
    const st = await ctx.partitionState(p);
    if (st && st.leader !== controller) return { partition: p, leader: st.leader };
  }
  throw new Error('every partition is led by the controller');
}

function acksBetween(ctx: ScenarioContext, partition: number, from: number, to: number): number {
  return ctx.workload.acksFor(partition).filter((a) => a.at > from && a.at < to).length;
}

export const leaderCutFromZooKeeper: Scenario = {
  name: 'leader cut from all ZooKeeper nodes',
  settings: 'RF 3, min.insync.replicas 2, acks=all, retries, max.in.flight 1; 3x session timeout',
  async nemesis(ctx) {
    const { partition, leader } = await nonControllerLeader(ctx);
    ctx.log(`cutting broker ${leader} (leader of ${partition}) from every ZooKeeper node`);
    for (const z of ctx.cluster.zkHosts()) ctx.cluster.net.cut(ctx.cluster.brokerHost(leader), z);
    // The controller sees the session expire and moves leadership; the old leader cannot shrink its ISR.
    await waitUntil(async () => (await ctx.partitionState(partition))?.leader !== leader, { timeoutMs: 60000, message: `leadership of ${partition} to move off broker ${leader}` });
    ctx.log(`leadership moved: ${await leaderEpochs(ctx)}`);
    await hold(2 * SESSION_MS);
  },
};

export const leaderCutFromZooKeeperIdempotent: Scenario = {
  ...leaderCutFromZooKeeper,
  name: 'leader cut from all ZooKeeper nodes (idempotent)',
  settings: 'as above, the project producer (idempotent), max.in.flight 5',
  workload: { idempotent: true, maxInFlight: 5 },
};

export const leaderCutFromFollowers: Scenario = {
  name: 'leader cut from its followers',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1, replica.lag.time.max.ms 6000',
  async nemesis(ctx) {
    const { partition, leader } = await nonControllerLeader(ctx);
    const others = [...ctx.cluster.brokers.keys()].filter((id) => id !== leader);
    ctx.log(`cutting broker ${leader} (leader of ${partition}) from brokers ${others.join(',')}`);
    const cutAt = Date.now();
    for (const o of others) ctx.cluster.net.cut(ctx.cluster.brokerHost(leader), ctx.cluster.brokerHost(o));
    const shrunk = await waitUntil(async () => ((await ctx.partitionState(partition))?.isr.length === 1 ? Date.now() : undefined), { timeoutMs: 60000, message: `the ISR of ${partition} to shrink to its leader` });
    ctx.log(`ISR of ${partition} shrank to [${leader}] after ${shrunk - cutAt} ms; acks=all must now be refused`);
    await hold(5000);
    const acked = acksBetween(ctx, partition, shrunk + 500, Date.now());
    if (acked > 0) ctx.problems.push(`${acked} acks=all writes acknowledged on ${partition} while its ISR was [${leader}] with min.insync.replicas=2`);
    const refused = ctx.workload.errorsFor(partition).filter((e) => e.at > cutAt);
    ctx.log(`writes given up on ${partition} during the cut: ${refused.length} (${countErrors(refused.map((e) => e.error))})`);
    // The refusals themselves, retried or not: Kafka's codes, NOT_ENOUGH_REPLICAS (19) for a new write, and for
    // one that waited in purgatory NOT_ENOUGH_REPLICAS_AFTER_APPEND (20) or REQUEST_TIMED_OUT (7).
    const responses = ctx.workload.responseErrorsSince(shrunk).map((e) => e.error);
    ctx.log(`produce responses refused since the shrink: ${countErrors(responses)}`);
    if (!responses.includes('NOT_ENOUGH_REPLICAS (19)')) ctx.problems.push(`no produce response with NOT_ENOUGH_REPLICAS (19) while the ISR of ${partition} was [${leader}] (saw: ${countErrors(responses)})`);
  },
};

export const controllerIsolated: Scenario = {
  name: 'controller isolated past the session timeout',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; isolation 2.5x session timeout',
  async nemesis(ctx) {
    const controller = await ctx.controller();
    const epochBefore = await ctx.controllerEpoch();
    if (controller === undefined || epochBefore === undefined) throw new Error('no controller');
    ctx.log(`isolating controller ${controller} (epoch ${epochBefore}) from every host`);
    ctx.cluster.net.isolate(ctx.cluster.brokerHost(controller));
    await waitUntil(async () => (await ctx.controller()) !== controller && (await ctx.controller()) !== undefined, { timeoutMs: 60000, message: 'a new controller' });
    ctx.log(`new controller ${await ctx.controller()} epoch ${await ctx.controllerEpoch()}; leaders ${await leaderEpochs(ctx)}`);
    await hold(SESSION_MS * 2.5);
    ctx.cluster.net.healAll();
    ctx.log('healed the old controller');
    await waitUntil(async () => (await ctx.zk.getData(`/brokers/ids/${controller}`)) !== null, { timeoutMs: 60000, message: `broker ${controller} to register again` });
    const epochAfter = (await ctx.controllerEpoch()) ?? -1;
    if (epochAfter <= epochBefore) ctx.problems.push(`controller epoch ${epochAfter} after the isolation is not above ${epochBefore}`);
  },
};

export const oneZooKeeperLost: Scenario = {
  name: 'one ZooKeeper node lost',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; 3 ZooKeeper nodes, one isolated 10 s',
  async nemesis(ctx) {
    const before = await leaderEpochs(ctx);
    ctx.log(`isolating zk3; leaders ${before}`);
    ctx.cluster.net.isolate('zk3');
    await hold(10000);
    await ctx.moreAcks(5, 30000);
    const after = await leaderEpochs(ctx);
    if (after !== before) ctx.problems.push(`leaders changed while one ZooKeeper node was lost: ${before} -> ${after}`);
  },
};

export const twoZooKeepersLost: Scenario = {
  name: 'two ZooKeeper nodes lost',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; 3 ZooKeeper nodes, two isolated 15 s',
  async nemesis(ctx) {
    const before = await leaderEpochs(ctx);
    ctx.log(`isolating zk2 and zk3 (no quorum); leaders ${before}`);
    ctx.cluster.net.isolate('zk2');
    ctx.cluster.net.isolate('zk3');
    await hold(10000);
    ctx.cluster.net.healAll();
    await ctx.cluster.waitForZkQuorum([1, 2, 3], 60000);
    ctx.log('quorum back');
    await ctx.moreAcks(5, 60000);
    const after = await leaderEpochs(ctx);
    // Without a quorum no session can expire and nothing can be written: no leader may change.
    if (after !== before) ctx.log(`leaders after the heal: ${before} -> ${after}`);
  },
};

/** A random pair cut or host isolation of 5-15 s, `rounds` times, with a short heal in between. */
function randomNemesis(rounds: number): Scenario['nemesis'] {
  return async (ctx) => {
    const hosts = [...ctx.cluster.zkHosts(), ...ctx.cluster.brokerHosts()];
    const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)] as T;
    for (let round = 1; round <= rounds; round++) {
      const a = pick(hosts);
      if (Math.random() < 0.5) {
        ctx.cluster.net.isolate(a);
        ctx.log(`round ${round}: isolated ${a}`);
      } else {
        const b = pick([...hosts.filter((h) => h !== a), CLIENT]);
        ctx.cluster.net.cut(a, b);
        ctx.log(`round ${round}: cut ${a} from ${b}`);
      }
      await hold(5000 + Math.random() * 10000);
      ctx.cluster.net.healAll();
      await hold(2000);
    }
  };
}

export const randomPartitions: Scenario = {
  name: 'random nemesis, 20 rounds',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; 20 random cuts/isolations of 5-15 s',
  settleMs: 180000,
  nemesis: randomNemesis(20),
};

export const logDirFull: Scenario = {
  name: 'log dir on a full tmpfs',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; broker 3 log dir a 64 MiB tmpfs',
  cluster: { tmpfsLogDir: { 3: '64m' } },
  async nemesis(ctx) {
    const broker = ctx.cluster.broker(3);
    const filler = path.join(broker.dataDir, 'filler');
    ctx.log('filling broker 3 log dir');
    const fd = fs.openSync(filler, 'w');
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (;;) fs.writeSync(fd, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    } finally {
      fs.closeSync(fd);
    }
    // The next append fails: the log dir goes offline and, being the only one, the broker stops (Kafka 2.8).
    await broker.child?.exited;
    ctx.log(`broker 3 exited once its log dir failed; leaders ${await leaderEpochs(ctx)}`);
    await ctx.moreAcks(20, 60000);
    fs.rmSync(filler);
    await ctx.cluster.startBroker(3);
    ctx.log('broker 3 restarted after space was freed');
  },
};

export const allBrokersKilled: Scenario = {
  name: 'all brokers SIGKILLed at once',
  settings: 'RF 3, min.insync.replicas 2, acks=all, max.in.flight 1; SIGKILL of all 3 mid-load, restart',
  async nemesis(ctx) {
    const ids = [...ctx.cluster.brokers.keys()];
    ctx.log('SIGKILL every broker');
    await Promise.all(ids.map((id) => ctx.cluster.killBroker(id, 'SIGKILL')));
    // As Kafka 2.8's, a broker that finds its /brokers/ids/<id> still held by its killed session stops at start-up
    // ("node already exists and owner ... does not match current session"): restart once ZooKeeper has expired it.
    await Promise.all(ids.map((id) => waitUntil(async () => (await ctx.zk.exists(`/brokers/ids/${id}`)) === null, { timeoutMs: 60000, message: `the killed broker ${id}'s registration to expire` })));
    await Promise.all(ids.map((id) => ctx.cluster.startBroker(id)));
    ctx.log('every broker restarted');
  },
};

/** Every scenario, in the order `npm run chaos` runs them. */
export const scenarios: Scenario[] = [
  oneZooKeeperLost,
  leaderCutFromFollowers,
  leaderCutFromZooKeeper,
  leaderCutFromZooKeeperIdempotent,
  controllerIsolated,
  twoZooKeepersLost,
  allBrokersKilled,
  logDirFull,
  randomPartitions,
];
