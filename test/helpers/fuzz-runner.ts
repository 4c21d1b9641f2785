/*
 * Sends StructuredFuzzer frames to a real cluster (issue 12): frame k goes to broker k mod n over one of several
 * concurrent connections per broker, followed by an ApiVersions v0 "marker" whose answer proves the connection
 * survived the frame (responses leave in request order). A connection the broker closes is reopened; one that
 * stays silent past the timeout (a parked Fetch or JoinGroup, a frame whose declared size was a lie) is closed by
 * us. Meanwhile every broker's RSS is sampled, and every `checkEveryFrames` frames each broker must still be running
 * and answer ApiVersions + Metadata on a fresh connection. A death or an unanswered probe is a finding, reported
 * with the frames last sent to that broker (seed, k, what was mutated, hex) so it can be replayed.
 */
import { Socket, connect } from 'node:net';
import { FrameDecoder } from '../../src/protocol/framing';
import { BrokerProcess } from './broker-process';
import { API_VERSIONS_V0, RssSampler, probeBroker } from './abuse';
import { knownFinding, skipKnownFindings } from './known-findings';
import { Mutant, StructuredFuzzer, frameRng } from './structured-fuzz';
import { TestCluster } from './test-cluster';

export interface FuzzRunOptions {
  cluster: TestCluster;
  fuzzer: StructuredFuzzer;
  /** Frames to send: k = firstFrame, firstFrame + 1, ... (frame k to broker k mod n) until this many were sent. */
  frames: number;
  firstFrame?: number;
  /** Concurrent connections per broker (default 12). */
  connectionsPerBroker?: number;
  /** How long a connection may stay silent after a frame before we give up on it (default 1500 ms). */
  responseTimeoutMs?: number;
  /** Liveness probes of every broker every this many frames (default 10000). */
  checkEveryFrames?: number;
  /** Share of frames sent with a size prefix that lies about the frame's length (default 0.005). */
  sizeLieRate?: number;
  /** Stop early (the result says so) when this much time has passed. */
  deadlineMs?: number;
  /** Called about once a second. */
  progress?: (r: FuzzRunResult) => void;
  /** How many recent frames per broker to keep for a finding's report (default 32). */
  keepRecent?: number;
  /** Skip frames that would trigger a known, unfixed finding (known-findings.ts); default: unless ABUSE_PENDING=1. */
  skipKnown?: boolean;
}

export interface Finding {
  kind: 'death' | 'unresponsive' | 'connect-failure';
  brokerId: number;
  atFrame: number;
  detail: string;
  /** The frames last sent to that broker, newest last, as StructuredFuzzer.describe lines. */
  recent: string[];
}

export interface ApiStats {
  frames: number;
  survived: number;
  closed: number;
  timeouts: number;
}

export interface FuzzRunResult {
  seed: number;
  /** Per API of the seed frame (before any relabelling of the header). */
  perApi: Map<string, ApiStats>;
  frames: number;
  /** Response frames to fuzzed requests (markers excluded). */
  responses: number;
  /** Frames after which the connection survived (the marker was answered). */
  survived: number;
  closedByBroker: number;
  timeouts: number;
  /** Frames sent with a lying size prefix (their connection is dropped; survived + closed + timeouts + sizeLies = frames). */
  sizeLies: number;
  connections: number;
  probes: number;
  slowestProbeMs: number;
  brokerDeaths: number;
  /** Frames not sent because they would trigger a known finding, per finding id. */
  skippedKnown: Map<string, number>;
  findings: Finding[];
  maxRss: Map<number, number>;
  firstRss: Map<number, number>;
  elapsedMs: number;
  framesPerSecond: number;
  stoppedEarly: boolean;
  /** Up to 10 examples of frames after which the connection stayed silent. */
  timeoutExamples: string[];
}

const MARKER_BASE = 0x40000000;

/** A lean connection: counts response frames and resolves when the marker answer (or a close) arrives. */
class FuzzConnection {
  closed = false;
  responses = 0;
  private readonly decoder = new FrameDecoder(1 << 30);
  private expecting = -1;
  private wake: ((outcome: 'answered' | 'closed') => void) | undefined;

  private constructor(readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.decoder.push(chunk, (f) => {
          if (f.length >= 4 && f.readInt32BE(0) === this.expecting) {
            this.expecting = -1;
            this.finish('answered');
          } else {
            this.responses++;
          }
        });
      } catch {
        socket.destroy();
      }
    });
    socket.on('close', () => {
      this.closed = true;
      this.finish('closed');
    });
    socket.on('error', () => undefined);
  }

  static open(port: number, timeoutMs: number): Promise<FuzzConnection> {
    return new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port });
      const t = setTimeout(() => {
        s.destroy();
        reject(new Error(`connect to ${port}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      s.once('connect', () => {
        clearTimeout(t);
        resolve(new FuzzConnection(s));
      });
      s.once('error', (e) => {
        clearTimeout(t);
        reject(e);
      });
    });
  }

  private finish(outcome: 'answered' | 'closed'): void {
    const w = this.wake;
    this.wake = undefined;
    w?.(outcome);
  }

  /** Writes `bytes` and waits for the answer to `marker`, a close, or the timeout. */
  exchange(bytes: Buffer, marker: number, timeoutMs: number): Promise<'answered' | 'closed' | 'timeout'> {
    if (this.closed) return Promise.resolve('closed');
    this.expecting = marker;
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.wake = undefined;
        resolve('timeout');
      }, timeoutMs);
      this.wake = (o) => {
        clearTimeout(t);
        resolve(o);
      };
      this.socket.write(bytes);
    });
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }
}

function sizePrefixed(frame: Buffer, declared = frame.length): Buffer {
  const head = Buffer.alloc(4);
  head.writeInt32BE(declared | 0);
  return Buffer.concat([head, frame]);
}

/** Runs the fuzzer against the cluster; never throws for what the brokers do (see the result's findings). */
export async function runFuzz(options: FuzzRunOptions): Promise<FuzzRunResult> {
  const { cluster, fuzzer } = options;
  const first = options.firstFrame ?? 0;
  /** Frames sent or being sent; frames skipped as known findings are replaced by the next k. */
  let reserved = 0;
  const perBroker = options.connectionsPerBroker ?? 12;
  const timeoutMs = options.responseTimeoutMs ?? 1500;
  const checkEvery = options.checkEveryFrames ?? 10000;
  const lieRate = options.sizeLieRate ?? 0.005;
  const keep = options.keepRecent ?? 32;
  const skipKnown = options.skipKnown ?? skipKnownFindings();
  const dead = new Set<number>();
  const brokers: BrokerProcess[] = [...cluster.brokers.values()].sort((a, b) => a.brokerId - b.brokerId);
  const n = brokers.length;
  const sampler = new RssSampler(() => brokers, 200).start();
  const t0 = Date.now();
  const result: FuzzRunResult = {
    seed: fuzzer.seed,
    perApi: new Map(),
    frames: 0,
    responses: 0,
    survived: 0,
    closedByBroker: 0,
    timeouts: 0,
    sizeLies: 0,
    connections: 0,
    probes: 0,
    slowestProbeMs: 0,
    brokerDeaths: 0,
    skippedKnown: new Map(),
    findings: [],
    maxRss: sampler.max,
    firstRss: sampler.first,
    elapsedMs: 0,
    framesPerSecond: 0,
    stoppedEarly: false,
    timeoutExamples: [],
  };
  const recent = brokers.map(() => [] as number[]);
  const next = brokers.map((_, i) => first + i);
  let aborted = false;
  let marker = MARKER_BASE;
  let nextCheckAt = checkEvery;
  let checking: Promise<void> | undefined;
  const deadline = options.deadlineMs === undefined ? Infinity : t0 + options.deadlineMs;

  const recentLines = (bi: number): string[] => (recent[bi] as number[]).map((k) => fuzzer.describe(fuzzer.frame(k)));
  const finding = (kind: Finding['kind'], bi: number, detail: string): void => {
    const b = brokers[bi] as BrokerProcess;
    if (kind === 'death') {
      dead.add(b.brokerId);
      result.brokerDeaths = dead.size;
    }
    if (result.findings.some((f) => f.brokerId === b.brokerId && f.kind === kind)) return;
    result.findings.push({ kind, brokerId: b.brokerId, atFrame: result.frames, detail, recent: recentLines(bi) });
  };

  const check = async (): Promise<void> => {
    for (let bi = 0; bi < n; bi++) {
      const b = brokers[bi] as BrokerProcess;
      const p = await probeBroker(b, 10000);
      result.probes++;
      result.slowestProbeMs = Math.max(result.slowestProbeMs, p.ms);
      if (!b.child.isRunning()) {
        finding('death', bi, `broker ${b.brokerId} exited (${JSON.stringify(b.child.exit())}); last output:\n${b.child.tail(60)}`);
        aborted = true;
      } else if (!p.alive) {
        finding('unresponsive', bi, `broker ${b.brokerId} did not answer ApiVersions + Metadata within 10 s: ${p.error}`);
        aborted = true;
      }
    }
  };

  const worker = async (bi: number): Promise<void> => {
    const b = brokers[bi] as BrokerProcess;
    let conn: FuzzConnection | undefined;
    let connectFailures = 0;
    while (!aborted) {
      if (reserved >= options.frames) break;
      if (Date.now() > deadline) {
        result.stoppedEarly = true;
        break;
      }
      const k = next[bi] as number;
      next[bi] = k + n;
      reserved++;
      if (conn === undefined || conn.closed) {
        try {
          conn = await FuzzConnection.open(b.port, 5000);
          result.connections++;
          connectFailures = 0;
        } catch (e) {
          conn = undefined;
          next[bi] = k; // not sent: retry it
          reserved--;
          if (!b.child.isRunning() || ++connectFailures >= 5) {
            if (!b.child.isRunning()) {
              finding('death', bi, `broker ${b.brokerId} exited (${JSON.stringify(b.child.exit())}); last output:\n${b.child.tail(60)}`);
            } else {
              finding('connect-failure', bi, `5 connects in a row to broker ${b.brokerId} failed: ${(e as Error).message}`);
            }
            aborted = true;
            break;
          }
          await new Promise((r) => setTimeout(r, 200));
          continue;
        }
      }
      const m: Mutant = fuzzer.frame(k);
      const known = skipKnown ? knownFinding(m.frame) : undefined;
      if (known !== undefined) {
        result.skippedKnown.set(known.id, (result.skippedKnown.get(known.id) ?? 0) + 1);
        reserved--;
        continue;
      }
      const list = recent[bi] as number[];
      list.push(k);
      if (list.length > keep) list.shift();
      const r = frameRng(fuzzer.seed ^ 0x2545f491, k);
      const id = marker++;
      if (marker > 0x7ff00000) marker = MARKER_BASE;
      result.frames++;
      if (r() < lieRate) {
        // The size prefix lies: a little or a lot longer (the broker waits for bytes that never come, or refuses a
        // size above socket.request.max.bytes), shorter (the rest is read as the next frame), or negative.
        result.sizeLies++;
        const lies = [m.frame.length + 1, m.frame.length + 1000, Math.max(0, m.frame.length - 1), 0x7fffffff, -1, 104857601];
        const declared = lies[Math.floor(r() * lies.length)] as number;
        await conn.exchange(Buffer.concat([sizePrefixed(m.frame, declared), sizePrefixed(API_VERSIONS_V0(id))]), id, 300);
        conn.close();
        conn = undefined;
        continue;
      }
      const before = conn.responses;
      const outcome = await conn.exchange(Buffer.concat([sizePrefixed(m.frame), sizePrefixed(API_VERSIONS_V0(id))]), id, timeoutMs);
      result.responses += conn.responses - before;
      let stats = result.perApi.get(m.seed.api.name);
      if (stats === undefined) result.perApi.set(m.seed.api.name, (stats = { frames: 0, survived: 0, closed: 0, timeouts: 0 }));
      stats.frames++;
      if (outcome === 'answered') {
        result.survived++;
        stats.survived++;
      } else if (outcome === 'closed') {
        result.closedByBroker++;
        stats.closed++;
        conn = undefined;
      } else {
        result.timeouts++;
        stats.timeouts++;
        if (result.timeoutExamples.length < 10) result.timeoutExamples.push(fuzzer.describe(m).slice(0, 600));
        conn.close();
        conn = undefined;
      }
      if (result.frames >= nextCheckAt && checking === undefined) {
        nextCheckAt += checkEvery;
        checking = check().finally(() => (checking = undefined));
      }
    }
    conn?.close();
  };

  const progressTimer = options.progress
    ? setInterval(() => {
        result.elapsedMs = Date.now() - t0;
        result.framesPerSecond = result.frames / (result.elapsedMs / 1000);
        options.progress?.(result);
      }, 1000)
    : undefined;
  await Promise.all(brokers.flatMap((_, bi) => Array.from({ length: perBroker }, () => worker(bi))));
  if (checking !== undefined) await checking;
  if (!aborted) await check();
  if (progressTimer !== undefined) clearInterval(progressTimer);
  sampler.stop();
  result.elapsedMs = Date.now() - t0;
  result.framesPerSecond = result.frames / (result.elapsedMs / 1000);
  return result;
}

/** `fuzz seed=.. frames=.. seconds=.. frames/s=.. responses=.. closed=.. timeouts=.. deaths=.. maxRss=0:..,1:..` */
export function summaryLine(r: FuzzRunResult): string {
  const rss = [...r.maxRss.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([id, v]) => `${id}:${(v / 1048576).toFixed(0)}MiB`)
    .join(',');
  return (
    `fuzz seed=${r.seed} frames=${r.frames} seconds=${(r.elapsedMs / 1000).toFixed(1)} frames/s=${r.framesPerSecond.toFixed(0)} ` +
    `responses=${r.responses} survived=${r.survived} closed=${r.closedByBroker} timeouts=${r.timeouts} sizeLies=${r.sizeLies} ` +
    `connections=${r.connections} probes=${r.probes} slowestProbeMs=${r.slowestProbeMs} deaths=${r.brokerDeaths} findings=${r.findings.length} maxRss=${rss}` +
    (r.skippedKnown.size > 0 ? ` skippedKnown=${[...r.skippedKnown].map(([id, c]) => `${id}:${c}`).join(',')}` : '') +
    (r.stoppedEarly ? ' STOPPED-EARLY' : '')
  );
}

/** One line per API: frames, and how many left the connection open, closed it, or got no answer in time. */
export function perApiLines(r: FuzzRunResult): string[] {
  return [...r.perApi.entries()]
    .sort((a, b) => b[1].frames - a[1].frames)
    .map(([api, s]) => `${api.padEnd(24)} frames=${s.frames} survived=${s.survived} closed=${s.closed} timeouts=${s.timeouts}`);
}
