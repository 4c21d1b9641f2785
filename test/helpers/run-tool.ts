import fs from 'node:fs';
import path from 'node:path';
import { BIN } from './broker-process';
import { spawnChild } from './child-processes';
import { tmpDir } from './tmp-dir';

export interface ToolRun {
  code: number | null;
  /** stdout and stderr, interleaved as received. */
  output: string;
}

/**
 * Runs `bin/<name>.ts` to completion, as an operator would from a shell; `input` becomes its standard input
 * (none otherwise).
 */
export async function runTool(name: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): Promise<ToolRun> {
  let child;
  if (options.input === undefined) {
    child = spawnChild(BIN(name), args, { env: options.env ?? process.env });
  } else {
    const stdin = path.join(tmpDir('tool-stdin-'), 'stdin');
    fs.writeFileSync(stdin, options.input);
    child = spawnChild('/bin/sh', ['-c', `exec "$0" "$@" < "${stdin}"`, BIN(name), ...args], { env: options.env ?? process.env });
  }
  const exit = await child.exited;
  return { code: exit.code, output: child.output() };
}
