import { spawn } from 'node:child_process';
import { stdioWithoutInheritedFds } from '../../../src/common/child-process';

export interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a client process with input and a hard deadline; the child is killed by pid if it outlives it, so no test
 * leaves processes behind.
 */
export function runChild(cmd: string, args: string[], options: { input?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: stdioWithoutInheritedFds(['pipe', 'pipe', 'pipe']), env: options.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
      reject(new Error(`${cmd} ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 30000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}
