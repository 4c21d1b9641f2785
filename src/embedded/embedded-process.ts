import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stdioWithoutInheritedFds } from '../common/child-process';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const KEPT_LINES = 200;

/**
 * One server process of an embedded cluster (ZooKeeper or a broker). Its output goes to a file; the last lines
 * are kept for error messages. On Linux it runs under `setpriv --pdeathsig KILL` (util-linux; exec, so same pid):
 * the kernel kills it the moment the process that started it dies, the first of two guards (the Reaper is the
 * second, and the one that also removes the temp dirs).
 */
export class EmbeddedProcess {
  readonly exited: Promise<ProcessExit>;
  private exitInfo: ProcessExit | undefined;
  private readonly recent: string[] = [];
  private partial = '';
  private readonly listeners = new Set<(line: string) => void>();

  private constructor(
    readonly name: string,
    readonly pid: number,
    exited: Promise<ProcessExit>,
  ) {
    this.exited = exited.then((exit) => {
      this.exitInfo = exit;
      return exit;
    });
  }

  static start(name: string, command: string, args: readonly string[], options: { env: NodeJS.ProcessEnv; outputFile: string }): EmbeddedProcess {
    const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', command, ...args]] : [command, [...args]];
    // Without the ZooKeeper client sockets of this process (see stdioWithoutInheritedFds).
    const proc = spawn(file, argv, { env: options.env, stdio: stdioWithoutInheritedFds(['ignore', 'pipe', 'pipe']) });
    if (proc.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    const exited = new Promise<ProcessExit>((resolve) => {
      proc.once('exit', (code, signal) => resolve({ code, signal }));
      proc.once('error', () => resolve({ code: null, signal: null }));
    });
    const child = new EmbeddedProcess(name, proc.pid, exited);
    const fd = fs.openSync(options.outputFile, 'a');
    const onData = (chunk: Buffer): void => {
      fs.writeSync(fd, chunk);
      child.append(chunk.toString('utf8'));
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('close', () => fs.closeSync(fd));
    // The cluster's own calls keep the test alive while they wait; a running server alone must not.
    proc.unref();
    for (const stream of [proc.stdout, proc.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    return child;
  }

  isRunning(): boolean {
    return this.exitInfo === undefined;
  }

  signal(signal: NodeJS.Signals): void {
    if (!this.isRunning()) return;
    try {
      process.kill(this.pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** Sends `signal`, then SIGKILL if the process is still there after `graceMs`; resolves on exit. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10000): Promise<ProcessExit> {
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The last lines of output, indented, for error messages. */
  tail(count = 30): string {
    return [...this.recent, this.partial].slice(-count).map((l) => `    ${l}`).join('\n');
  }

  /** Resolves on the first line from now on matching `pattern`; rejects on timeout or exit. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const finish = (error?: Error): void => {
        clearTimeout(timer);
        this.listeners.delete(onLine);
        if (error) reject(error);
        else resolve();
      };
      const onLine = (line: string): void => {
        if (pattern.test(line)) finish();
      };
      const timer = setTimeout(() => finish(new Error(`${this.name} (pid ${this.pid}) wrote no line matching ${pattern} within ${timeoutMs} ms; last output:\n${this.tail()}`)), timeoutMs);
      this.listeners.add(onLine);
      void this.exited.then((exit) => finish(new Error(`${this.name} (pid ${this.pid}) exited (${describeExit(exit)}) before it was ready; last output:\n${this.tail()}`)));
    });
  }

  private append(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.recent.push(line);
      for (const listener of [...this.listeners]) listener(line);
    }
    if (this.recent.length > KEPT_LINES) this.recent.splice(0, this.recent.length - KEPT_LINES);
  }
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

const SETPRIV = findSetpriv();

function findSetpriv(): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'setpriv');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}
