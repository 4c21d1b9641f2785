import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The `-daemon` mode of Kafka's start scripts: the same command runs again detached, with stdout and stderr in
 * `$LOG_DIR/<name>.out`, and this process exits at once.
 */
export function daemonize(name: string, argsWithoutDaemon: string[], logDir: string): void {
  fs.mkdirSync(logDir, { recursive: true });
  const out = fs.openSync(path.join(logDir, `${name}.out`), 'a');
  const child = spawn(process.execPath, [...process.execArgv, ...argsWithoutDaemon], {
    detached: true,
    stdio: ['ignore', out, out],
    env: process.env,
  });
  child.unref();
  fs.closeSync(out);
}
