import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeLogging, configureLogging } from '../../src/common/logging/logging';

/**
 * Sends every logger's WARN and ERROR lines to one file; `text()` closes the logging (flushing it) and returns
 * what was written. For asserting that a rejected input is logged with its path.
 */
export function captureLogs(): { text(): string; sofar(): string } {
  const dir = mkdtempSync(join(tmpdir(), 'kafka-ts-logs-'));
  const config = join(dir, 'log4j.properties');
  writeFileSync(config, 'log4j.rootLogger=WARN, f\nlog4j.appender.f=org.apache.log4j.FileAppender\nlog4j.appender.f.File=${kafka.logs.dir}/all.log\n');
  configureLogging({ mode: 'server', log4jFile: config, logDir: dir });
  return {
    /** What has reached the file so far, without closing the logging (for waiting on a line). */
    sofar(): string {
      const file = join(dir, 'all.log');
      return existsSync(file) ? readFileSync(file, 'utf8') : '';
    },
    text(): string {
      closeLogging();
      const file = join(dir, 'all.log');
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      rmSync(dir, { recursive: true, force: true });
      return text;
    },
  };
}
