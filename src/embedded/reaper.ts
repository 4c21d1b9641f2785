import { spawn } from 'node:child_process';
import { stdioWithoutInheritedFds } from '../common/child-process';

/**
 * The watchdog's whole program, run with `node -e`: it reads `pid <n>`, `dir <path>`, `forget-pid <n>` and
 * `forget-dir <path>` lines on stdin, and when stdin ends (the cluster's stop(), or the test process dying by
 * any means, SIGKILL included, which closes the pipe) it SIGKILLs the pids still listed and removes the dirs.
 * Self-contained (no imports, no closure) because it is shipped as source text: nothing to resolve at run time,
 * neither from dist/ nor under tsx.
 */
function reaperMain(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const fs = require('node:fs') as typeof import('node:fs');
  const pids = new Map<number, string | undefined>();
  const dirs = new Set<string>();
  // The start time in /proc/<pid>/stat (field 22) tells the registered process from a later one given its pid.
  const startTime = (pid: number): string | undefined => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    } catch {
      return undefined;
    }
  };
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    const lines = (pending + chunk).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const space = line.indexOf(' ');
      const verb = line.slice(0, space);
      const arg = line.slice(space + 1);
      if (verb === 'pid') pids.set(Number(arg), startTime(Number(arg)));
      else if (verb === 'forget-pid') pids.delete(Number(arg));
      else if (verb === 'dir') dirs.add(arg);
      else if (verb === 'forget-dir') dirs.delete(arg);
    }
  });
  const reap = (): void => {
    for (const [pid, started] of pids) {
      if (started !== undefined && startTime(pid) !== started) continue;
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone already (the parent-death signal got there first).
      }
    }
    // A killed process may still be writing its last lines: removal retries, as rm -rf would be re-run.
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    process.exit(0);
  };
  process.stdin.on('end', reap);
  process.stdin.on('error', reap);
  // In its own process group (detached), so a Ctrl-C meant for the test run does not stop it before it cleans up.
  process.on('SIGINT', () => undefined);
  process.on('SIGHUP', () => undefined);
}

/**
 * A watchdog process that kills what a cluster started and removes its temp dir when the process that started it
 * goes away, however it goes: Node has no prctl(PR_SET_PDEATHSIG) of its own, and exit hooks do not run on SIGKILL.
 * It holds no reference on this process's event loop.
 */
export class Reaper {
  private constructor(
    private readonly stdin: NodeJS.WritableStream & { unref?: () => void; destroyed?: boolean },
    /** The watchdog's pid (it exits on its own once close() is called). */
    readonly pid: number,
  ) {}

  static start(): Reaper {
    // tsx (esbuild with keepNames) wraps nested functions in __name(): a no-op stand-in keeps the text runnable.
    const program = `var __name = (f) => f; (${reaperMain.toString()})()`;
    const child = spawn(process.execPath, ['-e', program], {
      stdio: stdioWithoutInheritedFds(['pipe', 'ignore', 'ignore']),
      detached: true,
    });
    const stdin = child.stdin;
    if (stdin === null || child.pid === undefined) throw new Error('could not start the cluster watchdog: no stdin pipe');
    stdin.on('error', () => undefined);
    child.unref();
    (stdin as unknown as { unref?: () => void }).unref?.();
    return new Reaper(stdin, child.pid);
  }

  watchPid(pid: number): void {
    this.send(`pid ${pid}`);
  }

  forgetPid(pid: number): void {
    this.send(`forget-pid ${pid}`);
  }

  watchDir(dir: string): void {
    this.send(`dir ${dir}`);
  }

  forgetDir(dir: string): void {
    this.send(`forget-dir ${dir}`);
  }

  /** Ends the watch: the watchdog reaps what is still listed (nothing, after a clean stop) and exits. */
  close(): void {
    this.stdin.end();
  }

  private send(line: string): void {
    if (!this.stdin.destroyed) this.stdin.write(`${line}\n`);
  }
}
