import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stdioWithoutInheritedFds } from '../../src/common/child-process';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnChildOptions {
  /** Shown in errors; defaults to the command's base name. */
  name?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Also append everything the child writes (stdout and stderr) to this file. */
  logFile?: string;
}

const MAX_KEPT_LINES = 20000;
const running = new Set<TestChild>();

/**
 * A child process started by a test: its output (stdout and stderr, interleaved as received) is kept in memory
 * and optionally in a file, it can be awaited for a log line, and it is killed by pid when the test file ends.
 */
export class TestChild {
  readonly pid: number;
  readonly exited: Promise<ChildExit>;
  private exitInfo: ChildExit | undefined;
  private readonly lines: string[] = [];
  private partial = '';
  private readonly lineListeners = new Set<(line: string) => void>();

  constructor(
    readonly name: string,
    pid: number,
    exited: Promise<ChildExit>,
  ) {
    this.pid = pid;
    this.exited = exited.then((exit) => {
      this.exitInfo = exit;
      running.delete(this);
      return exit;
    });
  }

  /** Whether the child has not exited yet. Once it has, its pid is never signalled again (it may be reused). */
  isRunning(): boolean {
    return this.exitInfo === undefined;
  }

  exit(): ChildExit | undefined {
    return this.exitInfo;
  }

  /** The output so far (the last 20000 lines), for assertions and failure messages. */
  output(): string {
    return this.partial ? [...this.lines, this.partial].join('\n') : this.lines.join('\n');
  }

  /** The last `count` lines of output, indented, for error messages. */
  tail(count = 30): string {
    return this.output().split('\n').slice(-count).map((l) => `    ${l}`).join('\n');
  }

  /** Resolves with the first output line (past or future) matching `pattern`; rejects on timeout or exit. */
  waitForLine(pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<RegExpMatchArray> {
    const timeoutMs = options.timeoutMs ?? 30000;
    for (const line of this.lines) {
      const match = line.match(pattern);
      if (match) return Promise.resolve(match);
    }
    return new Promise((resolve, reject) => {
      const finish = (error: Error | undefined, match?: RegExpMatchArray): void => {
        clearTimeout(timer);
        this.lineListeners.delete(onLine);
        if (error) reject(error);
        else resolve(match as RegExpMatchArray);
      };
      const onLine = (line: string): void => {
        const match = line.match(pattern);
        if (match) finish(undefined, match);
      };
      const timer = setTimeout(() => finish(new Error(`${this.name} (pid ${this.pid}) wrote no line matching ${pattern} within ${timeoutMs} ms; last output:\n${this.tail()}`)), timeoutMs);
      this.lineListeners.add(onLine);
      void this.exited.then((exit) =>
        finish(new Error(`${this.name} (pid ${this.pid}) exited (${describeExit(exit)}) before writing a line matching ${pattern}; last output:\n${this.tail()}`)),
      );
    });
  }

  /** Sends `signal` if the child is still running. */
  signal(signal: NodeJS.Signals): void {
    if (!this.isRunning()) return;
    try {
      process.kill(this.pid, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  /** Sends `signal` (default SIGTERM), then SIGKILL if the child is still there after `graceMs`; resolves on exit. */
  async stop(options: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<ChildExit> {
    const { signal = 'SIGTERM', graceMs = 5000 } = options;
    this.signal(signal);
    const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** @internal Fed by spawnChild with the child's output. */
  append(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    for (const line of parts) {
      this.lines.push(line);
      for (const listener of [...this.lineListeners]) listener(line);
    }
    if (this.lines.length > MAX_KEPT_LINES) this.lines.splice(0, this.lines.length - MAX_KEPT_LINES);
  }
}

/** Starts `command` without a shell and registers it for killing at the end of the test file. */
export function spawnChild(command: string, args: readonly string[], options: SpawnChildOptions = {}): TestChild {
  const name = options.name ?? path.basename(command);
  const env = options.env ?? process.env;
  const executable = findExecutable(command.includes('/') ? path.resolve(options.cwd ?? '.', command) : command, env['PATH']);
  if (executable === undefined) throw new Error(`could not start ${name}: ${command} does not exist or is not executable`);
  // setpriv execs the command (same pid) with the kernel's parent-death signal set, so the child is killed even
  // when this process dies without running any hook (jest killed, or jest's sandbox, whose process.on('exit')
  // listeners never run).
  const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'KILL', executable, ...args]] : [executable, [...args]];
  // Without the ZooKeeper client sockets of this process: a long-lived child holding one makes the client's
  // handles fail (see src/common/child-process.ts).
  const proc = spawn(file, argv, { cwd: options.cwd, env, stdio: stdioWithoutInheritedFds(['ignore', 'pipe', 'pipe']) });
  const spawnError = new Promise<Error>((resolve) => proc.once('error', resolve));
  if (proc.pid === undefined) {
    throw new Error(`could not start ${name} (${executable})`);
  }
  const exited = new Promise<ChildExit>((resolve) => {
    proc.once('exit', (code, signal) => resolve({ code, signal }));
    void spawnError.then(() => resolve({ code: null, signal: null }));
  });
  const child = new TestChild(name, proc.pid, exited);
  running.add(child);
  const logFd = options.logFile === undefined ? undefined : fs.openSync(options.logFile, 'a');
  const onData = (chunk: Buffer): void => {
    if (logFd !== undefined) fs.writeSync(logFd, chunk);
    child.append(chunk.toString('utf8'));
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  proc.once('close', () => {
    if (logFd !== undefined) fs.closeSync(logFd);
  });
  return child;
}

const SETPRIV = findExecutable('setpriv', process.env['PATH']);

function findExecutable(command: string, searchPath: string | undefined): string | undefined {
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

/** Stops every child still running (SIGTERM, then SIGKILL after `graceMs`) and waits for them to exit. */
export async function killAllChildren(graceMs = 5000): Promise<void> {
  await Promise.all([...running].map((child) => child.stop({ graceMs })));
}

export function describeExit(exit: ChildExit): string {
  return exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
}

// Outside jest, when the process exits without running afterAll: nothing may be awaited here.
function killAllNow(): void {
  for (const child of running) child.signal('SIGKILL');
}

process.on('exit', killAllNow);
try {
  // jest gives each test file its own module registry, hence its own `running` set and this hook.
  if (typeof afterAll === 'function') {
    afterAll(async () => {
      await killAllChildren();
      process.off('exit', killAllNow);
    });
  }
} catch {
  // Imported from inside a test or hook, where jest refuses new hooks: the parent-death signal (setpriv) still
  // kills the children when this process ends.
}
