/*
 * Issue 12's abuse suite, wire level: hostile inputs sent over raw TCP to a real 3-broker cluster (real ZooKeeper
 * ensemble). Each case asserts the target behaviour from the issue: the broker stays alive, its resident memory
 * stays under the case's stated bound (docs/reliability.md, one section per case), and afterwards normal kafkajs
 * clients still produce (acks=-1) and consume everything acknowledged so far.
 *
 * A case the broker does not survive yet would be registered only with ABUSE_PENDING=1, at the bottom; there are
 * none today (the findings F3, F4 and F5 of the first fuzz runs are fixed and run with the rest).
 */
import { FetchApi } from '../../../src/protocol/apis/fetch';
import {
  API_VERSIONS_V0,
  AckLedger,
  MiB,
  RawConnection,
  assertHealthy,
  createTopic,
  kafka,
  mib,
  probeBroker,
  rawConnect,
  requestFrame,
  rssDuring,
  sleep,
  startAbuseCluster,
} from '../../helpers/abuse';
import { BrokerProcess } from '../../helpers/broker-process';
import { encodeRequestFrame } from '../../helpers/structured-fuzz';
import { TestCluster } from '../../helpers/test-cluster';

const TOPIC = 'abuse-wire';

let cluster: TestCluster;
const ledger = new AckLedger();

function log(line: string): void {
  process.stdout.write(`abuse ${line}\n`);
}

function sizePrefix(size: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(size >>> 0);
  return b;
}

/** Waits until the broker closes `c` (true) or `ms` pass (false). */
async function closedWithin(c: RawConnection, ms: number): Promise<boolean> {
  await c.until(() => false, ms);
  return c.closed;
}

/** Another connection to the same broker is still answered while (or after) the abuse goes on. */
async function answersOthers(b: BrokerProcess): Promise<void> {
  const p = await probeBroker(b, 10000);
  expect(`broker ${b.brokerId}: ${p.alive ? 'answers' : p.error}`).toBe(`broker ${b.brokerId}: answers`);
}

beforeAll(async () => {
  cluster = await startAbuseCluster();
  await createTopic(cluster, TOPIC, 3);
  const producer = kafka(cluster, 'abuse-before').producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await ledger.send(producer, TOPIC, Array.from({ length: 200 }, (_, i) => `before-${i}`));
  await producer.disconnect();
}, 60000);

afterAll(async () => {
  await cluster?.close();
});

describe('abuse at the wire level: what the broker survives today', () => {
  it('a frame size prefix of 2 GiB (and 1 GiB) closes the connection before anything is allocated', async () => {
    const b = cluster.broker(0);
    // 0x7fffffff is the largest INT32 size; 0x80000000 (2 GiB exactly) reads as -2^31.
    for (const declared of [0x7fffffff, 0x80000000, 0x40000000]) {
      const m = await rssDuring(b, async () => {
        const c = await rawConnect(b);
        c.sendRaw(Buffer.concat([sizePrefix(declared), Buffer.alloc(1024, 0x41)]));
        return closedWithin(c, 2000);
      });
      log(`size prefix 0x${declared.toString(16)}: closed=${m.result} rss ${mib(m.before)} -> max ${mib(m.max)}`);
      expect(m.result).toBe(true);
      expect(m.max - m.before).toBeLessThan(16 * MiB);
    }
    await answersOthers(b);
    await assertHealthy(cluster, TOPIC, ledger, 50);
  });

  it('negative size prefixes close the connection at once', async () => {
    const b = cluster.broker(1);
    for (const declared of [-1, -2, -2147483647, -100]) {
      const c = await rawConnect(b);
      const head = Buffer.alloc(4);
      head.writeInt32BE(declared);
      c.sendRaw(Buffer.concat([head, Buffer.alloc(64)]));
      expect(await closedWithin(c, 2000)).toBe(true);
    }
    await answersOthers(b);
  });

  it('slowloris: 64 connections declaring 100 MiB frames, 1 byte per 10 ms each: memory follows the bytes received, not the declared 6.4 GiB', async () => {
    const b = cluster.broker(2);
    const CONNECTIONS = 64;
    const DECLARED = 104857600 - 64; // just under socket.request.max.bytes
    const SECONDS = 10;
    const conns: RawConnection[] = [];
    for (let i = 0; i < CONNECTIONS; i++) conns.push(await rawConnect(b));
    await sleep(500);
    let received = 0;
    const m = await rssDuring(
      b,
      async () => {
        for (const c of conns) c.sendRaw(sizePrefix(DECLARED));
        received += 4 * CONNECTIONS;
        const end = Date.now() + SECONDS * 1000;
        while (Date.now() < end) {
          await sleep(10);
          for (const c of conns) if (!c.closed) c.sendRaw(Buffer.from([0x00]));
          received += CONNECTIONS;
        }
        await sleep(300);
      },
      100,
    );
    const open = conns.filter((c) => !c.closed).length;
    const growth = m.max - m.before;
    log(
      `slowloris: ${CONNECTIONS} connections x ${mib(DECLARED)} declared, ${received} bytes sent in ${SECONDS} s (1 byte/10 ms each); ` +
        `rss ${mib(m.before)} -> max ${mib(m.max)} (+${mib(growth)}, ${(growth / received).toFixed(0)} bytes of RSS per byte received); ${open} still open`,
    );
    // Memory follows the bytes received (here ~40 KiB per connection), never the declared size: 6.4 GiB declared.
    expect(growth).toBeLessThan(64 * MiB);
    await answersOthers(b);
    for (const c of conns) c.close();
    await assertHealthy(cluster, TOPIC, ledger, 50);
  }, 60000);

  it('100,000 pipelined ApiVersions on one connection, responses unread: reading pauses, memory stays bounded, every answer comes in order', async () => {
    const b = cluster.broker(0);
    const N = 100_000;
    const c = await rawConnect(b);
    c.socket.pause();
    const m = await rssDuring(
      b,
      async () => {
        for (let i = 0; i < N; i += 10000) {
          c.send(...Array.from({ length: Math.min(10000, N - i) }, (_, j) => API_VERSIONS_V0(i + j)));
          await sleep(10);
        }
        await sleep(3000);
      },
      100,
    );
    log(`pipelined ApiVersions: ${N} sent unread (${mib(N * 17)}), client socket buffered ${mib(c.socket.writableLength)}; rss ${mib(m.before)} -> max ${mib(m.max)} (+${mib(m.max - m.before)})`);
    expect(m.max - m.before).toBeLessThan(64 * MiB);
    await answersOthers(b);
    c.socket.resume();
    expect(await c.until(() => c.frames.length >= N, 60000)).toBe(true);
    const inOrder = c.frames.every((f, i) => f.readInt32BE(0) === i);
    expect(inOrder).toBe(true);
    c.close();
  }, 120000);
});

// Findings of the first fuzz runs (docs/reliability.md, "Findings"), fixed since: F3 (slowloris amplification),
// F4 (Metadata with 50,000,000 empty topic names), F5 (pipelined 2 GiB fetches).

function fixedFindings(): void {
  it('slowloris amplification: 32 connections trickling 1 byte per ms: RSS grows by at most 8 bytes per byte received', async () => {
    const b = cluster.broker(2);
    const CONNECTIONS = 32;
    const conns: RawConnection[] = [];
    for (let i = 0; i < CONNECTIONS; i++) conns.push(await rawConnect(b));
    await sleep(500);
    let received = 0;
    const m = await rssDuring(
      b,
      async () => {
        for (const c of conns) c.sendRaw(sizePrefix(104857600 - 64));
        const end = Date.now() + 10000;
        while (Date.now() < end) {
          await sleep(1);
          for (const c of conns) if (!c.closed) c.sendRaw(Buffer.from([0x00]));
          received += CONNECTIONS;
        }
        await sleep(300);
      },
      100,
    );
    const growth = m.max - m.before;
    log(`slowloris amplification: ${received} bytes in 1-byte segments over ${CONNECTIONS} connections; rss ${mib(m.before)} -> max ${mib(m.max)} (+${mib(growth)}, ${(growth / received).toFixed(0)} bytes per byte)`);
    for (const c of conns) c.close();
    await answersOthers(b);
    expect(growth).toBeLessThan(8 * received + 16 * MiB);
  }, 60000);

  it('a Metadata request declaring 50,000,000 empty topic names, with the 100 MB actually present: the broker survives within 4x the request size', async () => {
    const b = cluster.broker(1);
    const COUNT = 50_000_000;
    const body = Buffer.alloc(4 + 2 * COUNT);
    body.writeInt32BE(COUNT, 0);
    const frame = requestFrame(3, 0, 4242, body);
    const c = await rawConnect(b);
    const m = await rssDuring(
      b,
      async () => {
        c.send(frame);
        await c.until(() => c.frames.length > 0, 120000);
        return { answered: c.frames.length > 0, closed: c.closed };
      },
      100,
    );
    log(`Metadata with ${COUNT} empty names (${mib(frame.length)} frame): answered=${m.result.answered} closed=${m.result.closed} alive=${b.child.isRunning()}; rss ${mib(m.before)} -> max ${mib(m.max)}`);
    c.close();
    await answersOthers(b); // first: a broker that is dying still runs for a moment
    expect(b.child.isRunning()).toBe(true);
    expect(m.max - m.before).toBeLessThan(4 * frame.length);
    await assertHealthy(cluster, TOPIC, ledger, 50);
  }, 240000);

  it('Fetch with maxBytes 2 GiB, 100 pipelined and unread, on a 16 MiB partition: memory stays within a few responses', async () => {
    const FETCH_TOPIC = 'abuse-fetch';
    await createTopic(cluster, FETCH_TOPIC, 1);
    const producer = kafka(cluster, 'abuse-fetch-fill').producer({ allowAutoTopicCreation: false });
    await producer.connect();
    const value = Buffer.alloc(10 * 1024, 0x61);
    for (let i = 0; i < 160; i++) await producer.send({ topic: FETCH_TOPIC, acks: 1, messages: Array.from({ length: 10 }, () => ({ value })) });
    await producer.disconnect();
    const LOG = 160 * 10 * value.length;
    const leader = ((await cluster.partitionState(FETCH_TOPIC, 0)) as { leader: number }).leader;
    const b = cluster.broker(leader);
    const fetch = (corr: number): Buffer =>
      encodeRequestFrame(FetchApi as never, 4, corr, 'abuse', {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: 0x7fffffff,
        isolationLevel: 0,
        topics: [{ topic: FETCH_TOPIC, partitions: [{ partition: 0, fetchOffset: 0, partitionMaxBytes: 0x7fffffff }] }],
      });
    const c = await rawConnect(b);
    c.socket.pause();
    const m = await rssDuring(
      b,
      async () => {
        c.send(...Array.from({ length: 100 }, (_, i) => fetch(i)));
        await sleep(5000);
      },
      100,
    );
    log(`Fetch maxBytes 2 GiB x 100 pipelined unread on a ${mib(LOG)} partition (leader ${leader}): alive=${b.child.isRunning()} rss ${mib(m.before)} -> max ${mib(m.max)} (+${mib(m.max - m.before)})`);
    c.close();
    await answersOthers(b);
    expect(b.child.isRunning()).toBe(true);
    expect(m.max - m.before).toBeLessThan(4 * LOG + 64 * MiB);
    await assertHealthy(cluster, TOPIC, ledger, 50);
  }, 120000);
}

describe('abuse at the wire level: the findings F3, F4, F5, fixed', fixedFindings);
