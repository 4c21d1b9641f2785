/*
 * The machine's rate for moving bytes between two processes over loopback TCP, the floor under any networked
 * produce or fetch on it: a child process sends or receives `bytes` over one socket in 256 KiB writes, with the
 * receiving side either discarding them or appending them to a file (the least a broker does with a produce).
 * Run as a child of itself: `loopback-anchor.ts sink <discard|append> <bytes> <file>` or
 * `loopback-anchor.ts source <bytes> <file>`; the parent half is `loopbackRates`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fork } from 'node:child_process';

const CHUNK = 256 * 1024;

export interface LoopbackRates {
  /** MB/s into a receiver that drops the bytes. */
  discardMbS: number;
  /** MB/s into a receiver that appends them to a file (page cache). */
  appendMbS: number;
  /** MB/s from a sender that reads them from a file (page cache) into a receiver that drops them. */
  readMbS: number;
}

function child(args: string[]): { port: Promise<number>; done: Promise<void>; kill: () => void } {
  const c = fork(__filename, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const port = new Promise<number>((resolve, reject) => {
    c.once('message', (m) => resolve(m as number));
    c.once('exit', (code) => reject(new Error(`loopback anchor child exited with ${code}`)));
  });
  const done = new Promise<void>((resolve) => c.once('exit', () => resolve()));
  return { port, done, kill: () => c.kill('SIGKILL') };
}

/**
 * Starts a child with `args`, connects to it and times `transfer` over the socket: MB/s of `bytes`. The child is
 * killed afterwards, whatever happened.
 */
async function timedTransfer(args: string[], bytes: number, transfer: (sock: net.Socket) => Promise<void>): Promise<number> {
  const peer = child(args);
  try {
    const sock = net.connect(await peer.port, '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    const start = process.hrtime.bigint();
    await transfer(sock);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    sock.destroy();
    return bytes / seconds / 1048576;
  } finally {
    peer.kill();
    await peer.done;
  }
}

/** Sends `bytes` to a sink child; the clock stops when the sink says it has them all. */
function sendTo(mode: 'discard' | 'append', bytes: number, file: string): Promise<number> {
  const chunk = Buffer.alloc(CHUNK, 0x61);
  return timedTransfer(['sink', mode, String(bytes), file], bytes, (sock) => {
    let sent = 0;
    return new Promise<void>((resolve) => {
      sock.once('data', () => resolve());
      const pump = (): void => {
        while (sent < bytes) {
          sent += chunk.length;
          if (!sock.write(chunk)) {
            sock.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
}

/** Receives `bytes` that a source child reads from `file`. */
function receiveFrom(bytes: number, file: string): Promise<number> {
  return timedTransfer(['source', String(bytes), file], bytes, (sock) => {
    let got = 0;
    return new Promise<void>((resolve) => {
      sock.on('data', (d: Buffer) => {
        got += d.length;
        if (got >= bytes) resolve();
      });
    });
  });
}

export async function loopbackRates(dir: string, bytes: number): Promise<LoopbackRates> {
  const file = path.join(dir, 'loopback-anchor.bin');
  try {
    const discardMbS = await sendTo('discard', bytes, file);
    const appendMbS = await sendTo('append', bytes, file);
    const readMbS = await receiveFrom(bytes, file);
    return { discardMbS, appendMbS, readMbS };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

function runSink(mode: string, bytes: number, file: string): void {
  const fd = mode === 'append' ? fs.openSync(file, 'w') : -1;
  const server = net.createServer((s) => {
    let got = 0;
    s.on('data', (d: Buffer) => {
      got += d.length;
      if (fd >= 0) fs.writeSync(fd, d);
      if (got >= bytes) s.end('k');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as net.AddressInfo).port));
}

function runSource(bytes: number, file: string): void {
  const fd = fs.openSync(file, 'r');
  const size = fs.fstatSync(fd).size;
  const server = net.createServer((s) => {
    let pos = 0;
    const pump = (): void => {
      while (pos < bytes) {
        const chunk = Buffer.allocUnsafe(CHUNK);
        // The file is what the append run wrote: read through it (again from its start if it is shorter).
        const at = pos % size;
        const n = fs.readSync(fd, chunk, 0, Math.min(CHUNK, size - at), at);
        pos += n;
        if (!s.write(n === CHUNK ? chunk : chunk.subarray(0, n))) {
          s.once('drain', pump);
          return;
        }
      }
    };
    pump();
  });
  server.listen(0, '127.0.0.1', () => process.send?.((server.address() as net.AddressInfo).port));
}

if (require.main === module) {
  const [role, ...rest] = process.argv.slice(2);
  if (role === 'sink') runSink(rest[0] as string, Number(rest[1]), rest[2] as string);
  else if (role === 'source') runSource(Number(rest[0]), rest[1] as string);
}
