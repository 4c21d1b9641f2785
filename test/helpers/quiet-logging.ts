import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLogging, configureLogging } from '../../src/common/logging/logging';

/** Routes the broker's loggers nowhere (tests that provoke thousands of expected WARN/ERROR lines). */
export function quietLogging(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-ts-quiet-'));
  const file = join(dir, 'log4j.properties');
  writeFileSync(file, 'log4j.rootLogger=OFF\n');
  configureLogging({ mode: 'server', log4jFile: file, logDir: dir });
  return () => {
    closeLogging();
    rmSync(dir, { recursive: true, force: true });
  };
}
