import { Kafka, logLevel } from 'kafkajs';
import { ApiDefinition } from '../../../src/protocol/api-definition';
import { allApis } from '../../../src/protocol/apis';
import { ByteWriter } from '../../../src/protocol/primitives/byte-writer';
import { ProtocolTestServer } from '../../helpers/protocol-test-server';
import { sampleBody } from '../../unit/protocol/schema-sample';
import { quietLogging } from '../../helpers/quiet-logging';
import { RawConnection, requestFrame } from '../../helpers/raw-connection';

const SEED = Number(process.env['FUZZ_SEED'] ?? 20261129);
// 40,000 frames in CI; `npm run test:long` sends 100,000 (PROTOCOL_FUZZ_FRAMES).
const TARGET_FRAMES = Number(process.env['PROTOCOL_FUZZ_FRAMES'] ?? 40_000);
const WORKERS = 16;
const TIME_BUDGET_MS = 50_000;

/** mulberry32: small, seeded, reproducible. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Well-formed request frames for every API and version: the seeds the mutators start from. */
function corpus(): Buffer[] {
  const out: Buffer[] = [];
  const kafkajsProduce = Buffer.from(
    '0000000700000002000363617' + '0ffffffff00007530000000010002743100000001000000000000004600000000000000000000003a0000000002913ca1a60000000000000000018bcfe568000000018bcfe56800ffffffffffffffff000000000000000000011000000002' + '6b02760' + '0',
    'hex',
  );
  out.push(kafkajsProduce);
  for (const api of allApis() as ApiDefinition[]) {
    for (let v = api.minVersion; v <= api.maxVersion; v++) {
      for (const seed of [1, 2]) {
        const w = new ByteWriter();
        api.encodeRequest(v, w, seed === 1 ? sampleBody(api.spec.request, v) : {});
        out.push(requestFrame(api.key, v, 0, w.toBuffer(), seed === 1 ? 'fuzz' : null, api.requestHeaderVersion(v) === 2));
      }
    }
  }
  return out;
}

const INTERESTING = [0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe];

function mutate(seedFrame: Buffer, r: () => number): Buffer {
  const pick = (n: number): number => Math.floor(r() * n);
  const kind = pick(8);
  const f = Buffer.from(seedFrame);
  switch (kind) {
    case 0: // pure random bytes
      return Buffer.from(Array.from({ length: pick(200) }, () => pick(256)));
    case 1: // flip bits
      for (let i = 0, n = 1 + pick(4); i < n && f.length > 0; i++) { const at = pick(f.length); f[at] = (f[at] as number) ^ (1 << pick(8)); }
      return f;
    case 2: // interesting bytes, often over a length field
      for (let i = 0, n = 1 + pick(3); i < n && f.length > 0; i++) f[pick(f.length)] = INTERESTING[pick(INTERESTING.length)] as number;
      return f;
    case 3: // truncate
      return f.subarray(0, pick(f.length + 1));
    case 4: // append garbage
      return Buffer.concat([f, Buffer.from(Array.from({ length: 1 + pick(50) }, () => pick(256)))]);
    case 5: // random version of a real API (mostly unsupported ones)
      if (f.length >= 4) f.writeInt16BE(pick(20) - 2, 2);
      return f;
    case 6: // bad UTF-8 in the client id
      if (f.length >= 12) {
        f[10] = 0xc3;
        f[11] = 0x28;
      }
      return f;
    default: // a 32-bit length somewhere claims a huge or negative size
      if (f.length >= 14) f.writeInt32BE(pick(2) === 0 ? 0x7ffffff0 : -2 - pick(5), 10 + pick(f.length - 13));
      return f;
  }
}

describe('fuzzing a live server', () => {
  let server: ProtocolTestServer;
  let restoreLogging: () => void;

  beforeAll(async () => {
    restoreLogging = quietLogging();
    server = await new ProtocolTestServer({ maxWaitMs: 20, socket: { socketRequestMaxBytes: 1 << 20 } }).start();
  });
  afterAll(async () => {
    await server.stop();
    restoreLogging();
  });

  it(`survives ${TARGET_FRAMES} random and mutated frames (seed ${SEED}) and still answers kafkajs`, async () => {
    const seeds = corpus();
    const deadline = Date.now() + TIME_BUDGET_MS;
    let sent = 0;
    let answered = 0;
    let closed = 0;
    let rawSizeFrames = 0;
    let stuck = 0;
    // Frame k is derived from (SEED, k) alone, so every run sends the same 100,000 frames whatever the timing.
    let nextFrame = 0;
    const worker = async (): Promise<void> => {
      let conn: RawConnection | undefined;
      let probe = 0;
      while (nextFrame < TARGET_FRAMES && Date.now() < deadline) {
        const k = nextFrame++;
        const r = rng(Math.imul(SEED, 0x9e3779b1) ^ Math.imul(k + 1, 0x85ebca6b));
        if (conn === undefined || conn.closed) conn = await RawConnection.open(server.port);
        sent++;
        if (r() < 0.01) {
          // Corrupt the size prefix itself: the server must drop the connection (or wait for bytes that never come).
          rawSizeFrames++;
          const head = Buffer.alloc(4);
          head.writeInt32BE(r() < 0.5 ? -1 - Math.floor(r() * 1000) : (1 << 20) + 1 + Math.floor(r() * 1e9));
          conn.sendRaw(Buffer.concat([head, Buffer.alloc(8)]));
          await conn.until(() => false, 2000);
          conn.close();
          conn = undefined;
          continue;
        }
        const frame = mutate(seeds[Math.floor(r() * seeds.length)] as Buffer, r);
        const marker = 0x40000000 + probe++;
        conn.frames.length = 0;
        conn.send(frame, requestFrame(18, 0, marker, Buffer.alloc(0)));
        const c = conn;
        const ok = await c.until(() => c.frames.some((f) => f.readInt32BE(0) === marker), 3000);
        if (ok) answered++;
        else {
          if (c.closed) closed++;
          else stuck++;
          c.close();
          conn = undefined;
        }
      }
      conn?.close();
    };
    await Promise.all(Array.from({ length: WORKERS }, () => worker()));
    expect(sent).toBeGreaterThanOrEqual(TARGET_FRAMES);
    expect(answered + closed + stuck + rawSizeFrames).toBe(sent);
    expect(stuck).toBe(0);

    const admin = new Kafka({ clientId: 'after-fuzz', brokers: [server.bootstrap], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    expect((await admin.describeCluster()).brokers).toHaveLength(1);
    await admin.disconnect();
    console.log(`fuzz seed=${SEED}: ${sent} frames, ${answered} connections kept, ${closed} closed, ${rawSizeFrames} bad size prefixes`);
  });
});
