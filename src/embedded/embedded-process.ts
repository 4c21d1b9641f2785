import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stdioWithoutInheritedFds } from '../common/child-process';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface StartProcessOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Also append everything the process writes (stdout and stderr) to this file. */
  outputFile?: string;
  /** How many of the last output lines are kept (for waitForLine, tail and output); 200 unless told. */
  keptLines?: number;
  /**
   * Whether a caller awaiting the process alone keeps Node running (a test helper's child); by default a running
   * server alone does not, the cluster's own calls keep the test alive while they wait.
   */
  keepsNodeAlive?: boolean;
}

/**
 * One server process of an embedded cluster (ZooKeeper or a broker), also the test helpers' child processes
 * (test/helpers/child-processes.ts). Its output goes to a file; the last lines are kept for waiting and error
 * messages. On Linux it runs under `setpriv --pdeathsig KILL` (util-linux; exec, so same pid): the kernel kills it
 * the moment the process that started it dies, even when that process runs no exit hook (SIGKILL, or jest's
 * sandbox); for an embedded cluster the first of two guards (the Reaper is the second, and the one that also
 * removes the temp dirs).
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
    private readonly keptLines: number,
  ) {
    this.exited = exited.then((exit) => {
      this.exitInfo = exit;
      return exit;
    });
  }

  static start(name: string, command: string, args: readonly string[], options: StartProcessOptions): EmbeddedProcess {
    const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', command, ...args]] : [command, [...args]];
    // Without the ZooKeeper client sockets of this process (see stdioWithoutInheritedFds).
    const proc = spawn(file, argv, { cwd: options.cwd, env: options.env, stdio: stdioWithoutInheritedFds(['ignore', 'pipe', 'pipe']) });
    // Listening before the pid check: a spawn that fails emits 'error' later, which unheard would crash Node.
    const exited = new Promise<ProcessExit>((resolve) => {
      proc.once('exit', (code, signal) => resolve({ code, signal }));
      proc.once('error', () => resolve({ code: null, signal: null }));
    });
    if (proc.pid === undefined) throw new Error(`could not start ${name} (${command})`);
    const child = new EmbeddedProcess(name, proc.pid, exited, options.keptLines ?? 200);
    const fd = options.outputFile === undefined ? undefined : fs.openSync(options.outputFile, 'a');
    const onData = (chunk: Buffer): void => {
      if (fd !== undefined) fs.writeSync(fd, chunk);
      child.append(chunk.toString('utf8'));
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('close', () => {
      if (fd !== undefined) fs.closeSync(fd);
    });
    if (options.keepsNodeAlive !== true) {
      proc.unref();
      for (const stream of [proc.stdout, proc.stderr]) (stream as unknown as { unref?: () => void }).unref?.();
    }
    return child;
  }

  /** Whether the process has not exited yet. Once it has, its pid is never signalled again (it may be reused). */
  isRunning(): boolean {
    return this.exitInfo === undefined;
  }

  /** How it exited, once it has. */
  exit(): ProcessExit | undefined {
    return this.exitInfo;
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

  /** The kept output (the last lines), for assertions and failure messages. */
  output(): string {
    return this.partial ? [...this.recent, this.partial].join('\n') : this.recent.join('\n');
  }

  /** The last lines of output, indented, for error messages. */
  tail(count = 30): string {
    return this.output().split('\n').slice(-count).map((l) => `    ${l}`).join('\n');
  }

  /** Resolves with the first kept or future output line matching `pattern`; rejects on timeout or exit. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    for (const line of this.recent) {
      const match = line.match(pattern);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolve, reject) => {
      const finish = (error: Error | undefined, match?: RegExpMatchArray): void => {
        clearTimeout(timer);
        this.listeners.delete(onLine);
        if (error) reject(error);
        else resolve(match as RegExpMatchArray);
      };
      const onLine = (line: string): void => {
        const match = line.match(pattern);
        if (match) finish(undefined, match);
      };
      const timer = setTimeout(() => finish(new Error(`${this.name} (pid ${this.pid}) wrote no line matching ${pattern} within ${timeoutMs} ms; last output:\n${this.tail()}`)), timeoutMs);
      this.listeners.add(onLine);
      void this.exited.then((exit) =>
        finish(new Error(`${this.name} (pid ${this.pid}) exited (${describeExit(exit)}) before writing a line matching ${pattern}; last output:\n${this.tail()}`)),
      );
    });
  }

  private append(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.recent.push(line);
      for (const listener of [...this.listeners]) listener(line);
    }
    if (this.recent.length > this.keptLines) this.recent.splice(0, this.recent.length - this.keptLines);
  }
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

const SETPRIV = findExecutable('setpriv', process.env['PATH']);

/** `command` itself when it names a path, else the first executable file of that name on `searchPath`. */
export function findExecutable(command: string, searchPath: string | undefined): string | undefined {
  const candidates = command.includes('/') ? [command] : (searchPath ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, command));
  return candidates.find((c) => {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return fs.statSync(c).isFile();
    } catch {
      return false;
    }
  });
}
