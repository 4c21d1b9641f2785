import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { DESCRIPTOR_RESERVE } from '../../../src/broker/network/descriptor-headroom';
import { freePort } from '../../helpers/free-port';
import { TestCluster } from '../../helpers/test-cluster';
import { waitUntil } from '../../helpers/wait-until';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';

const API_VERSIONS_V0 = (correlationId: number): Buffer => requestFrame(18, 0, correlationId, Buffer.alloc(0));
const METADATA_V1_ALL = (correlationId: number): Buffer => requestFrame(3, 1, correlationId, Buffer.from('ffffffff', 'hex'));

function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Established TCP connections whose local port is `port` (the broker's side of its clients), from /proc/net. */
function establishedTo(port: number): number {
  let n = 0;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(file)) continue;
    for (const line of fs.readFileSync(file, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '01' && local !== undefined && parseInt(local.split(':')[1] ?? '', 16) === port) n++;
    }
  }
  return n;
}

function openFds(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** Opens `n` raw connections; resolves with the ones the broker answered ApiVersions on and how many it closed. */
async function connectMany(port: number, n: number): Promise<{ served: RawConnection[]; refused: number }> {
  const served: RawConnection[] = [];
  let refused = 0;
  for (let i = 0; i < n; i++) {
    let c: RawConnection;
    try {
      c = await RawConnection.open(port);
    } catch {
      refused++;
      continue;
    }
    c.send(API_VERSIONS_V0(i));
    if ((await c.response(i, 3000)) !== undefined) served.push(c);
    else {
      refused++;
      c.close();
    }
  }
  return { served, refused };
}

/**
 * Connection limits and back-pressure against a real broker: Kafka's max.connections.per.ip (with overrides),
 * max.connections and max.connection.creation.rate refuse at accept and log once per interval; running out of
 * file descriptors stops accepting without taking a log dir offline; a client that pipelines without reading,
 * and frames that arrive slowly, cost memory in proportion to what the broker has read, not to what they claim.
 */
describe('abuse: connections and back-pressure', () => {
  let cluster: TestCluster;
  const IDS = [0, 1, 2];

  // Three brokers; the abuse targets broker 0.
  beforeAll(async () => {
    cluster = await TestCluster.start({ brokers: 3, props: { 'max.connections.per.ip': '5', 'max.connections.per.ip.overrides': 'localhost:7' } });
    // The controller's channels are up once every broker has had its UpdateMetadata.
    for (const id of IDS) await cluster.waitForBrokerInMetadata(id);
  }, 120000);
  afterAll(async () => cluster?.close());

  /** Restarts brokers with extra properties (by id) and waits until every broker's metadata lists them. */
  async function restart(props: Record<number, Record<string, string>>): Promise<void> {
    const ids = Object.keys(props).map(Number);
    // One at a time: each controlled shutdown finds a controller to talk to.
    for (const id of ids) await cluster.broker(id).child.stop({ graceMs: 10000 });
    await Promise.all(ids.map((id) => cluster.startBroker(id, props[id])));
    // Until the controller's UpdateMetadata arrives (over its own channel to each broker), clients see no brokers.
    for (const id of ids) await cluster.waitForBrokerInMetadata(id);
  }

  /**
   * Every broker gets an INTERNAL inter-broker listener next to its client port: Kafka exempts that one from the
   * broker-wide limits (KIP-402, KIP-612), so the controller's requests and controlled shutdown keep getting
   * through however many clients crowd the client listener. Inter-broker listeners must agree across brokers.
   */
  async function withInternalListeners(props: Record<string, string>, ids = IDS): Promise<void> {
    const byId: Record<number, Record<string, string>> = {};
    for (const id of ids) {
      byId[id] = {
        listeners: `PLAINTEXT://127.0.0.1:${cluster.broker(id).port},INTERNAL://127.0.0.1:${await freePort()}`,
        'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT',
        'inter.broker.listener.name': 'INTERNAL',
        ...(id === 0 ? props : {}),
      };
    }
    await restart(byId);
  }

  const PLAIN = { 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT', 'inter.broker.listener.name': 'PLAINTEXT' };

  it('max.connections.per.ip: the connections past the limit are closed at accept, logged once per interval', async () => {
    const port = cluster.broker(0).port;
    // The override names localhost: 127.0.0.1 may open 7, counting the controller's channel to this broker
    // (per-IP limits count inter-broker connections too, as in Kafka).
    const existing = establishedTo(port);
    expect(existing).toBeGreaterThanOrEqual(1);
    const { served, refused } = await connectMany(port, 25);
    try {
      expect(served).toHaveLength(7 - existing);
      expect(refused).toBe(25 - (7 - existing));
      const lines = cluster.broker(0).child.output().split('\n').filter((l) => l.includes('Rejected connection from /127.0.0.1, address already has the configured maximum of 7 connections.'));
      expect(lines).toHaveLength(1);
      served.pop()?.close();
      await waitUntil(
        async () => {
          const one = await connectMany(port, 1);
          for (const c of one.served) c.close();
          return one.served.length === 1;
        },
        { timeoutMs: 10000, message: 'a slot to free up after a close' },
      );
    } finally {
      for (const c of served) c.close();
    }
  }, 60000);

  it('max.connections and max.connection.creation.rate refuse at accept; the broker keeps serving', async () => {
    await withInternalListeners({ 'max.connections': '4', 'max.connections.per.ip': '100', 'max.connections.per.ip.overrides': '' });
    const port = cluster.broker(0).port;
    const capped = await connectMany(port, 10);
    for (const c of capped.served) c.close();
    // The controller's channel to this broker (INTERNAL) counts towards the total but is never refused (Kafka's
    // protected listener): clients get the other three.
    expect(capped.served).toHaveLength(3);
    expect(cluster.broker(0).child.output()).toMatch(/Rejected connection from \/127\.0\.0\.1, the broker already has the configured maximum of 4 connections \(max\.connections\)\./);
    await withInternalListeners({ 'max.connection.creation.rate': '5', 'max.connections.per.ip': '100', 'max.connections.per.ip.overrides': '' }, [0]);
    // A fresh second: the first connection gets through, then only about the rate does.
    await waitUntil(
      async () => {
        const one = await connectMany(port, 1);
        for (const c of one.served) c.close();
        return one.served.length === 1;
      },
      { timeoutMs: 10000, message: 'a first connection under the rate' },
    );
    const started = Date.now();
    const burst = await connectMany(port, 20);
    for (const c of burst.served) c.close();
    const seconds = Math.max(1, Math.ceil((Date.now() - started) / 1000));
    expect(burst.served.length).toBeLessThanOrEqual(5 * (seconds + 1));
    expect(burst.refused).toBeGreaterThan(0);
    expect(cluster.broker(0).child.output()).toMatch(/Rejected connection from \/127\.0\.0\.1, more than max\.connection\.creation\.rate=5 new connections in the last second\./);
    // Back to one listener each and no limits for the cases below.
    const plain: Record<number, Record<string, string>> = {};
    for (const id of IDS) plain[id] = { ...PLAIN, listeners: `PLAINTEXT://127.0.0.1:${cluster.broker(id).port}`, 'max.connections.per.ip': '100000', 'max.connections.per.ip.overrides': '' };
    await restart(plain);
  }, 180000);

  it('running out of file descriptors stops accepting until some are free, and never fails a log dir', async () => {
    const broker = cluster.broker(0);
    const port = broker.port;
    const kafka = new Kafka({ clientId: 'fd-test', brokers: [`127.0.0.1:${port}`], logLevel: logLevel.NOTHING, retry: { retries: 20, initialRetryTime: 100 } });
    const admin = kafka.admin();
    await admin.connect();
    // Led by broker 0, replicated to the others.
    await admin.createTopics({ topics: [{ topic: 'fds', replicaAssignment: [{ partition: 0, replicas: [0, 1, 2] }] }], waitForLeaders: true });
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({ topic: 'fds', messages: [{ value: 'before' }] });
    // Only the soft limit moves: lowering the hard one could not be undone without CAP_SYS_RESOURCE.
    const [soft] = execFileSync('prlimit', [`--pid=${broker.child.pid}`, '--nofile', '--output=SOFT', '--noheadings', '--raw']).toString().trim().split(/\s+/);
    const limit = openFds(broker.child.pid) + DESCRIPTOR_RESERVE + 15;
    execFileSync('prlimit', [`--pid=${broker.child.pid}`, `--nofile=${limit}:`]);
    try {
      const flood = await connectMany(port, 60);
      expect(flood.refused).toBeGreaterThan(0);
      await waitUntil(() => /Too many open files \(\d+ of \d+ descriptors in use, 64 kept for the log\): not accepting new connections on PLAINTEXT for now/.test(broker.child.output()), { timeoutMs: 10000, message: 'the EMFILE line' });
      // The connections it has keep working, and the log dir stays online.
      await producer.send({ topic: 'fds', messages: [{ value: 'during' }] });
      for (const c of flood.served) c.close();
      // Once descriptors are free, it accepts again.
      await waitUntil(async () => {
        const again = await connectMany(port, 1);
        for (const c of again.served) c.close();
        return again.served.length === 1;
      }, { timeoutMs: 20000, message: 'accepting again after the flood' });
      await producer.send({ topic: 'fds', messages: [{ value: 'after' }] });
      expect(broker.child.output()).not.toMatch(/Stopping serving logs in dir|all log dirs|offline/i);
    } finally {
      execFileSync('prlimit', [`--pid=${broker.child.pid}`, `--nofile=${soft}:`]);
      await producer.disconnect();
      await admin.disconnect();
    }
  }, 90000);

  it('a client that pipelines 20,000 requests and reads nothing costs one request and one response', async () => {
    const broker = cluster.broker(0);
    const before = rssMb(broker.child.pid);
    const greedy = await RawConnection.open(broker.port);
    greedy.socket.pause(); // never reads a response
    const frames = Array.from({ length: 20_000 }, (_, i) => METADATA_V1_ALL(i));
    greedy.send(...frames);
    const other = await RawConnection.open(broker.port);
    try {
      // Others are served meanwhile.
      for (let i = 0; i < 50; i++) {
        other.send(METADATA_V1_ALL(100_000 + i));
        expect(await other.response(100_000 + i, 5000)).toBeDefined();
      }
      expect(rssMb(broker.child.pid) - before).toBeLessThan(64);
    } finally {
      other.close();
      greedy.close();
    }
  }, 60000);

  it('frames arriving slowly cost what has arrived, not what they declare: 40 connections each claiming 100 MB', async () => {
    const broker = cluster.broker(0);
    const before = rssMb(broker.child.pid);
    const slow = await Promise.all(Array.from({ length: 40 }, () => RawConnection.open(broker.port)));
    const header = Buffer.alloc(4);
    header.writeInt32BE(100 * 1024 * 1024 - 1);
    for (const c of slow) c.sendRaw(header);
    for (let round = 0; round < 20; round++) {
      for (const c of slow) c.sendRaw(Buffer.alloc(1000, 7));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const other = await RawConnection.open(broker.port);
    try {
      other.send(API_VERSIONS_V0(1));
      expect(await other.response(1, 5000)).toBeDefined();
      expect(rssMb(broker.child.pid) - before).toBeLessThan(64);
    } finally {
      for (const c of [...slow, other]) c.close();
    }
  }, 60000);

  it('queued.max.request.bytes: frames beyond the pool wait their turn, and all of them are answered', async () => {
    await restart({ 0: { 'queued.max.request.bytes': String(8 * 1024 * 1024), 'socket.request.max.bytes': String(8 * 1024 * 1024), 'max.connections.per.ip': '1000', 'max.connections.per.ip.overrides': '' } });
    const broker = cluster.broker(0);
    const port = broker.port;
    const before = rssMb(broker.child.pid);
    // Five 6 MB requests at once: only one fits the 8 MB pool at a time.
    const padded = (id: number): Buffer => Buffer.concat([METADATA_V1_ALL(id), Buffer.alloc(6 * 1024 * 1024)]);
    const conns = await Promise.all(Array.from({ length: 5 }, () => RawConnection.open(port)));
    try {
      conns.forEach((c, i) => c.send(padded(i)));
      for (const [i, c] of conns.entries()) expect(await c.response(i, 20000)).toBeDefined();
      expect(rssMb(broker.child.pid) - before).toBeLessThan(64);
    } finally {
      for (const c of conns) c.close();
    }
  }, 60000);
});
