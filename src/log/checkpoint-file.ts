import * as fs from 'node:fs';
import * as path from 'node:path';
import { TMP_FILE_SUFFIX } from './log-file-names';

/** How one kind of checkpoint turns an entry into a line and back (undefined for a malformed line). */
export interface CheckpointFormatter<T> {
  toLine(entry: T): string;
  fromLine(fields: string[]): T | undefined;
}

const VERSION = 0;

/**
 * Kafka's text checkpoint format (kafka.server.checkpoints.CheckpointFile), shared by the offset checkpoints of
 * a log dir and the leader-epoch checkpoint of a partition:
 *
 *   0            format version
 *   3            number of entries
 *   orders 0 17  one entry per line (fields separated by spaces; parsing splits on any whitespace)
 *
 * Writes are crash-safe: `<file>.tmp`, fsync, rename over the original, fsync of the directory.
 */
export class CheckpointFile<T> {
  constructor(
    readonly file: string,
    private readonly formatter: CheckpointFormatter<T>,
  ) {}

  write(entries: Iterable<T>): void {
    const text = this.render(entries);
    const tmp = this.file + TMP_FILE_SUFFIX;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    syncDir(path.dirname(this.file));
  }

  /** `write` off the event loop (libuv's pool): same steps, same crash safety. Callers serialise writes of one file. */
  async writeAsync(entries: Iterable<T>): Promise<void> {
    const text = this.render(entries);
    const tmp = this.file + TMP_FILE_SUFFIX;
    const fd = await fs.promises.open(tmp, 'w');
    try {
      await fd.writeFile(text);
      await fd.sync();
    } finally {
      await fd.close();
    }
    await fs.promises.rename(tmp, this.file);
    await syncDirAsync(path.dirname(this.file));
  }

  private render(entries: Iterable<T>): string {
    const lines: string[] = [];
    for (const e of entries) lines.push(this.formatter.toLine(e));
    return `${VERSION}\n${lines.length}\n${lines.map((l) => l + '\n').join('')}`;
  }

  /** The entries, or [] if the file does not exist. Throws on a malformed file, naming it. */
  read(): T[] {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const lines = text.split('\n').filter((l) => l.trim().length > 0);
    const malformed = (why: string): Error => new Error(`Malformed line in checkpoint file (${this.file}): ${why}`);
    const version = Number(lines[0]?.trim());
    if (version !== VERSION) throw new Error(`Unrecognized version of the checkpoint file (${this.file}): ${lines[0] ?? ''}`);
    const expected = Number(lines[1]?.trim());
    if (!Number.isInteger(expected) || expected < 0) throw malformed(`bad entry count '${lines[1] ?? ''}'`);
    const entries: T[] = [];
    for (const line of lines.slice(2)) {
      const e = this.formatter.fromLine(line.trim().split(/\s+/));
      if (e === undefined) throw malformed(`'${line}'`);
      entries.push(e);
    }
    if (entries.length !== expected) {
      throw new Error(`Expected ${expected} entries in checkpoint file (${this.file}), but found only ${entries.length}`);
    }
    return entries;
  }
}

export function syncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Some file systems refuse fsync on directories; the rename is still atomic.
  }
}

/** `syncDir` off the event loop. */
export async function syncDirAsync(dir: string): Promise<void> {
  try {
    const fd = await fs.promises.open(dir, 'r');
    try {
      await fd.sync();
    } finally {
      await fd.close();
    }
  } catch {
    // As syncDir: some file systems refuse fsync on directories; the rename is still atomic.
  }
}
