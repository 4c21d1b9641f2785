import path from 'node:path';
import { EmbeddedProcess, findExecutable } from '../../src/embedded/embedded-process';
import type { ProcessExit } from '../../src/embedded/embedded-process';

export { describeExit } from '../../src/embedded/embedded-process';
export type ChildExit = ProcessExit;

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
 * A child process started by a test: src/embedded's EmbeddedProcess (output kept and optionally in a file, waiting
 * for a log line, SIGTERM then SIGKILL, the parent-death signal), with the test's defaults, and killed by pid when
 * the test file ends.
 */
export class TestChild {
  constructor(private readonly proc: EmbeddedProcess) {
    running.add(this);
    void proc.exited.then(() => running.delete(this));
  }

  get name(): string {
    return this.proc.name;
  }

  get pid(): number {
    return this.proc.pid;
  }

  get exited(): Promise<ChildExit> {
    return this.proc.exited;
  }

  /** Whether the child has not exited yet. Once it has, its pid is never signalled again (it may be reused). */
  isRunning(): boolean {
    return this.proc.isRunning();
  }

  exit(): ChildExit | undefined {
    return this.proc.exit();
  }

  /** The output so far (the last 20000 lines), for assertions and failure messages. */
  output(): string {
    return this.proc.output();
  }

  /** The last `count` lines of output, indented, for error messages. */
  tail(count = 30): string {
    return this.proc.tail(count);
  }

  /** Resolves with the first output line (past or future) matching `pattern`; rejects on timeout or exit. */
  waitForLine(pattern: RegExp, options: { timeoutMs?: number } = {}): Promise<RegExpMatchArray> {
    return this.proc.waitForLine(pattern, options.timeoutMs ?? 30000);
  }

  /** Sends `signal` if the child is still running. */
  signal(signal: NodeJS.Signals): void {
    this.proc.signal(signal);
  }

  /** Sends `signal` (default SIGTERM), then SIGKILL if the child is still there after `graceMs`; resolves on exit. */
  stop(options: { signal?: NodeJS.Signals; graceMs?: number } = {}): Promise<ChildExit> {
    return this.proc.stop(options.signal ?? 'SIGTERM', options.graceMs ?? 5000);
  }
}

/** Starts `command` without a shell and registers it for killing at the end of the test file. */
export function spawnChild(command: string, args: readonly string[], options: SpawnChildOptions = {}): TestChild {
  const name = options.name ?? path.basename(command);
  const env = options.env ?? process.env;
  const executable = findExecutable(command.includes('/') ? path.resolve(options.cwd ?? '.', command) : command, env['PATH']);
  if (executable === undefined) throw new Error(`could not start ${name}: ${command} does not exist or is not executable`);
  // A test (or a script such as the chaos runner) may await the child alone, so it keeps Node alive.
  const proc = EmbeddedProcess.start(name, executable, args, { cwd: options.cwd, env, outputFile: options.logFile, keptLines: MAX_KEPT_LINES, keepsNodeAlive: true });
  return new TestChild(proc);
}

/** Stops every child still running (SIGTERM, then SIGKILL after `graceMs`) and waits for them to exit. */
export async function killAllChildren(graceMs = 5000): Promise<void> {
  await Promise.all([...running].map((child) => child.stop({ graceMs })));
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
