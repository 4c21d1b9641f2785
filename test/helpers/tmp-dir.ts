import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const created = new Set<string>();

/**
 * A new empty directory under the OS temp dir, removed (with its contents) by removeTmpDirs(): after the test file
 * when imported from a jest test file, else at process exit.
 */
export function tmpDir(prefix = 'kafka-ts-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  created.add(dir);
  return dir;
}

/** Removes one directory made by tmpDir() now. */
export function removeTmpDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  created.delete(dir);
}

/** Removes every directory made by tmpDir() so far. */
export function removeTmpDirs(): void {
  for (const dir of [...created]) removeTmpDir(dir);
}

process.on('exit', removeTmpDirs);
try {
  // jest gives each test file its own module registry, hence its own `created` set and this hook.
  if (typeof afterAll === 'function') {
    afterAll(() => {
      removeTmpDirs();
      process.off('exit', removeTmpDirs);
    });
  }
} catch {
  // Imported from inside a test or hook, where jest refuses new hooks: call removeTmpDirs() yourself.
}
