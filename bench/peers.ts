import fs from 'node:fs';
import path from 'node:path';
import { connect as natsConnect, StringCodec } from 'nats';
import { createClient } from 'redis';
import { spawnChild } from '../test/helpers/child-processes';
import { freePort } from '../test/helpers/free-port';
import { tmpDir } from '../test/helpers/tmp-dir';
import { waitUntil } from '../test/helpers/wait-until';

export interface PeerResult {
  records_per_s: number;
  mb_per_s: number;
}

function which(binary: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(':').concat(['/usr/sbin', '/usr/bin'])) {
    const p = path.join(dir, binary);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
}

/**
 * Redis Streams: XADD of the same records, pipelined (node-redis sends commands of one tick as one pipeline),
 * to a redis-server on this machine with its default persistence.
 */
export async function redisStreams(records: number, size: number): Promise<PeerResult | undefined> {
  const binary = which('redis-server');
  if (binary === undefined) return undefined;
  const port = await freePort();
  const dir = tmpDir('bench-redis-');
  const server = spawnChild(binary, ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'no']);
  try {
    await server.waitForLine(/Ready to accept connections/, { timeoutMs: 20000 });
    const client = createClient({ url: `redis://127.0.0.1:${port}` });
    await client.connect();
    const value = 'x'.repeat(size);
    const start = Date.now();
    const window = 5000;
    for (let i = 0; i < records; i += window) {
      const n = Math.min(window, records - i);
      await Promise.all(Array.from({ length: n }, () => client.xAdd('bench', '*', { v: value })));
    }
    const seconds = (Date.now() - start) / 1000;
    await client.quit();
    return { records_per_s: Math.round(records / seconds), mb_per_s: (records * size) / seconds / 1048576 };
  } finally {
    await server.stop();
  }
}

/** NATS JetStream: persisted (file storage) publishes, each acknowledged, many in flight at once. */
export async function natsJetStream(records: number, size: number): Promise<PeerResult | undefined> {
  const binary = which('nats-server');
  if (binary === undefined) return undefined;
  const port = await freePort();
  const dir = tmpDir('bench-nats-');
  const server = spawnChild(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir]);
  try {
    await waitUntil(async () => {
      try {
        const probe = await natsConnect({ servers: `127.0.0.1:${port}` });
        await probe.close();
        return true;
      } catch {
        return false;
      }
    }, { timeoutMs: 20000, message: 'nats-server to accept connections' });
    const nc = await natsConnect({ servers: `127.0.0.1:${port}` });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: 'BENCH', subjects: ['bench'] });
    const js = nc.jetstream();
    const value = StringCodec().encode('x'.repeat(size));
    const start = Date.now();
    const window = 2000;
    for (let i = 0; i < records; i += window) {
      const n = Math.min(window, records - i);
      await Promise.all(Array.from({ length: n }, () => js.publish('bench', value)));
    }
    const seconds = (Date.now() - start) / 1000;
    await nc.close();
    return { records_per_s: Math.round(records / seconds), mb_per_s: (records * size) / seconds / 1048576 };
  } finally {
    await server.stop();
  }
}
