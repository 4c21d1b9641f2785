import * as fs from 'node:fs';

/**
 * Pids of this machine's processes whose command line contains every given word, read from /proc as Kafka's
 * stop scripts read `ps ax`. The calling process is never included.
 */
export function findProcesses(words: readonly string[]): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return pids;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue;
    }
    if (words.every((w) => cmdline.includes(w))) pids.push(pid);
  }
  return pids;
}
