import { ChildProcess, spawn } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { captureLogs } from '../../helpers/capture-logs';
import { fourLetterWord } from '../../helpers/four-letter-word';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { startZkEnsemble, uniqueChroot, ZkEnsemble } from '../../helpers/zk-ensemble';
import { ZkClient, ZkClientOptions, ZkStat } from '../../../src/zk/zk-client';

/**
 * ZooKeeper clients while servers of a real 3-node ensemble stop and start. The C client moves to another server
 * of the connect string by itself and the session survives; these tests make sure ZkClient leaves it at that,
 * and that what it does when a handle is closed under it (a real expiry, or the binding's own heuristics) ends in
 * a working session. The first report: after one server's restart, every new handle of the test's own client
 * "expired" within milliseconds for minutes, because the restarted server (a child of the test process) held a
 * copy of the client's socket (see src/common/child-process.ts).
 */

/** Long enough for a stop and a start of a server on a busy 2-core machine, short of what a test waits. */
const SESSION_TIMEOUT_MS = 20000;
/** How long one operation may take, a reconnection included. */
const OP_DEADLINE_MS = 15000;

function within<T>(promise: Promise<T>, what: string, ms = OP_DEADLINE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Client connections a server has (its `stat` list, less the `stat` connection itself). */
async function clientCount(ensemble: ZkEnsemble, index: number): Promise<number> {
  const node = ensemble.nodes[index];
  if (node === undefined) return 0;
  const stat = await fourLetterWord(node.host, node.clientPort, 'stat').catch(() => '');
  return Math.max(0, (stat.match(/^ \/[\d.]+:\d+\[/gm) ?? []).length - 1);
}

describe('ZooKeeper clients across ZooKeeper server restarts (real 3-node ensemble)', () => {
  let ensemble: ZkEnsemble;
  const clients: ZkClient[] = [];

  beforeAll(async () => {
    ensemble = await startZkEnsemble({ size: 3 });
  }, 90000);

  afterAll(async () => {
    for (const c of clients) c.close();
    await ensemble?.close();
  });

  beforeEach(async () => {
    await ensemble.waitForQuorum();
  }, 90000);

  async function connect(name: string, options: Partial<ZkClientOptions> = {}): Promise<ZkClient> {
    const zk = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: SESSION_TIMEOUT_MS, connectionTimeoutMs: 30000, name, ...options });
    clients.push(zk);
    return zk;
  }

  /** A client's ephemeral node, created now and re-created by its onSessionReinitialized hook; counts the hooks. */
  async function withEphemeral(zk: ZkClient, path: string): Promise<{ before: number; after: number }> {
    const hooks = { before: 0, after: 0 };
    const create = async (): Promise<void> => {
      try {
        await zk.createRecursive(path, Buffer.from(zk.sessionId), 'EPHEMERAL');
      } catch (err) {
        if (!(err instanceof Error && /NODEEXISTS/.test(err.message))) throw err;
      }
    };
    zk.onBeforeSessionReinitialized(() => {
      hooks.before++;
    });
    zk.onSessionReinitialized(async () => {
      hooks.after++;
      await create();
    });
    await create();
    return hooks;
  }

  it('keeps its session, its ephemeral node and working operations while each server in turn stops and starts', async () => {
    const base = uniqueChroot('rolling');
    const zk = await connect('rolling');
    const session = zk.sessionId;
    const hooks = await withEphemeral(zk, `${base}/eph`);
    await zk.createRecursive(`${base}/counter`, Buffer.from('0'));

    // Operations all along: each must finish within OP_DEADLINE_MS, a reconnection to another server included.
    let running = true;
    let ops = 0;
    let slowestMs = 0;
    const failures: string[] = [];
    const load = (async () => {
      while (running) {
        const started = Date.now();
        try {
          await within(zk.setData(`${base}/counter`, Buffer.from(String(ops))), `setData #${ops}`);
          const read = await within(zk.getData(`${base}/counter`), `getData #${ops}`);
          if (read?.data?.toString() !== String(ops)) failures.push(`read ${read?.data?.toString()} after writing ${ops}`);
        } catch (err) {
          failures.push(String(err));
        }
        slowestMs = Math.max(slowestMs, Date.now() - started);
        ops++;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();

    try {
      for (const index of [0, 1, 2]) {
        await ensemble.stop(index);
        const opsBefore = ops;
        await waitUntil(() => ops >= opsBefore + 5, { timeoutMs: 30000, message: `operations with server ${index + 1} stopped` });
        await ensemble.restart(index);
        const opsAfter = ops;
        await waitUntil(() => ops >= opsAfter + 5, { timeoutMs: 30000, message: `operations after server ${index + 1} restarted` });
      }
    } finally {
      running = false;
      await load;
    }
    expect(failures).toEqual([]);
    expect(slowestMs).toBeLessThan(OP_DEADLINE_MS);
    expect(zk.sessionId).toBe(session);
    expect((await zk.exists(`${base}/eph`))?.ephemeralOwner).toBe(session);
    expect(hooks).toEqual({ before: 0, after: 0 });
  }, 300000);

  it('reconnects after losing the quorum briefly: the same session, or a new one with the hooks run and the ephemeral re-created', async () => {
    const base = uniqueChroot('quorum');
    // One client whose session outlives the outage, one whose session may well not (ZooKeeper's new leader gives
    // every session a fresh timeout, so even a short one can survive): either way each must end up working.
    const long = await connect('quorum-long');
    const short = await connect('quorum-short', { sessionTimeoutMs: 2000 });
    const cases = [
      { zk: long, session: long.sessionId, path: `${base}/long`, hooks: await withEphemeral(long, `${base}/long`) },
      { zk: short, session: short.sessionId, path: `${base}/short`, hooks: await withEphemeral(short, `${base}/short`) },
    ];
    const leader = (await ensemble.leaderIndex()) as number;
    const follower = [0, 1, 2].find((i) => i !== leader) as number;
    const lostAt = Date.now();
    await Promise.all([ensemble.stop(leader), ensemble.stop(follower)]);
    await ensemble.restart(leader);
    await ensemble.restart(follower);
    const outageMs = Date.now() - lostAt;
    process.stderr.write(`quorum lost for ${outageMs} ms\n`);
    expect(outageMs).toBeLessThan(SESSION_TIMEOUT_MS);

    for (const c of cases) {
      await within(c.zk.setData(`${base}`, Buffer.from('after')), `a write by ${c.path}`, 60000);
      if (c.zk.sessionId === c.session) {
        expect(c.hooks).toEqual({ before: 0, after: 0 });
        expect((await c.zk.exists(c.path))?.ephemeralOwner).toBe(c.session);
      } else {
        process.stderr.write(`${c.path}: session ${c.session} expired, now ${c.zk.sessionId}\n`);
        const stat = await waitUntil(async () => {
          const s = await c.zk.exists(c.path);
          return s?.ephemeralOwner === c.zk.sessionId ? s : undefined;
        }, { timeoutMs: 30000, message: `${c.path} re-created by the new session` });
        expect(stat.ephemeralOwner).toBe(c.zk.sessionId);
        expect(c.hooks).toEqual({ before: 1, after: 1 });
      }
    }
    // The long session cannot have expired: the outage was shorter than its timeout.
    expect(long.sessionId).toBe(cases[0]?.session);
  }, 300000);

  it('gets a new session, runs the hooks and re-creates the ephemeral when its only server is away past the session timeout', async () => {
    const base = uniqueChroot('expiry');
    const leader = (await ensemble.leaderIndex()) as number;
    const index = [0, 1, 2].find((i) => i !== leader) as number;
    const observer = await connect('observer');
    const zk = await connect('single-server', { connectString: ensemble.nodes[index]?.hostPort as string, sessionTimeoutMs: 2000 });
    const session = zk.sessionId;
    const hooks = await withEphemeral(zk, `${base}/eph`);
    expect((await observer.exists(`${base}/eph`))?.ephemeralOwner).toBe(session);

    await ensemble.stop(index);
    // The leader expires the session and deletes the node while the client cannot reach it.
    await waitUntil(async () => (await observer.exists(`${base}/eph`)) === null, { timeoutMs: 30000, message: 'the session to expire' });
    await ensemble.restart(index);

    const stat = await waitUntil(
      async (): Promise<ZkStat | undefined> => {
        const s = await observer.exists(`${base}/eph`);
        return s !== null && s.ephemeralOwner !== session ? s : undefined;
      },
      { timeoutMs: 60000, message: 'the ephemeral node re-created by a new session' },
    );
    expect(stat.ephemeralOwner).toBe(zk.sessionId);
    expect(zk.sessionId).not.toBe(session);
    expect(hooks).toEqual({ before: 1, after: 1 });
    await within(zk.setData(`${base}/eph`, Buffer.from('new session')), 'a write on the new session');
  }, 300000);

  it('resumes the session (no hooks, ephemeral intact, lost watches told) when the client library closes a handle between servers', async () => {
    const logs = captureLogs();
    const base = uniqueChroot('resume');
    const leader = (await ensemble.leaderIndex()) as number;
    const [first, second] = [0, 1, 2].filter((i) => i !== leader) as [number, number];
    const hostPorts = `${ensemble.nodes[first]?.hostPort},${ensemble.nodes[second]?.hostPort}`;
    // Connected to `first` for sure: `second` is down while the session is opened. The binding's own limit (10
    // empty polls in a row) makes it close handles as it does by default.
    await ensemble.stop(second);
    const zk = await connect('resume', { connectString: hostPorts, responseCounterLimit: 10 });
    await ensemble.restart(second);
    const session = zk.sessionId;
    const hooks = await withEphemeral(zk, `${base}/eph`);
    const events: string[] = [];
    await zk.exists(`${base}/watched`, (event) => {
      events.push(event);
    });
    // What the first report had: a long-lived child holding a copy of the client's socket. When the C client
    // closes the socket (its server stops), epoll keeps reporting the dead socket under its number, which the
    // socket to the next server reuses, and the binding closes that handle within milliseconds.
    const holder: ChildProcess = spawn('sleep', ['600'], { stdio: 'ignore' });
    const closedByLibrary = /WARN \[ZooKeeperClient resume\] The client library closed the handle while reconnecting \(state -112\)/;
    try {
      await ensemble.stop(first);
      await waitUntil(() => closedByLibrary.test(logs.sofar()), { timeoutMs: 30000, message: 'the binding to close the handle' });
    } finally {
      // With the child, the dead socket goes: the next handle, resuming the session, can connect.
      holder.kill('SIGKILL');
    }
    await within(zk.setData(`${base}/eph`, Buffer.from('resumed')), 'a write after the handle was replaced', 60000);
    expect(zk.sessionId).toBe(session);
    expect((await zk.exists(`${base}/eph`))?.ephemeralOwner).toBe(session);
    expect(hooks).toEqual({ before: 0, after: 0 });
    // The watch went with the closed handle: its owner is told, and can set it again.
    await waitUntil(() => events.includes('session'), { timeoutMs: 10000, message: 'the lost watch to be told' });
    logs.text();
    await ensemble.restart(first);
  }, 300000);

  it('reads znodes of almost 1 MB without the binding closing the session (a response in pieces is no hang)', async () => {
    const base = uniqueChroot('large');
    const zk = await connect('large');
    const session = zk.sessionId;
    const hooks = await withEphemeral(zk, `${base}/eph`);
    // About 1 MB arrives in some 20 reads; the binding's default limit (10) took each partial read for an empty
    // poll and closed the connected handle, and with it the session.
    await zk.createRecursive(`${base}/large`, Buffer.alloc(1_000_000, 7));
    for (let round = 0; round < 3; round++) {
      const reads = await within(Promise.all(Array.from({ length: 5 }, () => zk.getData(`${base}/large`))), 'five reads of 1 MB', 60000);
      for (const r of reads) expect(r?.data?.length).toBe(1_000_000);
    }
    expect(zk.sessionId).toBe(session);
    expect(hooks).toEqual({ before: 0, after: 0 });
    await zk.delete(`${base}/large`);
  }, 120000);

  it('a 3-broker cluster keeps /brokers/ids/<id> and produces and consumes across one ZooKeeper server restart', async () => {
    const cluster = await TestCluster.start({ brokers: 3, ensemble });
    const kafka = new Kafka({ clientId: 'zk-restart', brokers: cluster.bootstrap.split(','), logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
    const producer = kafka.producer({ allowAutoTopicCreation: false });
    const consumer = kafka.consumer({ groupId: 'zk-restart-group' });
    const admin = kafka.admin();
    try {
      const ids = `${cluster.chroot}/brokers/ids`;
      const registrations = async (): Promise<Map<string, ZkStat | null>> => new Map(await Promise.all([0, 1, 2].map(async (id) => [String(id), await cluster.zk.exists(`${ids}/${id}`)] as const)));
      const before = await registrations();
      expect([...before.values()].every((s) => s !== null)).toBe(true);

      for (const id of [0, 1, 2]) await cluster.waitForBrokerInMetadata(id);
      await admin.connect();
      // Until every broker has the controller from UpdateMetadata, kafkajs may find none ("Broker -1 not found").
      await waitUntil(async () => {
        await admin.createTopics({ topics: [{ topic: 'restart', numPartitions: 3, replicationFactor: 3 }], waitForLeaders: true });
        return true;
      }, { timeoutMs: 60000, intervalMs: 500, message: 'topic restart created' });
      await producer.connect();
      const send = async (from: number): Promise<void> => {
        await producer.send({ topic: 'restart', acks: -1, messages: Array.from({ length: 50 }, (_, i) => ({ key: `k${from + i}`, value: `v${from + i}` })) });
      };
      await send(0);

      // The server with the most sessions on it: some of the brokers move to another server.
      const counts = await Promise.all([0, 1, 2].map((i) => clientCount(ensemble, i)));
      const busiest = counts.indexOf(Math.max(...counts));
      process.stderr.write(`client connections per server before the restart: ${counts.join(', ')}; restarting server ${busiest + 1}\n`);
      await ensemble.restart(busiest);

      // Every registration is the same node (same czxid, the broker epoch): no session was lost.
      const after = await waitUntil(async () => {
        const r = await registrations();
        return [...r.values()].every((s) => s !== null) ? r : undefined;
      }, { timeoutMs: 30000, message: 'all three brokers registered' });
      for (const id of ['0', '1', '2']) expect(after.get(id)?.czxid).toBe(before.get(id)?.czxid);
      await send(50);

      const seen = new Set<string>();
      await consumer.connect();
      await consumer.subscribe({ topic: 'restart', fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          seen.add(message.value?.toString() ?? '');
        },
      });
      await waitUntil(() => seen.size === 100, { timeoutMs: 60000, message: () => `all 100 records consumed (${seen.size} so far)` });
      expect([...seen].sort()).toEqual(Array.from({ length: 100 }, (_, i) => `v${i}`).sort());
      for (const id of [0, 1, 2]) expect(cluster.broker(id).readLog()).not.toMatch(/Session expired|closed the (connected )?handle/);
    } finally {
      await consumer.disconnect().catch(() => undefined);
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      await cluster.close();
    }
  }, 300000);
});
