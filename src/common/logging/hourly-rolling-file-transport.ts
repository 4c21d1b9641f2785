import * as fs from 'node:fs';
import * as path from 'node:path';
import Transport from 'winston-transport';
import { formatHourSuffix } from '../time-format';

/**
 * log4j's DailyRollingFileAppender with Kafka's `'.'yyyy-MM-dd-HH` pattern: lines go to `server.log`; when the
 * hour changes the file is renamed `server.log.2026-11-29-15` and a new one is started. Writes are synchronous
 * so that the last lines before a crash are on disk, as operators expect when they read the log after kill -9.
 * The lines logged in one run of JavaScript (the controller's state-change lines of 10,000 partitions, say) go
 * out as one write when it yields (a microtask), not one write system call each; the process's exit and close()
 * write what is pending.
 */
export class HourlyRollingFileTransport extends Transport {
  private readonly file: string;
  private fd: number | undefined;
  private hour = '';
  private pending: string[] = [];
  private flushQueued = false;

  constructor(options: { file: string }) {
    super({ level: 'trace' });
    this.file = options.file;
  }

  private open(now: Date): number {
    const hour = formatHourSuffix(now);
    if (this.fd !== undefined && hour === this.hour) return this.fd;
    if (this.fd !== undefined) {
      fs.closeSync(this.fd);
      this.fd = undefined;
      this.rollTo(this.hour);
    } else {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      const existing = statOrUndefined(this.file);
      if (existing && existing.size > 0) {
        const fileHour = formatHourSuffix(existing.mtime);
        if (fileHour !== hour) this.rollTo(fileHour);
      }
    }
    this.fd = fs.openSync(this.file, 'a');
    this.hour = hour;
    return this.fd;
  }

  private rollTo(hour: string): void {
    const target = `${this.file}.${hour}`;
    if (!fs.existsSync(target)) fs.renameSync(this.file, target);
  }

  override log(info: Record<string | symbol, unknown>, callback: () => void): void {
    this.pending.push(`${String(info[Symbol.for('message')])}\n`);
    if (!this.flushQueued) {
      this.flushQueued = true;
      if (this.pending.length === 1) unflushed.add(this);
      queueMicrotask(() => this.flush());
    }
    callback();
  }

  /** Writes the pending lines, in one system call. */
  flush(): void {
    this.flushQueued = false;
    unflushed.delete(this);
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? (this.pending[0] as string) : this.pending.join('');
    this.pending = [];
    try {
      fs.writeSync(this.open(new Date()), text);
    } catch {
      // A full or failed disk must not take the broker down through its own logging.
    }
  }

  override close(): void {
    this.flush();
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** Transports with lines not yet written, so that an exit (process.exit, an uncaught error) still writes them. */
const unflushed = new Set<HourlyRollingFileTransport>();
process.on('exit', () => {
  for (const t of [...unflushed]) t.flush();
});

function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file);
  } catch {
    return undefined;
  }
}
